package trust_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/helios-agents/helios/cmd/helios/internal/trust"
)

// trustConfig is a config that parses and names something to apply.
const trustConfig = `{"skills": {"userRoots": []}, "model": {"name": "trusted-model"}}`

// realDir is a temp dir with its symlinks resolved.
func realDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	return d
}

// workWithConfig is a work dir holding helios.config.json with content.
func workWithConfig(t *testing.T, content string) string {
	t.Helper()
	work := realDir(t)
	require.NoError(t, os.WriteFile(filepath.Join(work, "helios.config.json"), []byte(content), 0o644))
	return work
}

// applied reads work's config through store and says whether it was
// applied, with the notices.
func applied(t *testing.T, work string, store *trust.Store) (bool, string) {
	t.Helper()
	got, err := trust.ReadWorkDir(work, store)
	require.NoError(t, err)
	if got.Path != "" {
		assert.Equal(t, "trusted-model", got.Config.Model.Name, "the applied config is not the file's")
		assert.Empty(t, got.Ignored)
	} else {
		assert.NotEmpty(t, got.Ignored)
	}
	return got.Path != "", strings.Join(got.Notices, "\n")
}

// Protects (C18): trust names exactly one content in one folder: the
// trusted file applies; an edit of a single byte anywhere (even trailing
// whitespace) makes it untrusted again, saying it changed; the same
// content in another folder is not trusted; trusting again applies.
func TestTrustIsContentInItsFolder(t *testing.T) {
	store := trust.NewStore(filepath.Join(realDir(t), "trust.json"))
	work := workWithConfig(t, trustConfig)
	ok, notice := applied(t, work, store)
	assert.False(t, ok)
	assert.Contains(t, notice, "it is not trusted yet")
	assert.Contains(t, notice, "helios trust "+work)

	_, err := store.Trust(filepath.Join(work, "helios.config.json"))
	require.NoError(t, err)
	ok, notice = applied(t, work, store)
	assert.True(t, ok)
	assert.Empty(t, notice)

	for _, edit := range []string{trustConfig + "\n", trustConfig + " ", " " + trustConfig, strings.Replace(trustConfig, "trusted-model", "trusted-modem", 1)} {
		require.NoError(t, os.WriteFile(filepath.Join(work, "helios.config.json"), []byte(edit), 0o644))
		ok, notice = applied(t, work, store)
		assert.False(t, ok, "an edited config was applied: %q", edit)
		assert.Contains(t, notice, "it changed since you trusted it")
	}
	require.NoError(t, os.WriteFile(filepath.Join(work, "helios.config.json"), []byte(trustConfig), 0o644))
	ok, _ = applied(t, work, store)
	assert.True(t, ok, "the trusted content, restored, is trusted again")

	other := workWithConfig(t, trustConfig)
	ok, notice = applied(t, other, store)
	assert.False(t, ok, "the same content in another folder was trusted")
	assert.Contains(t, notice, "it is not trusted yet")
}

// Protects (C18): a work dir reached through a symlink is the same
// folder: trusted through one name, applied through the other, and the
// store names the resolved folder.
func TestTrustThroughLinkedWorkDir(t *testing.T) {
	store := trust.NewStore(filepath.Join(realDir(t), "trust.json"))
	work := workWithConfig(t, trustConfig)
	link := filepath.Join(realDir(t), "link")
	require.NoError(t, os.Symlink(work, link))

	e, err := store.Trust(filepath.Join(link, "helios.config.json"))
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(work, "helios.config.json"), e.Config)
	for _, dir := range []string{work, link} {
		ok, notice := applied(t, dir, store)
		assert.True(t, ok, "%s: %s", dir, notice)
	}
	revoked, err := store.Revoke(filepath.Join(work, "helios.config.json"))
	require.NoError(t, err)
	assert.True(t, revoked)
	ok, _ := applied(t, link, store)
	assert.False(t, ok)
}

