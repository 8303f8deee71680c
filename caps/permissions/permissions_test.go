package permissions_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/caps/permissions"
	"github.com/helios-agents/helios/kernel/skills"
)

func compile(t *testing.T, cfg permissions.Config) *permissions.Set {
	t.Helper()
	s, err := permissions.Compile([]permissions.Layer{{Source: "/proj/helios.config.json", Config: cfg, Dirs: tableDirs}})
	require.NoError(t, err)
	return s
}

func TestParseRuleErrorsNamePositionAndReason(t *testing.T) {
	for rule, want := range map[string]string{
		"":             "column 1: empty rule",
		"Bash(ls":      "column 5: '(' is never closed",
		"Bash(ls) x":   "column 9",
		"Bash()":       "column 6: empty specifier",
		"Ba sh":        "column 3",
		"(ls)":         "column 1: no tool name",
		"Read(~x/a)":   "column 6: only \"~/\" names a home folder",
		"Read([a)":     "column 6: path pattern",
		"mcp__s__*(x)": "takes no specifier",
	} {
		_, err := permissions.ParseRule(rule)
		if assert.Error(t, err, rule) {
			assert.Contains(t, err.Error(), want, rule)
		}
	}
	r, err := permissions.ParseRule("Bash(npm run test:*)")
	require.NoError(t, err)
	assert.Equal(t, "Bash(npm run test:*)", r.String())
}

func TestCompileJoinsEveryErrorWithJSONPath(t *testing.T) {
	_, err := permissions.Compile([]permissions.Layer{
		{Source: "/p/helios.config.json", Config: permissions.Config{Allow: []string{"Bash(ls:*)", "Bash(ls"}, DefaultMode: "yolo"}},
		{Source: "/home/u/.helios/settings.json", Config: permissions.Config{Deny: []string{"Read()"}}},
	})
	require.Error(t, err)
	msg := err.Error()
	assert.Contains(t, msg, `/p/helios.config.json: permissions.allow[1] "Bash(ls": column 5`)
	assert.Contains(t, msg, `/p/helios.config.json: permissions.defaultMode: "yolo" is not one of`)
	assert.Contains(t, msg, `/home/u/.helios/settings.json: permissions.deny[0] "Read()": column 6`)
}

func TestOrderDenyThenAskThenAllow(t *testing.T) {
	s := compile(t, permissions.Config{
		Allow: []string{"Bash(git:*)"},
		Ask:   []string{"Bash(git push:*)"},
		Deny:  []string{"Bash(git push --force:*)"},
	})
	d := s.Decide(bash("git push --force origin main"), nil)
	assert.Equal(t, permissions.Deny, d.Behavior)
	assert.Equal(t, "deny", d.List)
	assert.Equal(t, "Bash(git push --force:*)", d.Rule)
	assert.Contains(t, d.Reason, "Bash(git push --force:*)")
	assert.Contains(t, d.Reason, "permissions.deny")
	d = s.Decide(bash("git push origin main"), nil)
	assert.Equal(t, permissions.Ask, d.Behavior)
	assert.Equal(t, "ask", d.List)
	d = s.Decide(bash("git status"), nil)
	assert.Equal(t, permissions.Allow, d.Behavior)
	assert.Equal(t, "allow", d.List)
	assert.Equal(t, "Bash(git:*)", d.Rule)
	assert.Equal(t, `allowed by "Bash(git:*)" in permissions.allow of /proj/helios.config.json`, d.Reason)
}

func TestUserLayerAppliesUnderProject(t *testing.T) {
	s, err := permissions.Compile([]permissions.Layer{
		{Source: "project", Config: permissions.Config{Allow: []string{"Bash(rm:*)"}, DefaultMode: permissions.ModeDontAsk}, Dirs: tableDirs},
		{Source: "user", Config: permissions.Config{Deny: []string{"Bash(rm -rf:*)"}, DefaultMode: permissions.ModePlan}, Dirs: tableDirs},
	})
	require.NoError(t, err)
	assert.Equal(t, permissions.ModeDontAsk, s.Mode(), "the project's defaultMode wins")
	d := s.Decide(bash("rm -rf x"), nil)
	assert.Equal(t, permissions.Deny, d.Behavior, "a user deny wins over a project allow")
	assert.Contains(t, d.Reason, "user")
	assert.Equal(t, permissions.Allow, s.Decide(bash("rm x"), nil).Behavior)
}

