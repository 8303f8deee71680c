package openai

import (
	"fmt"
	"strings"
	"testing"
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
		if err := readStream(strings.NewReader(payload), a); err != nil {
			b.Fatal(err)
		}
		if a.text.Len() != 500*7 {
			b.Fatalf("text length %d", a.text.Len())
		}
	}
}
