package httpcall

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRetryAfter(t *testing.T) {
	tests := []struct {
		name   string
		header http.Header
		want   time.Duration
		ok     bool
	}{
		{"absent", http.Header{}, 0, false},
		{"seconds", http.Header{"Retry-After": {"2"}}, 2 * time.Second, true},
		{"zero", http.Header{"Retry-After": {"0"}}, 0, true},
		{"fraction", http.Header{"Retry-After": {"0.5"}}, 500 * time.Millisecond, true},
		{"negative is now", http.Header{"Retry-After": {"-3"}}, 0, true},
		{"milliseconds win", http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"9"}}, 250 * time.Millisecond, true},
		{"past date", http.Header{"Retry-After": {"Wed, 21 Oct 2015 07:28:00 GMT"}}, 0, true},
		{"garbage", http.Header{"Retry-After": {"soon"}}, 0, false},
		{"huge does not overflow", http.Header{"Retry-After": {"1e300"}}, 24 * time.Hour, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := RetryAfter(tt.header)
			assert.Equal(t, tt.want, got, "RetryAfter")
			assert.Equal(t, tt.ok, ok, "RetryAfter")
		})
	}
}

func TestDefaultBackoff(t *testing.T) {
	for attempt, wantMax := range map[int]time.Duration{1: 500 * time.Millisecond, 2: time.Second, 3: 2 * time.Second, 5: 8 * time.Second, 6: 10 * time.Second, 50: 10 * time.Second} {
		for range 100 {
			d := DefaultBackoff(attempt)
			require.GreaterOrEqual(t, d, wantMax/2, "DefaultBackoff(%d), want in [)", attempt)
			require.Less(t, d, wantMax, "DefaultBackoff(%d), want in [)", attempt)
		}
	}
}