// Protects (C18): a config that is itself a symlink is trusted as the
// work dir's config, by the content it shows: the target's content
// changing makes it untrusted, and another work dir whose config links
// to the same target is not trusted by it.
func TestTrustConfigThatIsALink(t *testing.T) {
	store := trust.NewStore(filepath.Join(realDir(t), "trust.json"))
	shared := filepath.Join(realDir(t), "shared.json")
	require.NoError(t, os.WriteFile(shared, []byte(trustConfig), 0o644))
	work, other := realDir(t), realDir(t)
	for _, d := range []string{work, other} {
		require.NoError(t, os.Symlink(shared, filepath.Join(d, "helios.config.json")))
	}
	e, err := store.Trust(filepath.Join(work, "helios.config.json"))
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(work, "helios.config.json"), e.Config, "the entry names the work dir's config, not its target")
	ok, _ := applied(t, work, store)
	assert.True(t, ok)
	ok, _ = applied(t, other, store)
	assert.False(t, ok, "a link to the trusted target in another folder was trusted")

	require.NoError(t, os.WriteFile(shared, []byte(trustConfig+"\n"), 0o644))
	ok, notice := applied(t, work, store)
	assert.False(t, ok, "the link's target changed and stayed trusted")
	assert.Contains(t, notice, "it changed since you trusted it")
}

// Protects (C18): ~/.helios may be a symlink (dotfiles kept elsewhere):
// the default store lives through it, trusting keeps the link a link, and
// what was trusted is applied.
func TestTrustStoreInLinkedStateDir(t *testing.T) {
	home, elsewhere := realDir(t), realDir(t)
	require.NoError(t, os.Symlink(elsewhere, filepath.Join(home, ".helios")))
	t.Setenv("HOME", home)
	store, err := trust.DefaultStore()
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(home, ".helios", trust.FileName), store.Path())

	work := workWithConfig(t, trustConfig)
	_, err = store.Trust(filepath.Join(work, "helios.config.json"))
	require.NoError(t, err)
	fi, err := os.Lstat(filepath.Join(home, ".helios"))
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&os.ModeSymlink, "~/.helios is no longer a link")
	assert.FileExists(t, filepath.Join(elsewhere, trust.FileName))
	ok, notice := applied(t, work, store)
	assert.True(t, ok, notice)
}

// Protects (C18): a corrupted store trusts nothing: a config it names
// is ignored, and the notice names the store.
func TestTrustCorruptedStoreTrustsNothing(t *testing.T) {
	path := filepath.Join(realDir(t), "trust.json")
	store := trust.NewStore(path)
	work := workWithConfig(t, trustConfig)
	_, err := store.Trust(filepath.Join(work, "helios.config.json"))
	require.NoError(t, err)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data[:len(data)-4], 0o600))
	got, err := trust.ReadWorkDir(work, store)
	require.NoError(t, err)
	assert.Empty(t, got.Path, "a corrupted store trusted a config")
	assert.Contains(t, strings.Join(got.Notices, "\n"), "trust store unreadable: "+path)
	_, err = store.Check(filepath.Join(work, "helios.config.json"), []byte(trustConfig))
	assert.ErrorIs(t, err, trust.ErrStore)
}

// Protects (C19): a folder's name is data wherever the notice puts it:
// the ignored file's path reaches the terminal with its control and
// invisible characters escaped, and the command that trusts it, pasted
// into a shell, names exactly that folder (quotes, spaces, $(...),
// controls).
func TestTrustNoticeEscapesNames(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is needed to read the command back")
	}
	store := trust.NewStore(filepath.Join(realDir(t), "trust.json"))
	for _, name := range []string{"with space", "it's", "esc\x1b[31mred", "bidi\u202eevil", "tab\there", "$(touch pwned)", "naïve 技能"} {
		dir := filepath.Join(realDir(t), name)
		require.NoError(t, os.Mkdir(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "helios.config.json"), []byte(trustConfig), 0o644))
		got, err := trust.ReadWorkDir(dir, store)
		require.NoError(t, err)
		require.Len(t, got.Notices, 1)
		for _, r := range got.Notices[0] {
			assert.False(t, unicode.IsControl(r) || unicode.Is(unicode.Cf, r), "%q: %U reaches the terminal raw", name, r)
		}
		cmd := trust.Command(filepath.Join(dir, "helios.config.json"))
		assert.Contains(t, got.Notices[0], cmd)
		quoted, ok := strings.CutPrefix(cmd, "helios trust ")
		require.True(t, ok, cmd)
		out, err := exec.Command(bash, "-c", "printf %s "+quoted).Output()
		require.NoError(t, err, quoted)
		assert.Equal(t, dir, string(out), "the command's folder, as bash reads it")
	}
}
