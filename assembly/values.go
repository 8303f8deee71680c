package assembly

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	kskills "github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/otelsetup"
	"github.com/helios-agents/helios/sandbox"
)

// The config's value types: one type per enum key, with its constants and
// the values it takes (checked by Validate), and Duration.

// Provider is model.provider: the API the endpoint speaks.
type Provider string

const (
	// ProviderOpenAI is any OpenAI-compatible Chat Completions endpoint
	// (the default).
	ProviderOpenAI Provider = "openai"
	// ProviderAnthropic is Anthropic's Messages API.
	ProviderAnthropic Provider = "anthropic"
)

func (Provider) values() []string { return []string{string(ProviderOpenAI), string(ProviderAnthropic)} }

// SkillsMode is skills.mode: how skills reach the model.
type SkillsMode string

const (
	// SkillsCatalog lists the skills in a catalog message and offers one
	// "skill" tool that loads them by name (the default).
	SkillsCatalog SkillsMode = "catalog"
	// SkillsTools offers one tool per skill.
	SkillsTools SkillsMode = "tools"
)

func (SkillsMode) values() []string { return []string{string(SkillsCatalog), string(SkillsTools)} }

// mode is the kernel's mode; the zero value is the default.
func (m SkillsMode) mode() kskills.Mode {
	if m == SkillsTools {
		return kskills.ModeTools
	}
	return kskills.ModeCatalog
}

// WatchMode is skills.watch.mode: how long-running commands see the skill
// folders change.
type WatchMode string

const (
	// WatchNative uses inotify through fsnotify (the default).
	WatchNative WatchMode = "native"
	// WatchPoll stats the roots every pollInterval.
	WatchPoll WatchMode = "poll"
	// WatchOff reads the folders at every snapshot.
	WatchOff WatchMode = "off"
)

func (WatchMode) values() []string {
	return []string{string(WatchNative), string(WatchPoll), string(WatchOff)}
}

// Exporter is telemetry.traces.exporter or telemetry.metrics.exporter; its
// values are otelsetup's: "none" (the default), "otlp-http", "otlp-grpc",
// "stdout" and "file".
type Exporter string

// The exporters, as otelsetup names them.
const (
	ExporterNone     Exporter = otelsetup.None
	ExporterOTLPHTTP Exporter = otelsetup.OTLPHTTP
	ExporterOTLPGRPC Exporter = otelsetup.OTLPGRPC
	ExporterStdout   Exporter = otelsetup.Stdout
	ExporterFile     Exporter = otelsetup.File
)

func (Exporter) values() []string { return otelsetup.Exporters }

// StoreKind is sessions.store: where sessions are kept.
type StoreKind string

const (
	// StoreJSONL keeps one JSONL file per session under sessions.dir (the
	// default).
	StoreJSONL StoreKind = "jsonl"
	// StorePostgres keeps sessions in a PostgreSQL database.
	StorePostgres StoreKind = "postgres"
)

func (StoreKind) values() []string { return []string{string(StoreJSONL), string(StorePostgres)} }

// SandboxMode is tools.sandbox.mode: how the model's commands are confined.
type SandboxMode string

const (
	// SandboxWorkspaceWrite writes only the work dir, the session's temp
	// dir and tools.sandbox.writable (the default on Linux).
	SandboxWorkspaceWrite SandboxMode = "workspace-write"
	// SandboxReadOnly writes only the session's temp dir.
	SandboxReadOnly SandboxMode = "read-only"
	// SandboxOff runs commands unconfined.
	SandboxOff SandboxMode = "off"
)

func (SandboxMode) values() []string {
	return []string{string(SandboxWorkspaceWrite), string(SandboxReadOnly), string(SandboxOff)}
}

// mode is the sandbox's mode; the zero value is the platform's default.
func (m SandboxMode) mode() sandbox.Mode {
	switch m {
	case SandboxWorkspaceWrite:
		return sandbox.WorkspaceWrite
	case SandboxReadOnly:
		return sandbox.ReadOnly
	case SandboxOff:
		return sandbox.Off
	}
	return sandbox.Default
}

// enum is a key with a fixed set of values.
type enum interface {
	values() []string
}

// enumProblem says why v is not one of its key's values; "" when it is,
// or when it is "" (the default).
func enumProblem[E interface {
	enum
	~string
}](v E) string {
	if v == "" || slices.Contains(v.values(), string(v)) {
		return ""
	}
	return fmt.Sprintf("unknown value %q (want one of %s)", string(v), strings.Join(v.values(), ", "))
}

// Duration is a time.Duration written as a string ("500ms", "2s").
type Duration time.Duration

// UnmarshalJSON accepts a Go duration string. null leaves d unchanged, as
// encoding/json's convention for Unmarshalers asks.
func (d *Duration) UnmarshalJSON(b []byte) error {
	if string(bytes.TrimSpace(b)) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a duration must be a string such as \"500ms\", got %s", b)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("invalid duration %q: %w", s, err)
	}
	if v < 0 {
		return fmt.Errorf("invalid duration %q: negative", s)
	}
	*d = Duration(v)
	return nil
}

// MarshalJSON writes the duration as a string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }
