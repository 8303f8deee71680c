package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/helios-agents/helios/kernel/session"
)

func TestUsageLine(t *testing.T) {
	tests := []struct {
		u    session.Usage
		n    int
		want string
	}{
		{session.Usage{Input: 950, Output: 12}, 1, "tokens: 950 in, 12 out, 1 request"},
		{session.Usage{Input: 1_234_567, Output: 4_321, CacheRead: 1_000_000, CacheWrite: 200_000}, 12,
			"tokens: 1,234,567 in (1,000,000 read from the prompt cache, 200,000 written to it), 4,321 out, 12 requests"},
		{session.Usage{Input: 5000, Output: 1, CacheWrite: 4000}, 2, "tokens: 5,000 in (4,000 written to it), 1 out, 2 requests"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, usageLine(tt.u, tt.n))
	}
	assert.Equal(t, "-1,000", thousands(-1000))
	assert.Equal(t, "100", thousands(100))
}
