//go:build !unix

package tools_test

import (
	"testing"
	"time"
)

// cpuTime is 0 where getrusage(2) is missing: no CPU metric is reported.
func cpuTime(*testing.B) time.Duration { return 0 }
