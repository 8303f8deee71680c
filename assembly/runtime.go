package assembly

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/kernel/tools"
	"github.com/helios-agents/helios/provider/anthropic"
	"github.com/helios-agents/helios/provider/openai"
	"github.com/helios-agents/helios/store/postgres"
	"github.com/helios-agents/helios/watch"
)

// DefaultAPIKeyEnv is the variable read for the API key unless
// model.apiKeyEnv names another.
const DefaultAPIKeyEnv = "HELIOS_API_KEY"

// ErrNoAPIKey is wrapped when the configured key variable is empty.
var ErrNoAPIKey = errors.New("no API key")

// openModel builds the model from the "model" key. A missing model is not
// an assembly error (skills and hooks commands need none); it is returned as
// the reason sessions cannot start. logger (nil discards) is told about
// retries.
func openModel(cfg ModelConfig, logger *slog.Logger) (model.Model, error) {
	anthropicAPI := cfg.Provider == ProviderAnthropic
	switch {
	case anthropicAPI && cfg.Name == "":
		return nil, errors.New(`no model configured: model.name is missing in helios.config.json (e.g. "claude-sonnet-4-5")`)
	case anthropicAPI:
	case cfg.BaseURL == "" && cfg.Name == "":
		return nil, errors.New(`no model configured: set "model": {"baseURL": ..., "name": ...} in helios.config.json`)
	case cfg.BaseURL == "":
		return nil, errors.New("no model configured: model.baseURL is missing in helios.config.json")
	case cfg.Name == "":
		return nil, errors.New("no model configured: model.name is missing in helios.config.json")
	}
	keyEnv := apiKeyEnv(cfg)
	var key string
	if keyEnv != "" {
		if key = os.Getenv(keyEnv); key == "" {
			where := cfg.BaseURL
			if where == "" {
				where = anthropic.DefaultBaseURL
			}
			return nil, fmt.Errorf("%w: set the environment variable %s to the key for %s (or set model.apiKeyEnv to \"\" for a server that needs none)", ErrNoAPIKey, keyEnv, where)
		}
	}
	maxTokens := 0
	if cfg.MaxTokens != nil {
		maxTokens = *cfg.MaxTokens
	}
	if anthropicAPI {
		c, err := anthropic.New(anthropic.Config{
			BaseURL:     cfg.BaseURL,
			APIKey:      key,
			Model:       cfg.Name,
			MaxRetries:  cfg.MaxRetries,
			Temperature: cfg.Temperature,
			MaxTokens:   maxTokens,
			Logger:      logger,
		})
		if err != nil {
			return nil, err // never a nil *Client inside model.Model
		}
		return c, nil
	}
	c, err := openai.New(openai.Config{
		BaseURL:        cfg.BaseURL,
		APIKey:         key,
		Model:          cfg.Name,
		MaxRetries:     cfg.MaxRetries,
		Temperature:    cfg.Temperature,
		MaxTokens:      maxTokens,
		PromptCacheKey: cfg.PromptCacheKey,
		Logger:         logger,
	})
	if err != nil {
		return nil, err // never a nil *Client inside model.Model
	}
	return c, nil
}

// configSecrets are the secret values the config names: the model's API
// key, the PostgreSQL URL's password, and for each MCP server its bearer
// token, the variables its env and headers take values from, and the
// values of headers whose name says they hold a credential.
func configSecrets(cfg Config) []string {
	var out []string
	if env := apiKeyEnv(cfg.Model); env != "" {
		out = append(out, os.Getenv(env))
	}
	if cfg.Sessions.Store == StorePostgres {
		out = append(out, postgres.Password(os.Getenv(cmp.Or(cfg.Sessions.Postgres.URLEnv, DefaultPostgresURLEnv))))
	}
	for _, s := range mcpEntries(cfg) {
		if s.BearerTokenEnv != "" {
			out = append(out, os.Getenv(s.BearerTokenEnv))
		}
		for _, v := range mcpValues(s.MCPServerConfig) {
			arg := strings.HasPrefix(v.path[0], "args[")
			if v.path[0] != "env" && v.path[0] != "headers" && !arg {
				continue
			}
			for _, m := range varRef().FindAllStringSubmatch(v.value, -1) {
				// An argument's variable is redacted unless it is one every
				// command has (HOME, PATH…): argv is printed (mcp list),
				// logged and stored in errors.
				if arg && plainVar(m[1]) {
					continue
				}
				out = append(out, os.Getenv(m[1]))
			}
			if v.path[0] == "headers" && credentialHeader().MatchString(v.path[1]) && !varRef().MatchString(v.value) {
				out = append(out, strings.TrimSpace(strings.TrimPrefix(v.value, "Bearer ")))
			}
		}
	}
	return out
}

// plainVar says whether name is a variable every command has, no secret:
// the ones the model's commands get by default.
func plainVar(name string) bool {
	switch name {
	case "PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "TMPDIR", "TZ", "PWD":
		return true
	}
	return strings.HasPrefix(name, "LC_")
}