func TestModes(t *testing.T) {
	read := tool("Read", map[string]string{"path": "a.go"})
	write := tool("Write", map[string]string{"path": "a.go"})
	for _, tc := range []struct {
		mode        permissions.Mode
		read, write permissions.Behavior
		ask         permissions.Behavior
	}{
		{permissions.ModeDefault, permissions.Allow, permissions.Allow, permissions.Ask},
		{permissions.ModeAcceptEdits, permissions.Allow, permissions.Allow, permissions.Ask},
		{permissions.ModePlan, permissions.Allow, permissions.Deny, permissions.Ask},
		{permissions.ModeDontAsk, permissions.Deny, permissions.Deny, permissions.Deny},
	} {
		s := compile(t, permissions.Config{DefaultMode: tc.mode, Ask: []string{"Bash(git push:*)"}})
		assert.Equal(t, tc.read, s.Decide(read, nil).Behavior, tc.mode)
		assert.Equal(t, tc.write, s.Decide(write, nil).Behavior, tc.mode)
		assert.Equal(t, "defaultMode", s.Decide(write, nil).List, tc.mode)
		assert.Equal(t, tc.ask, s.Decide(bash("git push"), nil).Behavior, tc.mode)
	}
	var nilSet *permissions.Set
	d := nilSet.Decide(bash("rm -rf /"), nil)
	assert.Equal(t, permissions.Allow, d.Behavior)
	assert.Equal(t, "defaultMode", d.List)
	assert.Equal(t, permissions.ModeDefault, nilSet.Mode())
}

func rules(t *testing.T, rs ...string) []permissions.Rule {
	t.Helper()
	out := make([]permissions.Rule, len(rs))
	for i, r := range rs {
		var err error
		out[i], err = permissions.ParseRule(r)
		require.NoError(t, err)
	}
	return out
}

func TestPreapprovedNeverPastDeny(t *testing.T) {
	s := compile(t, permissions.Config{
		DefaultMode: permissions.ModeDontAsk,
		Deny:        []string{"Bash(rm:*)"},
		Ask:         []string{"Bash(git push:*)"},
		Allow:       []string{"Bash(ls:*)"},
	})
	pre := rules(t, "Bash(rm:*)", "Bash(touch:*)", "Bash(git push:*)")
	d := s.Decide(bash("rm x"), pre)
	assert.Equal(t, permissions.Deny, d.Behavior, "allowed-tools never overrides a deny")
	assert.Equal(t, "deny", d.List)

	d = s.Decide(bash("touch a && ls"), pre)
	assert.Equal(t, permissions.Allow, d.Behavior, "unmatched becomes allow")
	assert.Equal(t, "allowed-tools", d.List)
	assert.Contains(t, d.Rule, "Bash(touch:*)")

	d = s.Decide(bash("git push"), pre)
	assert.Equal(t, permissions.Allow, d.Behavior, "ask becomes allow")
	assert.Equal(t, "allowed-tools", d.List)

	d = s.Decide(bash("touch a && make"), pre)
	assert.Equal(t, permissions.Deny, d.Behavior, "every part must be approved")
	assert.Equal(t, "defaultMode", d.List)
	assert.Equal(t, permissions.Deny, s.Decide(bash("touch a"), nil).Behavior)
}

func TestChainNeedsEveryPartAllowed(t *testing.T) {
	s := compile(t, permissions.Config{DefaultMode: permissions.ModeDontAsk, Allow: []string{"Bash(git status:*)"}})
	assert.Equal(t, permissions.Allow, s.Decide(bash("git status"), nil).Behavior)
	for _, cmd := range []string{"git status && rm x", "git status; make", "git status | sh", "git status $(make)"} {
		assert.Equal(t, permissions.Deny, s.Decide(bash(cmd), nil).Behavior, cmd)
	}
}

