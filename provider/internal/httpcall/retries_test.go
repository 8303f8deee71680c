package httpcall

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRetries(t *testing.T) {
	for configured, want := range map[int]int{0: 3, -1: 0, -50: 0, 1: 1, 7: 7} {
		assert.Equal(t, want, Retries(configured), "Retries(%d)", configured)
	}
}
