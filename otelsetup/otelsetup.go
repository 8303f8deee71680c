package otelsetup

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/helios-agents/helios/kernel/redact"
	"github.com/helios-agents/helios/kernel/telemetry"
)

// Exporter names.
const (
	None     = "none"
	OTLPHTTP = "otlp-http"
	OTLPGRPC = "otlp-grpc"
	Stdout   = "stdout"
	File     = "file"
)

// Exporters lists the valid exporter names.
var Exporters = []string{None, OTLPHTTP, OTLPGRPC, Stdout, File}

// Signal configures the export of one signal (traces or metrics).
type Signal struct {
	// Exporter is one of Exporters; "" means the OTEL_*_EXPORTER variable,
	// else none.
	Exporter string `json:"exporter,omitempty"`
	// Endpoint is the collector's base URL for otlp-http
	// (http://localhost:4318; /v1/traces or /v1/metrics is appended) or its
	// address for otlp-grpc (localhost:4317, or a URL whose scheme says
	// whether TLS is used). "" means OTEL_EXPORTER_OTLP_ENDPOINT, else the
	// exporter's default.
	Endpoint string `json:"endpoint,omitempty"`
	// Path is the file of the file exporter (appended to, one JSON object
	// per line).
	Path string `json:"path,omitempty"`
}

// Config is Helios's telemetry configuration.
type Config struct {
	Traces  Signal `json:"traces"`
	Metrics Signal `json:"metrics"`
	// CaptureContent allows prompts, completions and tool payloads into
	// spans. Default false.
	CaptureContent bool `json:"captureContent,omitempty"`
	// ServiceName is service.name; "" means OTEL_SERVICE_NAME, else "helios".
	ServiceName string `json:"serviceName,omitempty"`
}

// Enabled reports whether any signal is exported.
func (c Config) Enabled() bool {
	return (c.Traces.Exporter != "" && c.Traces.Exporter != None) || (c.Metrics.Exporter != "" && c.Metrics.Exporter != None)
}

// Validate checks the exporter names and that the file exporter has a path.
func (c Config) Validate() error {
	var errs []error
	for _, s := range []struct {
		key string
		sig Signal
	}{{"traces", c.Traces}, {"metrics", c.Metrics}} {
		if err := s.sig.validate(); err != nil {
			errs = append(errs, fmt.Errorf("%s.%s", s.key, err)) // traces.path: ...
		}
	}
	return errors.Join(errs...)
}

func (s Signal) validate() error {
	switch s.Exporter {
	case "", None, OTLPHTTP, OTLPGRPC, Stdout:
	case File:
		if s.Path == "" {
			return errors.New("path: the file exporter needs a path")
		}
	default:
		return fmt.Errorf("exporter: unknown exporter %q (want one of %s)", s.Exporter, strings.Join(Exporters, ", "))
	}
	return nil
}

// FromEnv fills what c leaves empty from the standard variables: the
// exporters from OTEL_TRACES_EXPORTER and OTEL_METRICS_EXPORTER ("otlp"
// with OTEL_EXPORTER_OTLP_PROTOCOL "grpc" is otlp-grpc, else otlp-http;
// "console" is stdout; "none"), and the service name from
// OTEL_SERVICE_NAME. What c sets wins. The endpoint and
// OTEL_RESOURCE_ATTRIBUTES are read by the exporters and the resource
// themselves.
func FromEnv(c Config, getenv func(string) string) (Config, error) {
	var errs []error
	pick := func(sig *Signal, key string) {
		if sig.Exporter != "" {
			return
		}
		switch v := strings.TrimSpace(getenv(key)); v {
		case "":
		case "otlp":
			sig.Exporter = OTLPHTTP
			if p := getenv("OTEL_EXPORTER_OTLP_PROTOCOL"); p == "grpc" {
				sig.Exporter = OTLPGRPC
			}
		case "console":
			sig.Exporter = Stdout
		case None, OTLPHTTP, OTLPGRPC, Stdout:
			sig.Exporter = v
		default:
			errs = append(errs, fmt.Errorf("%s: unknown exporter %q (want otlp, console or none)", key, v))
		}
	}
	pick(&c.Traces, "OTEL_TRACES_EXPORTER")
	pick(&c.Metrics, "OTEL_METRICS_EXPORTER")
	if c.ServiceName == "" {
		c.ServiceName = getenv("OTEL_SERVICE_NAME")
	}
	return c, errors.Join(errs...)
}

