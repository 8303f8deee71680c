package unit_test

// C4 soak: random create / rename / delete / edit over 200 skills, plus
// deleting and recreating the whole root, while several goroutines take
// snapshots through a kernel with the real file watcher. Bounded in time
// (a few seconds of churn, a 15 s convergence deadline). Under load it once
// found a complete catalog stale for good: a new bundle was reported before
// its SKILL.md was watched (held deterministically by watch's
// TestNewEntryIsReportedOnlyOnceWatched).

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/helios-agents/helios/assembly"
	"github.com/helios-agents/helios/kernel/skills"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// soakDisk mirrors what the mutator has put on disk.
type soakDisk struct {
	root string
	mu   sync.Mutex
	// skills maps name -> description (the folder is the name).
	skills map[string]string
	// emptied counts the times the mutator started to empty the disk (it is
	// bumped before the files go). Until it first moves, a complete empty
	// catalog can only be an incomplete observation passed off as an
	// authoritative empty list.
	emptied atomic.Int64
}

func (d *soakDisk) write(t *testing.T, name, desc, body string) {
	p := filepath.Join(d.root, name, "SKILL.md")
	if !assert.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755)) {
		return
	}
	assert.NoError(t, os.WriteFile(p, []byte(skillMD("name: "+name+"\ndescription: "+desc, body)), 0o644))
}

func (d *soakDisk) set(name, desc string) {
	if desc == "" {
		delete(d.skills, name)
	} else {
		d.skills[name] = desc
	}
}

// step applies one random change to the disk.
func (d *soakDisk) step(t *testing.T, r *rand.Rand, n int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	names := make([]string, 0, len(d.skills))
	for k := range d.skills {
		names = append(names, k)
	}
	pick := func() string { return names[r.IntN(len(names))] }
	switch op := r.IntN(1000); {
	case op < 2: // delete the whole root, then bring many skills back at once
		d.emptied.Add(1)
		assert.NoError(t, os.RemoveAll(d.root))
		for _, k := range names {
			d.set(k, "")
		}
		for i := range 100 {
			name := fmt.Sprintf("s%03d", r.IntN(n))
			desc := fmt.Sprintf("Reborn %d.", i)
			d.write(t, name, desc, "body")
			d.set(name, desc)
		}
	case op < 300 || len(names) == 0: // create (or overwrite)
		name := fmt.Sprintf("s%03d", r.IntN(n))
		desc := fmt.Sprintf("Skill %s, version %d.", name, r.IntN(1000))
		d.write(t, name, desc, "body")
		d.set(name, desc)
	case op < 480: // delete
		name := pick()
		if len(names) == 1 {
			d.emptied.Add(1)
		}
		assert.NoError(t, os.RemoveAll(filepath.Join(d.root, name)))
		d.set(name, "")
	case op < 650: // rename the folder (and its frontmatter name, as a person would)
		from := pick()
		to := fmt.Sprintf("s%03d", r.IntN(n))
		if _, taken := d.skills[to]; taken || from == to {
			return
		}
		if !assert.NoError(t, os.Rename(filepath.Join(d.root, from), filepath.Join(d.root, to))) {
			return
		}
		desc := d.skills[from]
		d.set(from, "")
		d.write(t, to, desc, "renamed body")
		d.set(to, desc)
	case op < 850: // edit the description
		name := pick()
		desc := fmt.Sprintf("Edited %s %d.", name, r.IntN(1000))
		d.write(t, name, desc, "body")
		d.set(name, desc)
	default: // edit the body only
		name := pick()
		d.write(t, name, d.skills[name], fmt.Sprintf("body %d", r.IntN(1000)))
	}
}

func (d *soakDisk) want() map[string]string {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make(map[string]string, len(d.skills))
	for k, v := range d.skills {
		out[k] = v
	}
	return out
}

func soakGot(c skills.Catalog) map[string]string {
	out := map[string]string{}
	for _, s := range c.Skills {
		out[s.Name] = s.Description
	}
	return out
}

func TestSoakLiveCatalog(t *testing.T) {
	if testing.Short() {
		t.Skip("soak test skipped in -short mode")
	}
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx := context.Background()
	work := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	disk := &soakDisk{root: filepath.Join(work, ".helios", "skills"), skills: map[string]string{}}
	const n = 200
	for i := range n {
		name := fmt.Sprintf("s%03d", i)
		disk.write(t, name, "Initial "+name+".", "body")
		disk.set(name, "Initial "+name+".")
	}
	cfg := filepath.Join(work, "helios.config.json")
	writeFile(t, cfg, `{"workDir": ".", "skills": {"userRoots": [], "watch": {"mode": "native"}}}`)
	k, err := assembly.Load(ctx, cfg, assembly.Options{Watch: true})
	require.NoError(t, err)
	closed := false
	defer func() { // before the leak check, also when the test failed
		if !closed {
			_ = k.Close()
		}
	}()

	// Snapshotters: every complete catalog must be well formed, and may be
	// empty only if the disk really was empty while it was taken.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var snaps, incomplete atomic.Int64
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				c := k.Catalog(ctx)
				snaps.Add(1)
				if !c.Complete {
					incomplete.Add(1)
					continue
				}
				seen := map[string]bool{}
				for _, s := range c.Skills {
					assert.False(t, seen[s.Name], "duplicate catalog entry %+v", s)
					assert.NotEmpty(t, s.Description, "catalog entry without a description %+v", s)
					seen[s.Name] = true
				}
				if len(c.Skills) == 0 {
					assert.NotZero(t, disk.emptied.Load(), "a complete empty catalog was served although the disk never was empty")
				}
			}
		}()
	}

	r := rand.New(rand.NewPCG(1, 2))
	deadline := time.Now().Add(4 * time.Second)
	ops := 0
	for time.Now().Before(deadline) {
		disk.step(t, r, n)
		ops++
		if ops%20 == 0 {
			time.Sleep(time.Millisecond) // let events interleave with snapshots
		}
	}
	close(stop)
	wg.Wait()

	// Quiescence: the catalog converges to the disk, complete.
	want := disk.want()
	changed := make(chan struct{}, 1)
	cancel := k.Skills().OnChange(func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	timeout := time.After(15 * time.Second)
	for {
		c := k.Catalog(ctx)
		if c.Complete && fmt.Sprint(soakGot(c)) == fmt.Sprint(want) {
			break
		}
		select {
		case <-changed:
		case <-time.After(200 * time.Millisecond): // also re-check: a retry may be due without a signal
		case <-timeout:
			got := soakGot(c)
			t.Fatalf("catalog did not converge to the disk: complete=%v, %d skills vs %d on disk (first diff: %s)", c.Complete, len(got), len(want), soakFirstDiff(want, got))
		}
	}
	cancel()
	t.Logf("%d operations, %d snapshots (%d incomplete), %d skills at the end", ops, snaps.Load(), incomplete.Load(), len(want))
	closed = true
	require.NoError(t, k.Close())
}

func soakFirstDiff(want, got map[string]string) string {
	for k, v := range want {
		if got[k] != v {
			return fmt.Sprintf("%s: disk %q, catalog %q", k, v, got[k])
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			return fmt.Sprintf("%s: not on disk, catalog %q", k, v)
		}
	}
	return "none"
}
