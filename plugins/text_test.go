package plugins_test

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/helios-agents/helios/plugins"
)

// ValidUTF8 makes text what a JSON round trip makes it, so a payload's text
// reads the same in either form: each invalid byte one U+FFFD, valid text
// untouched.
func TestValidUTF8MatchesJSON(t *testing.T) {
	viaJSON := func(s string) string {
		data, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var out string
		if err := json.Unmarshal(data, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	cases := []string{"", "plain", "技能 – ünïcode", "\xff", "a\xffb", "\xc3", "\xe2\x82", "\xed\xa0\x80", "\xf0\x9f\x98\x80\xf0\x9f", "\u2028<&>"}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("aé€😀\x80\xbf\xc0\xc3\xe2\xed\xf0\xf4\xf5\xff")
	for range 5000 {
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		if !assert.Equal(t, viaJSON(s), plugins.ValidUTF8(s), "ValidUTF8(%q)", s) {
			return
		}
	}
}
