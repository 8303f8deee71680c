package openai_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/provider/openai"
)

// A server streaming one event past the 32 MiB limit gets one attempt and
// an error naming the limit, with what was shown kept.
func TestGenerateStopsAtTheEventLimit(t *testing.T) {
	url, attempts := rawServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		sse(w, events(textChunk("Hi"))+"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\""+strings.Repeat("x", 33<<20)+"\"}}]}\n\n")
	})
	var shown strings.Builder
	resp, err := newClient(t, url).Generate(t.Context(), model.Request{OnText: func(s string) { shown.WriteString(s) }})
	require.Error(t, err)
	assert.True(t, errors.Is(err, openai.ErrTooLarge), "error %v is not ErrTooLarge", err)
	assert.Contains(t, err.Error(), "exceeds the limit of 32 MiB")
	assert.Equal(t, int32(1), attempts.Load())
	assert.Equal(t, "Hi", resp.Text)
	assert.Equal(t, "Hi", shown.String())
}
