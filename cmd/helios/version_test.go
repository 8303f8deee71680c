package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func vcs(rev, at, modified string) []debug.BuildSetting {
	s := []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}}
	if at != "" {
		s = append(s, debug.BuildSetting{Key: "vcs.time", Value: at})
	}
	return append(s, debug.BuildSetting{Key: "vcs.modified", Value: modified})
}

// The version comes from the build: the module version, else the VCS
// revision with +dirty for uncommitted changes, else "(devel)".
func TestVersionOf(t *testing.T) {
	const rev = "8773d6bcbb65c6856ae3f6987553c8398036f267"
	for _, c := range []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"released", debug.BuildInfo{Main: debug.Module{Path: heliosModule, Version: "v1.4.2"}}, "v1.4.2"},
		{"stamped by go", debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261201220137-8773d6bcbb65+dirty"}, Settings: vcs(rev, "2026-12-01T22:01:37Z", "true")}, "v0.0.0-20261201220137-8773d6bcbb65+dirty"},
		{"vcs, clean", debug.BuildInfo{Main: debug.Module{Version: devel}, Settings: vcs(rev, "2026-12-01T22:01:37Z", "false")}, "v0.0.0-20261201220137-8773d6bcbb65"},
		{"vcs, dirty", debug.BuildInfo{Main: debug.Module{Version: devel}, Settings: vcs(rev, "2026-12-01T22:01:37Z", "true")}, "v0.0.0-20261201220137-8773d6bcbb65+dirty"},
		{"vcs without time", debug.BuildInfo{Main: debug.Module{Version: devel}, Settings: vcs(rev, "", "true")}, "(devel)-8773d6bcbb65+dirty"},
		{"nothing", debug.BuildInfo{Main: debug.Module{Version: devel}}, "(devel)"},
	} {
		assert.Equal(t, c.want, versionOf(&c.bi), c.name)
	}
}

// What go.mod requires: the flag, the replace, a released or embedded
// Helios's version, else the checkout found (never a local pseudo-version
// the proxy cannot have); nothing found is a usage error saying what to
// pass.
func TestHeliosRequirement(t *testing.T) {
	checkout := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(checkout, "go.mod"), []byte("// Helios\nmodule   \"github.com/helios-agents/helios\" // the kernel\n\ngo 1.26\n"), 0o644))
	other := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(other, "go.mod"), []byte("module github.com/helios-agents/helios-fork\n"), 0o644))
	src := &debug.BuildInfo{Main: debug.Module{Path: heliosModule, Version: "v0.0.0-20261201220137-8773d6bcbb65+dirty"}, Settings: vcs("8773d6bcbb65", "", "true")}
	for _, c := range []struct {
		name            string
		bi              *debug.BuildInfo
		flag, replace   string
		places          []string
		version, folder string
	}{
		{"flag", src, "v1.0.0", "", []string{checkout}, "v1.0.0", ""},
		{"replace", src, "", "/x/helios", []string{checkout}, placeholderVersion, "/x/helios"},
		{"released", &debug.BuildInfo{Main: debug.Module{Path: heliosModule, Version: "v1.4.2"}}, "", "", []string{checkout}, "v1.4.2", ""},
		{"embedded", &debug.BuildInfo{Main: debug.Module{Path: "example.com/app", Version: devel}, Deps: []*debug.Module{{Path: heliosModule, Version: "v1.3.0"}}}, "", "", []string{checkout}, "v1.3.0", ""},
		{"embedded, replaced by a folder", &debug.BuildInfo{Main: debug.Module{Path: "example.com/app"}, Deps: []*debug.Module{{Path: heliosModule, Version: "v1.3.0", Replace: &debug.Module{Path: "/src/helios"}}}}, "", "", nil, placeholderVersion, "/src/helios"},
		{"source build: the checkout", src, "", "", []string{other, t.TempDir(), checkout}, placeholderVersion, checkout},
		{"source build, no checkout: go's stamp", src, "", "", []string{other}, "v0.0.0-20261201220137-8773d6bcbb65", ""},
	} {
		v, dir, err := heliosRequirement(c.bi, c.flag, c.replace, c.places)
		require.NoError(t, err, c.name)
		assert.Equal(t, c.version, v, c.name)
		assert.Equal(t, c.folder, dir, c.name)
	}
	_, _, err := heliosRequirement(&debug.BuildInfo{Main: debug.Module{Path: heliosModule, Version: devel}}, "", "", []string{other})
	var ue usageError
	require.ErrorAs(t, err, &ue)
	assert.Contains(t, err.Error(), "--replace")
	assert.Contains(t, err.Error(), "--helios-version")

	// The places a built helios looks: first the checkout it was compiled
	// from, which is this one.
	wd, err := os.Getwd()
	require.NoError(t, err)
	assert.Equal(t, filepath.Dir(filepath.Dir(wd)), checkoutCandidates()[0])
}

// A checkout anywhere makes a go.mod the go command reads back: a path with
// spaces, quotes or brackets is quoted.
func TestModPathQuotesWhatGoModNeeds(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command")
	}
	for _, p := range []string{"/src/helios", "/home/me/My Projects/helios (v2)", `/tmp/a"b`, "/tmp/x//y", "/tmp/tab\there", "/tmp/données/技能"} {
		dir := t.TempDir()
		mod := "module example.com/p\n\ngo 1.26\n\nrequire github.com/helios-agents/helios " + placeholderVersion + "\n\nreplace github.com/helios-agents/helios => " + modPath(p) + "\n"
		require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644))
		cmd := exec.Command("go", "mod", "edit", "-json")
		cmd.Dir = dir
		out, err := cmd.Output()
		require.NoError(t, err, "%s:\n%s", p, mod)
		var got struct {
			Replace []struct{ New struct{ Path string } }
		}
		require.NoError(t, json.Unmarshal(out, &got))
		require.Len(t, got.Replace, 1)
		assert.Equal(t, p, got.Replace[0].New.Path)
	}
}
