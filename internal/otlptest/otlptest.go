// Package otlptest is a real OTLP/HTTP receiver for tests: it serves
// POST /v1/traces and /v1/metrics on loopback, decodes the protobuf export
// requests with the OTLP protocol's own Go types and keeps what arrived.
// Tests point an exporter (the kernel's, a plugin's) at URL and read spans
// back as a flat list with their resource's service.name.
package otlptest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Span is a received span with its service.
type Span struct {
	Service string
	*tracepb.Span
}

// Attr returns the value of attribute key as a string, and whether it is set.
func (s Span) Attr(key string) (string, bool) { return attr(s.Attributes, key) }

// Receiver is a running receiver; it stops with the test.
type Receiver struct {
	srv *httptest.Server

	mu      sync.Mutex
	spans   []Span
	metrics []*metricpb.ResourceMetrics
}

// Start starts a receiver on 127.0.0.1.
func Start(t testing.TB) *Receiver {
	r := &Receiver{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", r.traces)
	mux.HandleFunc("POST /v1/metrics", r.metricsHandler)
	r.srv = httptest.NewServer(mux)
	t.Cleanup(r.srv.Close)
	return r
}

// URL is the receiver's base URL (an exporter appends /v1/traces).
func (r *Receiver) URL() string { return r.srv.URL }

// Spans returns the spans received so far.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Span(nil), r.spans...)
}

// Metrics returns the metrics received so far.
func (r *Receiver) Metrics() []*metricpb.ResourceMetrics {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*metricpb.ResourceMetrics(nil), r.metrics...)
}

func (r *Receiver) traces(w http.ResponseWriter, req *http.Request) {
	var in coltracepb.ExportTraceServiceRequest
	if !decode(w, req, &in) {
		return
	}
	r.mu.Lock()
	for _, rs := range in.ResourceSpans {
		svc, _ := attr(rs.GetResource().GetAttributes(), "service.name")
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				r.spans = append(r.spans, Span{Service: svc, Span: s})
			}
		}
	}
	r.mu.Unlock()
	reply(w, &coltracepb.ExportTraceServiceResponse{})
}

func (r *Receiver) metricsHandler(w http.ResponseWriter, req *http.Request) {
	var in colmetricpb.ExportMetricsServiceRequest
	if !decode(w, req, &in) {
		return
	}
	r.mu.Lock()
	r.metrics = append(r.metrics, in.ResourceMetrics...)
	r.mu.Unlock()
	reply(w, &colmetricpb.ExportMetricsServiceResponse{})
}

func decode(w http.ResponseWriter, req *http.Request, m proto.Message) bool {
	if ct := req.Header.Get("Content-Type"); ct != "application/x-protobuf" {
		http.Error(w, "want application/x-protobuf, got "+ct, http.StatusUnsupportedMediaType)
		return false
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, 64<<20))
	if err == nil {
		err = proto.Unmarshal(body, m)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return false
	}
	return true
}

func reply(w http.ResponseWriter, m proto.Message) {
	b, _ := proto.Marshal(m)
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(b)
}

func attr(kvs []*commonpb.KeyValue, key string) (string, bool) {
	for _, kv := range kvs {
		if kv.Key != key {
			continue
		}
		switch v := kv.Value.GetValue().(type) {
		case *commonpb.AnyValue_StringValue:
			return v.StringValue, true
		case *commonpb.AnyValue_IntValue:
			return strconv.FormatInt(v.IntValue, 10), true
		case *commonpb.AnyValue_BoolValue:
			if v.BoolValue {
				return "true", true
			}
			return "false", true
		case *commonpb.AnyValue_ArrayValue:
			out := ""
			for i, e := range v.ArrayValue.GetValues() {
				if i > 0 {
					out += ","
				}
				out += e.GetStringValue()
			}
			return out, true
		default:
			return kv.Value.String(), true
		}
	}
	return "", false
}
