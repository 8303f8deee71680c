package utf8text

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Protects: Valid gives what a JSON round trip gives, byte for byte.
func TestValidMatchesJSON(t *testing.T) {
	for _, s := range []string{"", "plain", "技能 é", "\xff", "a\xffb\xfe\xfdc", "\xe6\x8a", "\ufffd", "\xed\xa0\x80"} {
		data, err := json.Marshal(s)
		require.NoError(t, err)
		var want string
		require.NoError(t, json.Unmarshal(data, &want))
		assert.Equal(t, want, Valid(s), "%q", s)
	}
}
