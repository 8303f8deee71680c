package sandbox

import (
	"fmt"
	"slices"
	"strings"
)

// baseEnv are the variables passed from the kernel's environment to every
// process started for the model, besides LC_* and Config.PassEnv.
var baseEnv = []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "TMPDIR", "TZ"}

// ReservedPrefix starts the names of variables that are never passed to
// processes started for the model: they configure Helios itself.
const ReservedPrefix = "HELIOS_"

// CheckEnvName says why name may never reach a process started for the model:
// it is in deny (the API key variable), starts with HELIOS_, or is no name.
func CheckEnvName(name string, deny []string) error {
	switch {
	case name == "" || strings.ContainsAny(name, "=\x00"):
		return fmt.Errorf("%q is not a variable name", name)
	case slices.Contains(deny, name):
		return fmt.Errorf("%s holds the model's API key (model.apiKeyEnv), which is never passed to commands", name)
	case strings.HasPrefix(name, ReservedPrefix):
		return fmt.Errorf("%s: %s* variables are never passed to commands", name, ReservedPrefix)
	}
	return nil
}

// environ builds the environment of a process started for the model from
// the kernel's environment: the allowlist (BaseEnv, LC_*, pass), then set
// ("KEY=value", later wins), never a name in deny or with ReservedPrefix.
// Extra entries (TMPDIR of the session) come last and win.
func environ(kernelEnv, pass, set, deny []string, extra ...string) []string {
	allowed := func(name string) bool {
		return slices.Contains(baseEnv, name) || strings.HasPrefix(name, "LC_") || slices.Contains(pass, name)
	}
	vals := map[string]string{}
	var order []string
	put := func(kv string) {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || slices.Contains(deny, name) || strings.HasPrefix(name, ReservedPrefix) {
			return
		}
		if _, seen := vals[name]; !seen {
			order = append(order, name)
		}
		vals[name] = val
	}
	for _, kv := range kernelEnv {
		if name, _, _ := strings.Cut(kv, "="); allowed(name) {
			put(kv)
		}
	}
	for _, kv := range set {
		put(kv)
	}
	for _, kv := range extra {
		put(kv)
	}
	out := make([]string, len(order))
	for i, name := range order {
		out[i] = name + "=" + vals[name]
	}
	return out
}