// HandoverEnv is the variable through which a plugin receives the kernel's
// telemetry configuration (JSON of Config).
const HandoverEnv = "HELIOS_TELEMETRY"

// Handover returns the value of HandoverEnv that hands c to a plugin
// process, or "" when c exports nothing. The service name stays behind: a
// plugin reports under its own.
func Handover(c Config) string {
	if !c.Enabled() {
		return ""
	}
	c.ServiceName = ""
	b, err := json.Marshal(c)
	if err != nil {
		return "" // Config is plain data: cannot happen
	}
	return string(b)
}

// FromHandover decodes what Handover encoded; "" is telemetry off.
func FromHandover(v string) (Config, error) {
	var c Config
	if v == "" {
		return c, nil
	}
	if err := json.Unmarshal([]byte(v), &c); err != nil {
		return c, fmt.Errorf("%s: %w", HandoverEnv, err)
	}
	return c, c.Validate()
}

// Providers is a configured SDK. Shutdown flushes and stops it.
type Providers struct {
	T              *telemetry.T
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
	shutdown       []func(context.Context) error
	exporters      []*guardedExporter
	logger         *slog.Logger
}

// Options are what Setup needs besides Config.
type Options struct {
	// Logger receives the one warning about failing exports. Nil discards.
	Logger *slog.Logger
	// Stdout is where the stdout exporters write; nil is os.Stdout. (The
	// CLI passes its stderr where stdout carries a protocol.)
	Stdout io.Writer
	// DefaultServiceName is service.name when neither the config nor
	// OTEL_SERVICE_NAME sets one; "" is "helios".
	DefaultServiceName string
	// Batch tunes the span batcher (tests shorten it); zero is the SDK's
	// defaults: a queue of 2048 spans, dropped when full, never blocking.
	BatchTimeout time.Duration
	// Secrets are replaced by [REDACTED] in every span exported: its name,
	// attributes, events (an error's message), links and status. Nil hides
	// nothing. (Metrics carry only enumerated attributes: model and
	// provider names, hook points, outcomes.)
	Secrets *redact.Secrets
}

// Setup builds the providers of c. With nothing to export it returns nil
// Providers and a nil T: telemetry off costs nothing.
func Setup(ctx context.Context, c Config, o Options) (*Providers, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if !c.Enabled() {
		return nil, nil
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
	name := c.ServiceName
	if name == "" {
		name = o.DefaultServiceName
	}
	if name == "" {
		name = "helios"
	}
	res, err := resource.New(ctx, resource.WithFromEnv(), resource.WithTelemetrySDK(), resource.WithProcessPID(),
		resource.WithAttributes(attribute.String("service.name", name)))
	if err != nil && res == nil {
		return nil, fmt.Errorf("describe resource: %w", err)
	}
	p := &Providers{logger: o.Logger}
	fail := func(err error) (*Providers, error) {
		return nil, errors.Join(err, p.Shutdown(ctx))
	}

	var tp trace.TracerProvider = tracenoop.NewTracerProvider()
	if c.Traces.Exporter != "" && c.Traces.Exporter != None {
		exp, err := traceExporter(ctx, c.Traces, o.Stdout)
		if err != nil {
			return fail(fmt.Errorf("start traces exporter: %w", err))
		}
		g := &guardedExporter{SpanExporter: exp, what: "traces", logger: o.Logger, secrets: o.Secrets}
		p.exporters = append(p.exporters, g)
		var bo []sdktrace.BatchSpanProcessorOption
		if o.BatchTimeout > 0 {
			bo = append(bo, sdktrace.WithBatchTimeout(o.BatchTimeout))
		}
		sdk := sdktrace.NewTracerProvider(sdktrace.WithResource(res), sdktrace.WithBatcher(g, bo...))
		p.shutdown = append(p.shutdown, sdk.Shutdown)
		tp = sdk
	}
	var mp metric.MeterProvider = metricnoop.NewMeterProvider()
	if c.Metrics.Exporter != "" && c.Metrics.Exporter != None {
		exp, file, err := metricExporter(ctx, c.Metrics, o.Stdout)
		if err != nil {
			return fail(fmt.Errorf("start metrics exporter: %w", err))
		}
		sdk := sdkmetric.NewMeterProvider(sdkmetric.WithResource(res), sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)))
		p.shutdown = append(p.shutdown, sdk.Shutdown)
		if file != nil {
			p.shutdown = append(p.shutdown, func(context.Context) error { return file.Close() })
		}
		mp = sdk
	}
	t, err := telemetry.New(tp, mp, c.CaptureContent)
	if err != nil {
		return fail(fmt.Errorf("make instruments: %w", err))
	}
	p.T, p.TracerProvider, p.MeterProvider = t, tp, mp
	return p, nil
}

