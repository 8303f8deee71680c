package assembly

import (
	"io"
	"log/slog"
	"path/filepath"

	"github.com/helios-agents/helios/caps/cmdhooks"
	"github.com/helios-agents/helios/caps/cmdhooks/transcript"
	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/session"
)

// closingStore is the kernel's session store, which the kernel closes.
type closingStore interface {
	session.Store
	io.Closer
}

// transcripts gives, when the config has hooks, each session a transcript
// in Claude Code's shape for the hooks' "transcript_path": the store
// wrapped, and the function that brings a session's transcript up to date
// and names it. The transcripts are in the sessions folder's
// "transcripts" folder, whatever the store (PostgreSQL's sessions keep
// theirs there too). Without hooks the store is as it is.
func (a *assembler) transcripts(store *lazyStore, workDir string) (closingStore, func(string) string, error) {
	if !cmdhooks.Configured(a.cfg.Hooks) {
		return store, nil, nil
	}
	dir, err := sessionsDir(a.cfg.Sessions, a.base)
	if err != nil {
		return nil, nil, err
	}
	ts := transcript.New(store, transcript.Config{Dir: filepath.Join(dir, "transcripts"), WorkDir: workDir, Secrets: a.opts.Secrets})
	return ts, func(id string) string {
		p, err := ts.Path(id)
		if err != nil {
			w := contract.Warning{Source: "hooks", Path: "transcript_path", Message: err.Error()}
			if a.opts.Logger != nil {
				a.opts.Logger.Warn("hooks", slog.String("key", w.Path), slog.String("message", w.Message))
			}
			if a.opts.OnWarning != nil {
				a.opts.OnWarning(w)
			}
		}
		return p
	}, nil
}
