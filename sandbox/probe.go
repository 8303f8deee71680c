package sandbox

import (
	"os"
	"strconv"
	"strings"
)

// SimulateEnv names a variable that lowers what Probe reports, to try the
// fail-closed path on a machine that could confine: a comma-separated list
// of "landlock=N" (report ABI N at most; 0: no Landlock), "seccomp=off"
// and "userns=off" (no user namespace).
// It can only take support away, never add it.
const SimulateEnv = "HELIOS_SANDBOX_SIMULATE"

// Probe reports what this machine supports, lowered by SimulateEnv.
func Probe() Support {
	s := probe()
	if sim := os.Getenv(SimulateEnv); sim != "" {
		s = simulate(s, sim)
	}
	return s
}

func simulate(s Support, sim string) Support {
	s.Simulated = sim
	for _, part := range strings.Split(sim, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "landlock":
			if n, err := strconv.Atoi(v); err == nil && n < s.LandlockABI {
				s.LandlockABI = max(n, 0)
				if s.LandlockABI == 0 {
					s.LandlockError = "simulated by " + SimulateEnv
				}
			}
		case "userns":
			if v == "off" {
				s.UserNSError = "simulated by " + SimulateEnv
			}
		case "seccomp":
			if v == "off" {
				s.Seccomp, s.SeccompError = false, "simulated by "+SimulateEnv
			}
		}
	}
	return s
}
