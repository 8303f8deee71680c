package assembly

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/kernel/model/openai"
	"github.com/helios-agents/helios/kernel/session"
	kskills "github.com/helios-agents/helios/kernel/skills"
	"github.com/helios-agents/helios/kernel/tools"
	"github.com/helios-agents/helios/kernel/watch"
)

// DefaultAPIKeyEnv is the variable read for the API key unless
// model.apiKeyEnv names another.
const DefaultAPIKeyEnv = "HELIOS_API_KEY"

// ErrNoAPIKey is wrapped when the configured key variable is empty.
var ErrNoAPIKey = errors.New("no API key")

// openModel builds the model from the "model" key. A missing model is not
// an assembly error (skills and hooks commands need none); it is returned as
// the reason sessions cannot start.
func openModel(cfg ModelConfig) (model.Model, error) {
	switch {
	case cfg.BaseURL == "" && cfg.Name == "":
		return nil, errors.New(`no model configured: set "model": {"baseURL": ..., "name": ...} in helios.config.json`)
	case cfg.BaseURL == "":
		return nil, errors.New("no model configured: model.baseURL is missing in helios.config.json")
	case cfg.Name == "":
		return nil, errors.New("no model configured: model.name is missing in helios.config.json")
	}
	keyEnv := DefaultAPIKeyEnv
	if cfg.APIKeyEnv != nil {
		keyEnv = *cfg.APIKeyEnv
	}
	var key string
	if keyEnv != "" {
		if key = os.Getenv(keyEnv); key == "" {
			return nil, fmt.Errorf("%w: set the environment variable %s to the key for %s (or set model.apiKeyEnv to \"\" for a server that needs none)", ErrNoAPIKey, keyEnv, cfg.BaseURL)
		}
	}
	return openai.New(openai.Config{
		BaseURL:     cfg.BaseURL,
		APIKey:      key,
		Model:       cfg.Name,
		MaxRetries:  cfg.MaxRetries,
		Temperature: cfg.Temperature,
		MaxTokens:   cfg.MaxTokens,
	})
}

// lazyStore opens the JSONL store on first use, so commands that never
// open a session do not create the sessions folder.
type lazyStore struct {
	dir     string
	maxLine int
	once    sync.Once
	s       *session.JSONLStore
	err     error
}

var _ session.Store = (*lazyStore)(nil)

func (l *lazyStore) store() (*session.JSONLStore, error) {
	l.once.Do(func() { l.s, l.err = session.NewJSONLStore(session.JSONLConfig{Dir: l.dir, MaxLine: l.maxLine}) })
	return l.s, l.err
}

func (l *lazyStore) Create(ctx context.Context) (session.Log, error) {
	s, err := l.store()
	if err != nil {
		return nil, err
	}
	return s.Create(ctx)
}

func (l *lazyStore) Open(ctx context.Context, id string) (session.Log, error) {
	s, err := l.store()
	if err != nil {
		return nil, err
	}
	return s.Open(ctx, id)
}

func (l *lazyStore) List(ctx context.Context) ([]session.Info, error) {
	if _, err := os.Stat(l.dir); errors.Is(err, os.ErrNotExist) {
		return []session.Info{}, nil
	}
	s, err := l.store()
	if err != nil {
		return nil, err
	}
	return s.List(ctx)
}

// Read reads a session without locking it (see session.Reader).
func (l *lazyStore) Read(ctx context.Context, id string) ([]session.Event, error) {
	s, err := l.store()
	if err != nil {
		return nil, err
	}
	return s.Read(ctx, id)
}

func (l *lazyStore) Fork(ctx context.Context, id string, at int64) (session.Log, error) {
	s, err := l.store()
	if err != nil {
		return nil, err
	}
	return s.Fork(ctx, id, at)
}

func sessionsDir(cfg SessionsConfig, base string) (string, error) {
	if cfg.Dir != "" {
		d, err := expandHome(cfg.Dir)
		return resolve(base, d), err
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("sessions dir: %w", err)
	}
	return filepath.Join(home, ".helios", "sessions"), nil
}

// toolsCapability offers the builtin tools. It has no description, so it
// is not listed in <extensions>: it is part of the kernel, not installed.
type toolsCapability struct{ set *tools.Set }

func (toolsCapability) Name() string { return "builtin-tools" }

func (c toolsCapability) Tools(context.Context) ([]contract.Tool, error) { return c.set.Tools(), nil }

// newWatcher builds the skills watcher from skills.watch; nil when watching
// is off.
func newWatcher(cfg WatchConfig) (*watch.Watcher, error) {
	var mode watch.Mode
	switch cfg.Mode {
	case "", "native":
		mode = watch.Native
	case "poll":
		mode = watch.Poll
	case "off":
		return nil, nil
	}
	follow := true
	if cfg.FollowSymlinks != nil {
		follow = *cfg.FollowSymlinks
	}
	return watch.New(watch.Config{
		Mode:           mode,
		PollInterval:   time.Duration(cfg.PollInterval),
		WriteStability: time.Duration(cfg.WriteStability),
		FollowSymlinks: follow,
		Capacity:       cfg.ProjectWatchers,
	})
}

// rootWatcher adapts a *watch.Watcher to what skill sources use.
type rootWatcher struct{ w *watch.Watcher }

func (r rootWatcher) WatchRoots(roots []string, onChange func(entries []string, rescan bool)) (kskills.RootWatch, error) {
	return r.w.Watch(roots, func(c watch.Change) { onChange(c.Entries, c.Rescan) })
}