// shutdownTimeout bounds Shutdown: an unreachable collector must not hold
// up the exit of helios run.
const shutdownTimeout = 3 * time.Second

// Shutdown flushes what is queued (for at most a few seconds) and stops the
// providers. It is safe on a nil Providers.
func (p *Providers) Shutdown(ctx context.Context) error {
	if p == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer cancel()
	var errs []error
	for _, f := range p.shutdown {
		if err := f(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			errs = append(errs, err)
		}
	}
	p.shutdown = nil
	for _, g := range p.exporters {
		if n := g.dropped.Load(); n > 0 {
			p.logger.Warn("shut down telemetry: spans were dropped because their export failed", slog.String("signal", g.what), slog.Int64("dropped", n))
		}
	}
	return errors.Join(errs...)
}

// Close is Shutdown with a background context, so Providers can be handed
// to the kernel as a resource to close.
func (p *Providers) Close() error { return p.Shutdown(context.Background()) }

// guardedExporter counts the spans of failed exports and logs the first
// failure once; it reports success to the batcher so that a collector that
// is down produces one warning, not one per batch on stderr.
type guardedExporter struct {
	sdktrace.SpanExporter
	what    string
	logger  *slog.Logger
	secrets *redact.Secrets
	dropped atomic.Int64
	logged  atomic.Bool
}

func (g *guardedExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if g.secrets.Len() > 0 {
		red := make([]sdktrace.ReadOnlySpan, len(spans))
		for i, s := range spans {
			red[i] = redactedSpan{s, g.secrets}
		}
		spans = red
	}
	if err := g.SpanExporter.ExportSpans(ctx, spans); err != nil {
		g.dropped.Add(int64(len(spans)))
		if g.logged.CompareAndSwap(false, true) {
			g.logger.Warn("export spans: export failed; dropping spans (said once; the total is logged at exit)",
				slog.String("signal", g.what), slog.Any("error", err))
		}
	}
	return nil
}

func traceExporter(ctx context.Context, s Signal, stdout io.Writer) (sdktrace.SpanExporter, error) {
	switch s.Exporter {
	case OTLPHTTP:
		var opts []otlptracehttp.Option
		if s.Endpoint != "" {
			u, err := endpointURL(s.Endpoint, "/v1/traces")
			if err != nil {
				return nil, err
			}
			opts = append(opts, otlptracehttp.WithEndpointURL(u))
		}
		return spanExporter(otlptracehttp.New(ctx, opts...))
	case OTLPGRPC:
		var opts []otlptracegrpc.Option
		if s.Endpoint != "" {
			if strings.Contains(s.Endpoint, "://") {
				opts = append(opts, otlptracegrpc.WithEndpointURL(s.Endpoint))
			} else {
				opts = append(opts, otlptracegrpc.WithEndpoint(s.Endpoint), otlptracegrpc.WithInsecure())
			}
		}
		return spanExporter(otlptracegrpc.New(ctx, opts...))
	case Stdout:
		return spanExporter(stdouttrace.New(stdouttrace.WithWriter(stdout)))
	case File:
		return spanExporter(otlptrace.New(ctx, &fileClient{path: s.Path}))
	}
	return nil, fmt.Errorf("unknown exporter %q", s.Exporter)
}

