package openai

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
			got, ok := retryAfter(tt.header)
			assert.Equal(t, tt.want, got, "retryAfter")
			assert.Equal(t, tt.ok, ok, "retryAfter")
		})
	}
}

func TestDefaultBackoff(t *testing.T) {
	for attempt, wantMax := range map[int]time.Duration{1: 500 * time.Millisecond, 2: time.Second, 3: 2 * time.Second, 5: 8 * time.Second, 6: 10 * time.Second, 50: 10 * time.Second} {
		for range 100 {
			d := defaultBackoff(attempt)
			require.GreaterOrEqual(t, d, wantMax/2, "defaultBackoff(%d), want in [)", attempt)
			require.Less(t, d, wantMax, "defaultBackoff(%d), want in [)", attempt)
		}
	}
}

func TestServerMessage(t *testing.T) {
	tests := []struct{ body, msg, code string }{
		{`{"error":{"message":"bad key","code":"invalid_api_key"}}`, "bad key", "invalid_api_key"},
		{`{"error":{"message":"slow down","type":"requests","code":null}}`, "slow down", "requests"},
		{`{"error":"model not found"}`, "model not found", ""},
		{`{"object":"error","message":"no such model"}`, "no such model", ""},
		{`{"detail":"Not Found"}`, "Not Found", ""},
		{`{"detail":[{"loc":["body"],"msg":"field required"}]}`, `[{"loc":["body"],"msg":"field required"}]`, ""},
		{`<html>502</html>`, "", ""},
	}
	for _, tt := range tests {
		msg, code := serverMessage([]byte(tt.body))
		assert.Equal(t, tt.msg, msg, "serverMessage(%s)", tt.body)
		assert.Equal(t, tt.code, code, "serverMessage(%s)", tt.body)
	}
}