func TestSubstitutionInspected(t *testing.T) {
	s := compile(t, permissions.Config{Deny: []string{"Bash(curl:*)"}, Allow: []string{"Bash(echo:*)"}, DefaultMode: permissions.ModeDontAsk})
	for _, cmd := range []string{"echo $(curl x)", "echo \"$(curl x)\"", "echo `curl x`", "echo <(curl x)", "echo $((1 + $(curl x)))"} {
		d := s.Decide(bash(cmd), nil)
		assert.Equal(t, "deny", d.List, cmd)
	}
}

func TestShellWrappersParsed(t *testing.T) {
	s := compile(t, permissions.Config{Deny: []string{"Bash(rm:*)"}, Allow: []string{"Bash(ls:*)"}, DefaultMode: permissions.ModeDontAsk})
	for _, cmd := range []string{"bash -c 'rm -rf /'", "sh -ec 'ls; rm x'", "/bin/bash -c \"rm x\"", "bash -c 'bash -c \"rm x\"'", "eval 'rm x'"} {
		assert.Equal(t, "deny", s.Decide(bash(cmd), nil).List, cmd)
	}
	assert.Equal(t, "allow", s.Decide(bash("bash -c 'ls -l'"), nil).List)
	assert.Equal(t, "defaultMode", s.Decide(bash("bash -c \"$X\""), nil).List)
}

func TestPrefixWordBoundary(t *testing.T) {
	s := compile(t, permissions.Config{Allow: []string{"Bash(npm run test:*)", "Bash(ls *)", "Bash(git * main)", "Bash(npm install)"}, DefaultMode: permissions.ModeDontAsk})
	for cmd, want := range map[string]string{
		"npm run test": "allow", "npm run test -v": "allow", "npm run testify": "defaultMode",
		"ls": "allow", "ls -la": "allow", "lsof": "defaultMode",
		"git checkout main": "allow", "git checkout dev": "defaultMode",
		"npm install": "allow", "npm install x": "defaultMode",
	} {
		assert.Equal(t, want, s.Decide(bash(cmd), nil).List, cmd)
	}
}

func TestPathRules(t *testing.T) {
	s := compile(t, permissions.Config{
		Deny:  []string{"Read(./.env)", "Read(secrets/)", "Edit(//etc/**)", "Read(~/.ssh/**)", "Edit(*.lock)"},
		Allow: []string{"Edit(/src/**)"}, DefaultMode: permissions.ModeDontAsk,
	})
	for _, tc := range []struct {
		tool, path, list string
	}{
		{"Read", ".env", "deny"},
		{"Read", "sub/../.env", "deny"},          // normalised
		{"Read", "/proj/a/b/../../.env", "deny"}, // absolute, normalised
		{"Read", "sub/.env", "defaultMode"},      // ./ anchors at the config's folder
		{"Read", "a/secrets/key", "deny"},        // a folder covers what it holds
		{"Read", "/home/u/.ssh/id_rsa", "deny"},
		{"Write", "/etc/passwd", "deny"}, // Edit rules cover Write
		{"Edit", "/etc/x/../hosts", "deny"},
		{"Edit", "deep/go.lock", "deny"}, // no slash: any depth
		{"Edit", "src/a/b.go", "allow"},
		{"Write", "src/../other.go", "defaultMode"},
		{"Glob", "secrets/*.txt", "deny"}, // Read rules cover Glob
		{"Grep", "secrets", "deny"},       // and Grep, by its path
		{"Grep", "a/secrets/key", "deny"},
		{"Grep", "/proj/.env", "deny"},
		{"Grep", "src", "defaultMode"},
	} {
		d := s.Decide(tool(tc.tool, map[string]string{"path": tc.path, "pattern": tc.path}), nil)
		assert.Equal(t, tc.list, d.List, "%s %s: %+v", tc.tool, tc.path, d)
	}
}

