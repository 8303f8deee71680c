package otelsetup

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestFromEnvFillsWhatConfigLeaves(t *testing.T) {
	for _, tc := range []struct {
		name        string
		cfg         Config
		vars        map[string]string
		wantTraces  string
		wantMetrics string
		wantService string
	}{
		{"nothing", Config{}, nil, "", "", ""},
		{"otlp is http by default", Config{}, map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, OTLPHTTP, "", ""},
		{"otlp over grpc", Config{}, map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_METRICS_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, OTLPGRPC, OTLPGRPC, ""},
		{"console is stdout", Config{}, map[string]string{"OTEL_TRACES_EXPORTER": "console"}, Stdout, "", ""},
		{"config wins", Config{Traces: Signal{Exporter: None}, ServiceName: "mine"}, map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_SERVICE_NAME": "theirs"}, None, "", "mine"},
		{"service name from env", Config{}, map[string]string{"OTEL_SERVICE_NAME": "theirs"}, "", "", "theirs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := FromEnv(tc.cfg, env(tc.vars))
			require.NoError(t, err)
			assert.Equal(t, tc.wantTraces, got.Traces.Exporter)
			assert.Equal(t, tc.wantMetrics, got.Metrics.Exporter)
			assert.Equal(t, tc.wantService, got.ServiceName)
		})
	}
	_, err := FromEnv(Config{}, env(map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}))
	assert.ErrorContains(t, err, `OTEL_TRACES_EXPORTER: unknown exporter "zipkin"`)
}

func TestValidate(t *testing.T) {
	assert.NoError(t, Config{Traces: Signal{Exporter: File, Path: "t.jsonl"}}.Validate())
	assert.ErrorContains(t, Config{Traces: Signal{Exporter: File}}.Validate(), "traces.path: the file exporter needs a path")
	assert.ErrorContains(t, Config{Metrics: Signal{Exporter: "jaeger"}}.Validate(), `metrics.exporter: unknown exporter "jaeger"`)
}

func TestHandoverRoundTripKeepsPluginName(t *testing.T) {
	assert.Empty(t, Handover(Config{}), "nothing to hand over when off")
	c := Config{Traces: Signal{Exporter: OTLPHTTP, Endpoint: "http://127.0.0.1:4318"}, CaptureContent: true, ServiceName: "helios"}
	got, err := FromHandover(Handover(c))
	require.NoError(t, err)
	assert.Equal(t, c.Traces, got.Traces)
	assert.True(t, got.CaptureContent)
	assert.Empty(t, got.ServiceName, "a plugin reports under its own name")
	_, err = FromHandover("{")
	assert.ErrorContains(t, err, HandoverEnv)
}

func TestEndpointURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://localhost:4318":        "http://localhost:4318/v1/traces",
		"http://collector:4318/otlp/":  "http://collector:4318/otlp/v1/traces",
		"localhost:4318":               "http://localhost:4318/v1/traces",
		"https://api.example.com:4318": "https://api.example.com:4318/v1/traces",
	} {
		got, err := endpointURL(in, "/v1/traces")
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	_, err := endpointURL("http://", "/v1/traces")
	assert.Error(t, err)
}

// Off is nothing: no providers, a nil T whose methods are no-ops.
func TestSetupOffIsNil(t *testing.T) {
	p, err := Setup(context.Background(), Config{Traces: Signal{Exporter: None}}, Options{})
	require.NoError(t, err)
	assert.Nil(t, p)
	assert.NoError(t, p.Shutdown(context.Background()))
}
