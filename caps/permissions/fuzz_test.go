package permissions_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/helios-agents/helios/caps/permissions"
)

// FuzzDecide: any command and any rule decide without panicking, in
// bounded time, and a deny rule for every Bash call always denies.
func FuzzDecide(f *testing.F) {
	for _, tc := range table {
		f.Add(tc.cmd, "Bash(rm:*)")
	}
	f.Add("bash -c 'eval \"$(x)\"' | xargs env -i sudo -u r nice timeout 5", "Bash(* --help)")
	s0, err := permissions.Compile([]permissions.Layer{{Source: "fuzz", Config: tableRules, Dirs: tableDirs}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, cmd, rule string) {
		start := time.Now()
		s0.Decide(bash(cmd), nil)
		if r, err := permissions.ParseRule(rule); err == nil {
			r.Matches(bash(cmd), tableDirs)
			r.Matches(permissions.Call{Tool: "Read", Input: []byte(`{"path":` + quote(cmd) + `}`)}, tableDirs)
			s1, err := permissions.Compile([]permissions.Layer{{Source: "fuzz", Dirs: tableDirs,
				Config: permissions.Config{Deny: []string{"Bash"}, Allow: []string{rule}}}})
			if assert.NoError(t, err) {
				assert.Equal(t, permissions.Deny, s1.Decide(bash(cmd), []permissions.Rule{r}).Behavior)
			}
		}
		assert.Less(t, time.Since(start), 5*time.Second)
	})
}

func quote(s string) string {
	b, _ := jsonMarshal(s)
	return string(b)
}