// Protects: M1153 (Read rules not covering Grep), M1154 (a Grep without a
// path not matched as the work dir). A Grep without a path searches the
// work dir, and is matched as its path; a rule for a folder inside it does
// not stop it (the listing hides the folder instead), and Grep(path) rules
// match Grep's path.
func TestGrepPathRules(t *testing.T) {
	s := compile(t, permissions.Config{Deny: []string{"Read(//proj)", "Grep(vendor/)"}, DefaultMode: permissions.ModeDontAsk})
	for _, tc := range []struct {
		in   map[string]string
		list string
	}{
		{map[string]string{"pattern": "x"}, "deny"},
		{map[string]string{"pattern": "x", "path": "."}, "deny"},
		{map[string]string{"pattern": "x", "path": "vendor/a"}, "deny"},
	} {
		d := s.Decide(tool("Grep", tc.in), nil)
		assert.Equal(t, tc.list, d.List, "%v: %+v", tc.in, d)
	}
	s = compile(t, permissions.Config{Ask: []string{"Read(secrets/)"}, DefaultMode: permissions.ModeDontAsk})
	assert.Equal(t, "defaultMode", s.Decide(tool("Grep", map[string]string{"pattern": "x"}), nil).List)
	assert.Equal(t, "ask", s.Decide(tool("Grep", map[string]string{"pattern": "x", "path": "secrets/a"}), nil).List)
}

func TestPatternDotDotNormalised(t *testing.T) {
	s := compile(t, permissions.Config{Deny: []string{"Read(./x/../.env)"}})
	assert.Equal(t, "deny", s.Decide(tool("Read", map[string]string{"path": ".env"}), nil).List)
}

func TestMCPAndSkillRules(t *testing.T) {
	s := compile(t, permissions.Config{
		Deny:        []string{"mcp__github__delete_repo", "Skill(danger)"},
		Ask:         []string{"mcp__jira"},
		Allow:       []string{"mcp__github__*", "Skill(deploy *)", "skill_search"},
		DefaultMode: permissions.ModeDontAsk,
	})
	for _, tc := range []struct {
		c    permissions.Call
		list string
	}{
		{tool("mcp__github__delete_repo", map[string]any{}), "deny"},
		{tool("mcp__github__list", map[string]any{}), "allow"},
		{tool("mcp__jira__create", map[string]any{}), "ask"},
		{tool("mcp__jiranot__x", map[string]any{}), "defaultMode"},
		{tool("skill", map[string]string{"name": "danger"}), "deny"},
		{tool("skill", map[string]string{"name": "deploy"}), "allow"},
		{tool("skill", map[string]string{"name": "deploy prod"}), "allow"},
		{tool("skill", map[string]string{"name": "other"}), "defaultMode"},
		{tool("skill_search", map[string]string{"query": "x"}), "allow"},
	} {
		assert.Equal(t, tc.list, s.Decide(tc.c, nil).List, "%s %s", tc.c.Tool, tc.c.Input)
	}
}

func TestSkillToolNameIsTheKernels(t *testing.T) {
	r := rules(t, "Skill(x)")[0]
	assert.True(t, r.Matches(tool(skills.SkillToolName, map[string]string{"name": "x"}), tableDirs))
}

func TestMatchesIsAFilterOverTheChain(t *testing.T) {
	r := rules(t, "Bash(git push:*)")[0]
	assert.True(t, r.Matches(bash("git status && git push origin main"), tableDirs))
	assert.True(t, r.Matches(bash("timeout 9 git push"), tableDirs))
	assert.False(t, r.Matches(bash("git pushx"), tableDirs))
	assert.False(t, r.Matches(tool("Read", map[string]string{"path": "x"}), tableDirs))
	e := rules(t, "Edit(//etc/**)")[0]
	assert.True(t, e.Matches(bash("echo x > /etc/hosts"), tableDirs))
	assert.False(t, e.Matches(bash("echo x > /tmp/hosts"), tableDirs))
}

// Huge or deeply nested commands are unmatched, quickly.
func TestBoundedInput(t *testing.T) {
	s := compile(t, permissions.Config{Allow: []string{"Bash(echo:*)"}, Deny: []string{"Bash(rm:*)"}, DefaultMode: permissions.ModeDontAsk})
	for name, cmd := range map[string]string{
		"1 MB":             "echo " + strings.Repeat("a", 1<<20),
		"1000 $( deep":     strings.Repeat("echo $(", 1000) + "x" + strings.Repeat(")", 1000),
		"1000 ( deep":      strings.Repeat("(", 1000) + "echo" + strings.Repeat(")", 1000),
		"1000 bash -c":     strings.Repeat("bash -c ", 1000) + "echo",
		"many commands":    strings.Repeat("echo a; ", 5000),
		"deep backticks":   strings.Repeat("echo \\`", 1000),
		"nested eval echo": strings.Repeat("eval ", 1000) + "echo",
		"closers first":    "echo '" + strings.Repeat(")", 1000) + "' " + strings.Repeat("$(echo ", 1000) + strings.Repeat(")", 1000),
	} {
		start := time.Now()
		d := s.Decide(bash(cmd), nil)
		assert.Less(t, time.Since(start), 2*time.Second, name)
		assert.NotEqual(t, permissions.Allow, d.Behavior, name)
	}
	d := s.Decide(bash("rm "+strings.Repeat("a", 1<<20)), nil)
	assert.Equal(t, "deny", d.List, "the raw text still meets deny rules")
	assert.Equal(t, "Bash(rm:*)", d.Rule)
	assert.Equal(t, "deny", s.Decide(bash("rm x $("), nil).List, "a command that does not parse still meets deny rules")
}