// credentialHeader matches the names of headers that carry a credential.
var credentialHeader = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)auth|token|key|secret|cookie|session`) })

// DefaultPostgresURLEnv is the variable read for the database URL of the
// "postgres" session store unless sessions.postgres.urlEnv names another.
const DefaultPostgresURLEnv = "HELIOS_POSTGRES_URL"

// sessionStore is what the CLI needs of a store: `sessions show` reads a
// session without taking it from the process that runs it.
type sessionStore interface {
	session.Store
	session.Reader
}

// lazyStore opens the session store on first use, so commands that never
// open a session neither create the sessions folder nor connect to a
// database.
type lazyStore struct {
	open func() (sessionStore, error)
	// none says, without opening the store, that it holds no sessions
	// (the JSONL folder does not exist yet); nil means never.
	none func() bool
	once sync.Once
	s    sessionStore
	err  error
}

var (
	_ session.Store  = (*lazyStore)(nil)
	_ session.Reader = (*lazyStore)(nil)
)

// newSessionStore returns the lazily opened store sessions.store names.
func newSessionStore(cfg SessionsConfig, base string) (*lazyStore, error) {
	if cfg.Store == StorePostgres {
		env := cfg.Postgres.URLEnv
		if env == "" {
			env = DefaultPostgresURLEnv
		}
		return &lazyStore{open: func() (sessionStore, error) {
			url := os.Getenv(env)
			if url == "" {
				return nil, fmt.Errorf("sessions.store is \"postgres\": set the environment variable %s to the database URL (or sessions.postgres.urlEnv to the variable that holds it)", env)
			}
			// The pool lives as long as the kernel, not one call's context.
			s, err := postgres.New(context.Background(), postgres.Config{URL: url, URLSource: "$" + env, MaxConns: cfg.Postgres.MaxConns})
			if err != nil {
				return nil, err // never a nil *Store inside the interface
			}
			return s, nil
		}}, nil
	}
	dir, err := sessionsDir(cfg, base)
	if err != nil {
		return nil, err
	}
	return &lazyStore{
		open: func() (sessionStore, error) {
			s, err := session.NewJSONLStore(session.JSONLConfig{Dir: dir, MaxLine: cfg.MaxLine})
			if err != nil {
				return nil, err
			}
			return s, nil
		},
		none: func() bool { _, err := os.Stat(dir); return errors.Is(err, os.ErrNotExist) },
	}, nil
}

func (l *lazyStore) store() (sessionStore, error) {
	l.once.Do(func() { l.s, l.err = l.open() })
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
	if l.none != nil && l.none() {
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

// Close closes the store if it was opened and holds something to close
// (the database pool).
func (l *lazyStore) Close() error {
	l.once.Do(func() { l.err = errors.New("session store closed") })
	if c, ok := l.s.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

func sessionsDir(cfg SessionsConfig, base string) (string, error) {
	if cfg.Dir != "" {
		d, err := expandHome(cfg.Dir)
		if err != nil {
			return "", fmt.Errorf("resolve sessions.dir: %w", err)
		}
		return resolve(base, d), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find sessions dir: %w", err)
	}
	return filepath.Join(home, ".helios", "sessions"), nil
}

// toolsCapability offers the builtin tools. It has no description, so it
// is not listed in <extensions>: it is part of the kernel, not installed.
type toolsCapability struct{ set *tools.Set }

func (toolsCapability) Name() string { return "builtin-tools" }

func (c toolsCapability) Tools(context.Context) ([]contract.Tool, error) { return c.set.Tools(), nil }

// EndSession removes the session's temp dir (contract.SessionEnder).
func (c toolsCapability) EndSession(id string) { c.set.EndSession(id) }

// Close removes every session's temp dir.
func (c toolsCapability) Close() error { return c.set.Close() }

// newWatcher builds the skills watcher from skills.watch; nil when watching
// is off. The installed plugins' skill sources, one set of roots each, are
// watched beside skills.watch.projectWatchers: counted in it, 91 plugins
// would evict one another at every catalog read.
func newWatcher(cfg WatchConfig, pluginSources int) (*watch.Watcher, error) {
	var mode watch.Mode
	switch cfg.Mode {
	case WatchPoll:
		mode = watch.Poll
	case WatchOff:
		return nil, nil
	default:
		mode = watch.Native
	}
	follow := true
	if cfg.FollowSymlinks != nil {
		follow = *cfg.FollowSymlinks
	}
	capacity := cfg.ProjectWatchers
	if capacity == 0 {
		capacity = watch.DefaultCapacity
	}
	return watch.New(watch.Config{
		Mode:           mode,
		PollInterval:   time.Duration(cfg.PollInterval),
		WriteStability: time.Duration(cfg.WriteStability),
		FollowSymlinks: follow,
		Capacity:       capacity + pluginSources,
	})
}
