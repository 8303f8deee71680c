package sandbox

import "os"

// Environ is the environment of a process the kernel starts on the model's
// behalf outside the sandbox (an MCP server): what a confined command gets
// from the kernel's environment (PATH HOME USER LOGNAME SHELL TERM LANG LC_*
// TMPDIR TZ and cfg.PassEnv), then cfg.Env, then extra ("NAME=value"; later
// entries win). A name in cfg.Deny (the model's API key) or starting with
// HELIOS_ never passes, whoever sets it.
func Environ(cfg Config, extra ...string) []string {
	return environ(os.Environ(), cfg.PassEnv, cfg.Env, cfg.Deny, extra...)
}