func TestXargsNeedsARuleForItsTail(t *testing.T) {
	s := compile(t, permissions.Config{Allow: []string{"Bash(echo hi)", "Bash(ls:*)"}, Deny: []string{"Bash(rm x)"}, DefaultMode: permissions.ModeDontAsk})
	assert.Equal(t, "allow", s.Decide(bash("echo hi"), nil).List)
	assert.Equal(t, "defaultMode", s.Decide(bash("xargs echo hi"), nil).List, "xargs appends arguments an exact rule never saw")
	assert.Equal(t, "allow", s.Decide(bash("xargs -n 1 ls"), nil).List)
	assert.Equal(t, "deny", s.Decide(bash("xargs rm x"), nil).List, "a deny rule meets the command as written")
}

func TestUnknowableNeedsTheBashRule(t *testing.T) {
	s := compile(t, permissions.Config{Allow: []string{"Bash(eval:*)", "Bash(bash:*)", "Bash(source:*)", "Bash(env:*)"}, DefaultMode: permissions.ModeDontAsk})
	for _, cmd := range []string{`eval "$X"`, `bash -c "$X"`, "source x.sh", ". x.sh", "env -S 'a b'"} {
		assert.Equal(t, "defaultMode", s.Decide(bash(cmd), nil).List, cmd)
	}
	all := compile(t, permissions.Config{Allow: []string{"Bash"}, DefaultMode: permissions.ModeDontAsk})
	assert.Equal(t, "allow", all.Decide(bash(`eval "$X"`), nil).List)
	assert.Equal(t, "allow", all.Decide(bash("ls $("), nil).List)
}

func TestCompileErrorWithoutSource(t *testing.T) {
	_, err := permissions.Compile([]permissions.Layer{{Config: permissions.Config{Ask: []string{"Bash(x"}}}})
	require.Error(t, err)
	assert.Equal(t, `permissions.ask[0] "Bash(x": column 5: '(' is never closed`, err.Error())
}

// Protects: M1035, M1038 (ReadDenied counting other tools' or ask rules). Only a
// deny rule for Read hides a file from Glob: a Read rule naming it or a
// folder holding it, anchored as in Decide; ask and allow rules, and other
// tools' deny rules, hide nothing.
func TestReadDenied(t *testing.T) {
	s := compile(t, permissions.Config{
		Deny:  []string{"Read(./.env)", "Read(secrets/**)", "Edit(//etc/**)"},
		Ask:   []string{"Read(./notes.md)"},
		Allow: []string{"Read"},
	})
	for path, want := range map[string]string{
		tableDirs.Project + "/.env":              "Read(./.env)",
		tableDirs.Project + "/secrets/a/key.pem": "Read(secrets/**)",
		tableDirs.Project + "/sub/../.env":       "Read(./.env)",
		tableDirs.Project + "/sub/.env":          "",
		tableDirs.Project + "/notes.md":          "",
		"/etc/passwd":                            "",
	} {
		rule, denied := s.ReadDenied(path)
		assert.Equal(t, want, rule, path)
		assert.Equal(t, want != "", denied, path)
	}
	all := compile(t, permissions.Config{Deny: []string{"Read"}})
	_, denied := all.ReadDenied("/anything")
	assert.True(t, denied, "a bare Read deny covers every file")
	var nilSet *permissions.Set
	_, denied = nilSet.ReadDenied(tableDirs.Project + "/.env")
	assert.False(t, denied)
}
