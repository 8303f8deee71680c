package permissions

import (
	"encoding/json"
)

// Behavior is what a decision lets a tool call do.
type Behavior string

// The three behaviours of Claude Code's permission lists.
const (
	Allow Behavior = "allow"
	Ask   Behavior = "ask"
	Deny  Behavior = "deny"
)

// Mode is the `defaultMode` that decides unmatched calls.
type Mode string

// The modes Helios supports.
const (
	ModeDefault     Mode = "default"
	ModeAcceptEdits Mode = "acceptEdits"
	ModePlan        Mode = "plan"
	ModeDontAsk     Mode = "dontAsk"
)

// Config is the `permissions` key of helios.config.json /
// ~/.helios/settings.json, Claude Code's shape.
type Config struct {
	Allow       []string `json:"allow,omitempty"`
	Ask         []string `json:"ask,omitempty"`
	Deny        []string `json:"deny,omitempty"`
	DefaultMode Mode     `json:"defaultMode,omitempty"`
}

// Dirs anchor path patterns: "./x" is relative to Project (the folder of the
// config that holds the rule), "~/" to Home, "//" absolute; Work is the work
// dir tool paths are relative to.
type Dirs struct{ Project, Home, Work string }

// Call is one tool call as the model sent it.
type Call struct {
	Tool  string
	Input json.RawMessage
}

// Decision is the outcome of Set.Decide.
type Decision struct {
	Behavior Behavior
	Rule     string // the rule that decided ("" when the mode decided); for an allowed Bash chain, the rules that allowed its parts, joined by ", "
	List     string // "deny", "ask", "allow", "allowed-tools" or "defaultMode"
	Reason   string // one line fit for the model and the user, naming rule and list
}

// Layer is one settings file's permissions.
type Layer struct {
	Source string // file path, for messages
	Config Config
	Dirs   Dirs
}
