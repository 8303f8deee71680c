package openai

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

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