// metricExporter returns the exporter and, for the file exporter, the file
// to close after the last collection.
func metricExporter(ctx context.Context, s Signal, stdout io.Writer) (sdkmetric.Exporter, io.Closer, error) {
	switch s.Exporter {
	case OTLPHTTP:
		var opts []otlpmetrichttp.Option
		if s.Endpoint != "" {
			u, err := endpointURL(s.Endpoint, "/v1/metrics")
			if err != nil {
				return nil, nil, err
			}
			opts = append(opts, otlpmetrichttp.WithEndpointURL(u))
		}
		return metricExporterOf(otlpmetrichttp.New(ctx, opts...))
	case OTLPGRPC:
		var opts []otlpmetricgrpc.Option
		if s.Endpoint != "" {
			if strings.Contains(s.Endpoint, "://") {
				opts = append(opts, otlpmetricgrpc.WithEndpointURL(s.Endpoint))
			} else {
				opts = append(opts, otlpmetricgrpc.WithEndpoint(s.Endpoint), otlpmetricgrpc.WithInsecure())
			}
		}
		return metricExporterOf(otlpmetricgrpc.New(ctx, opts...))
	case Stdout:
		exp, err := stdoutmetric.New(stdoutmetric.WithWriter(stdout))
		return exp, nil, err
	case File:
		f, err := os.OpenFile(s.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return nil, nil, err
		}
		// One JSON object per collection, in the stdout exporter's encoding
		// (the OTLP transform of metrics is internal to the OTLP exporters).
		exp, err := stdoutmetric.New(stdoutmetric.WithWriter(f))
		if err != nil {
			return nil, nil, errors.Join(err, f.Close())
		}
		return exp, f, nil
	}
	return nil, nil, fmt.Errorf("unknown exporter %q", s.Exporter)
}

// endpointURL turns a base URL (http://host:4318, or host:4318 for plain
// HTTP) into the signal's URL.
func endpointURL(base, signalPath string) (string, error) {
	if !strings.Contains(base, "://") {
		base = "http://" + base
	}
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("endpoint %q: want a URL such as http://localhost:4318", base)
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + signalPath
	return u.String(), nil
}

// redactedSpan is a span as exported: every string it carries with the
// secrets replaced.
type redactedSpan struct {
	sdktrace.ReadOnlySpan
	secrets *redact.Secrets
}

func (s redactedSpan) Name() string { return s.secrets.String(s.ReadOnlySpan.Name()) }

func (s redactedSpan) Attributes() []attribute.KeyValue {
	return redactAttrs(s.secrets, s.ReadOnlySpan.Attributes())
}

func (s redactedSpan) Status() sdktrace.Status {
	st := s.ReadOnlySpan.Status()
	st.Description = s.secrets.String(st.Description)
	return st
}

func (s redactedSpan) Events() []sdktrace.Event {
	evs := s.ReadOnlySpan.Events()
	out := make([]sdktrace.Event, len(evs))
	for i, e := range evs {
		e.Name = s.secrets.String(e.Name)
		e.Attributes = redactAttrs(s.secrets, e.Attributes)
		out[i] = e
	}
	return out
}

func (s redactedSpan) Links() []sdktrace.Link {
	ls := s.ReadOnlySpan.Links()
	out := make([]sdktrace.Link, len(ls))
	for i, l := range ls {
		l.Attributes = redactAttrs(s.secrets, l.Attributes)
		out[i] = l
	}
	return out
}

func redactAttrs(secrets *redact.Secrets, kvs []attribute.KeyValue) []attribute.KeyValue {
	out := make([]attribute.KeyValue, len(kvs))
	for i, kv := range kvs {
		switch kv.Value.Type() {
		case attribute.STRING:
			kv.Value = attribute.StringValue(secrets.String(kv.Value.AsString()))
		case attribute.STRINGSLICE:
			ss := kv.Value.AsStringSlice()
			for j := range ss {
				ss[j] = secrets.String(ss[j])
			}
			kv.Value = attribute.StringSliceValue(ss)
		}
		out[i] = kv
	}
	return out
}

// spanExporter returns a constructor's exporter as the interface only when
// it succeeded: a failed constructor's nil pointer must not become a
// non-nil SpanExporter.
func spanExporter[E sdktrace.SpanExporter](e E, err error) (sdktrace.SpanExporter, error) {
	if err != nil {
		return nil, err
	}
	return e, nil
}

// metricExporterOf is spanExporter for metric exporters (which have no file
// to close).
func metricExporterOf[E sdkmetric.Exporter](e E, err error) (sdkmetric.Exporter, io.Closer, error) {
	if err != nil {
		return nil, nil, err
	}
	return e, nil, nil
}
