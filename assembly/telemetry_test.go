package assembly_test

// Contract C14: the telemetry config keys.

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/helios-agents/helios/assembly"
)

// Protects C14 bad input: an unknown exporter is a config error naming the
// JSON path.
func TestTelemetryConfigErrors(t *testing.T) {
	_, err := assembly.ParseConfig("helios.config.json", []byte(`{"telemetry": {"traces": {"exporter": "jaeger"}}}`))
	assert.ErrorContains(t, err, "telemetry.traces.exporter")
	assert.ErrorContains(t, err, `"jaeger"`)
	_, err = assembly.ParseConfig("helios.config.json", []byte(`{"telemetry": {"captureContent": "yes"}}`))
	assert.ErrorContains(t, err, "telemetry.captureContent")
	_, err = assembly.ParseConfig("helios.config.json", []byte(`{"telemetry": {"metrics": {"exporter": "file", "path": "m.jsonl"}, "serviceName": "agents"}}`))
	assert.NoError(t, err)
}
