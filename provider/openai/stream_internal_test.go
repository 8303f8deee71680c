package openai

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// BenchmarkReadStream500Chunks is the parse alone, without HTTP: SSE
// splitting, JSON decoding and assembly of 500 text deltas.
func BenchmarkReadStream500Chunks(b *testing.B) {
	var body strings.Builder
	for i := range 500 {
		fmt.Fprintf(&body, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"tok%03d \"},\"logprobs\":null,\"finish_reason\":null}]}\n\n", i)
	}
	body.WriteString("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n")
	body.WriteString("data: [DONE]\n\n")
	payload := body.String()
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	for b.Loop() {
		a := newAssembler(func(string) {}, defaultLimits)
		require.NoError(b, readStream(strings.NewReader(payload), a))
		require.Equal(b, 500*7, a.text.Len(), "text length")
	}
}
