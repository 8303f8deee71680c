package mcpclient

import (
	"bufio"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The filter between a stdio server's output and the SDK: what it passes,
// what it answers in the server's stead, what it skips, when it gives up.
func TestFilter(t *testing.T) {
	big := strings.Repeat("x", MaxMessage)
	for _, tc := range []struct {
		name    string
		pending []any // request ids awaiting an answer
		in      string
		lines   int      // lines the SDK reads
		want    []string // substrings of what it reads
		closed  string   // the error the SDK's reader ends with, "" for EOF
		skipped int
	}{
		{"a message passes", []any{1.0}, `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n", 1, []string{`{"jsonrpc":"2.0","id":1,"result":{}}`}, "", 0},
		{"a banner is skipped", nil, "Server started on stdio\n\n" + `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}` + "\n", 1, []string{`"method":"notifications/tools/list_changed"`}, "", 1},
		{"CRLF is fine", []any{1.0}, `{"jsonrpc":"2.0","id":1,"result":{}}` + "\r\n", 1, []string{`"id":1`}, "", 0},
		{"oversized, id first", []any{7.0}, `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"` + big + `"}]}}` + "\n",
			1, []string{`"id":7`, `answered with a message of 16777`, `over the limit of 16 MiB`}, "", 0},
		{"oversized, id last (TypeScript)", []any{"req-9"}, `{"result":{"content":[{"type":"text","text":"` + big + `"}]},"jsonrpc":"2.0","id":"req-9"}` + "\n",
			1, []string{`"id":"req-9"`, `over the limit of 16 MiB`}, "", 0},
		{"oversized answer to nothing of ours", []any{1.0}, `{"jsonrpc":"2.0","id":3,"result":{"t":"` + big + `"}}` + "\n", 0, nil, "", 1},
		{"oversized and anonymous", []any{1.0}, `{"result":{"t":"` + big + `"},"extra":{"id":1,"x":2}}` + "\n", 0, nil, "answering a request that could not be told", 0},
		{"JSON but not JSON-RPC, answering", []any{4.0}, `{"jsonrpc":"1.0","id":4,"result":{}}` + "\n", 1, []string{`"id":4`, "answered with a malformed message"}, "", 0},
		{"JSON but not JSON-RPC, stray", nil, `{"hello":"world"}` + "\n", 0, nil, "", 1},
		{"a batch is skipped", nil, `[{"jsonrpc":"2.0","id":1,"result":{}}]` + "\n", 0, nil, "", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr, pw := io.Pipe()
			f := &filter{server: "s", logger: slog.New(slog.DiscardHandler), info: &connInfo{}, out: pw, pending: map[string]bool{}, eof: func() {}}
			for _, p := range tc.pending {
				id, err := jsonrpc.MakeID(p)
				require.NoError(t, err)
				f.await(id)
			}
			go f.run(strings.NewReader(tc.in))
			var got []string
			br := bufio.NewReaderSize(pr, 1<<20)
			var end error
			for {
				line, err := br.ReadString('\n')
				if line != "" {
					got = append(got, line)
				}
				if err != nil {
					end = err
					break
				}
			}
			require.Len(t, got, tc.lines, "%q", got)
			for _, line := range got {
				_, err := jsonrpc.DecodeMessage([]byte(line))
				assert.NoError(t, err, "every line the SDK reads is a JSON-RPC message")
			}
			for _, w := range tc.want {
				assert.Contains(t, strings.Join(got, ""), w)
			}
			if tc.closed == "" {
				assert.ErrorIs(t, end, io.EOF)
			} else {
				assert.ErrorContains(t, end, tc.closed)
				assert.ErrorContains(t, f.info.reason(), "over the limit of 16 MiB")
			}
			assert.Equal(t, tc.skipped, f.skipped)
		})
	}
}

func TestLineID(t *testing.T) {
	for _, tc := range []struct {
		head, tail string
		want       any
	}{
		{`{"jsonrpc":"2.0","id":12,"result":{"a`, ``, int64(12)},
		{`{"id":"x","jsonrpc":"2.0","result":{`, ``, "x"},
		{`{"result":{"content":[{"id":99`, `"text":"zzz"}]},"jsonrpc":"2.0","id":5}`, int64(5)},
		{`{"result":{`, `"x"}],"id":5},"other":1}`, nil},
		{`{"result":{`, `,"id":"a\"b"}`, `a"b`},
		{`not json`, `nor this`, nil},
	} {
		id, ok := lineID([]byte(tc.head), []byte(tc.tail))
		if tc.want == nil {
			assert.False(t, ok, "%s … %s", tc.head, tc.tail)
			continue
		}
		require.True(t, ok, "%s … %s", tc.head, tc.tail)
		assert.Equal(t, tc.want, id.Raw())
	}
}
