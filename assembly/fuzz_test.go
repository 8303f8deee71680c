package assembly_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/helios-agents/helios/assembly"
)

// FuzzParseConfig feeds arbitrary bytes to the strict config decoder: it
// never panics; an error is an ErrConfig naming the file; a config it
// accepts encodes to JSON that decodes to the same config.
func FuzzParseConfig(f *testing.F) {
	for _, seed := range []string{
		``,
		`{}`,
		`{"skills":{"mode":"tools","userRoots":[],"watch":{"mode":"poll","pollInterval":"250ms","followSymlinks":false}}}`,
		`{"plugins":[{"name":"n","command":"./p","args":["-v"],"env":{"A":"b"},"startTimeout":"1s"}]}`,
		`{"model":{"baseURL":"http://localhost:11434/v1","name":"qwen","apiKeyEnv":"","temperature":0.2}}`,
		`{"sessions":{"maxSteps":5,"maxLine":65536},"tools":{"bashTimeout":"10s","maxOutput":100}}`,
		`{"skills":{"mode":"nope"}}`,
		`{"skills":{"watch":{"pollInterval":5}}}`,
		`{"workDir":"."} {"again":1}`,
		`{"unknown":true}`,
		`[1,2]`,
		`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"true","async":true,"once":true,"shell":"bash","statusMessage":"s","newer":1}]}],"Notification":[]}}`,
		`{"hooks":{"Stop":[{"hooks":[{"type":"agent","model":"m"},{"type":"command","if":"Bash(x)"}]}]}}`,
		`{"hooks":"missing/hooks/hooks.json"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := assembly.ParseConfig("f.json", data)
		if err != nil {
			if !errors.Is(err, assembly.ErrConfig) || !strings.HasPrefix(err.Error(), "invalid config: f.json: ") {
				t.Fatalf("error %q is not an ErrConfig naming the file", err)
			}
			return
		}
		b, err := json.Marshal(cfg)
		if err != nil {
			t.Fatalf("an accepted config does not encode: %v", err)
		}
		again, err := assembly.ParseConfig("again.json", b)
		if err != nil {
			t.Fatalf("an accepted config, encoded, is refused: %v\n%s", err, b)
		}
		// Compared as encoded: what ParseConfig keeps beside the config to
		// warn about (the hooks' unknown fields) is not part of it.
		b2, err := json.Marshal(again)
		if err != nil {
			t.Fatalf("a decoded config does not encode: %v", err)
		}
		if !bytes.Equal(b, b2) || !reflect.DeepEqual(cfg.Hooks, again.Hooks) {
			t.Fatalf("round trip changed the config:\n%+v\n%+v", cfg, again)
		}
	})
}
