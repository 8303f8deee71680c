package mcpclient

import (
	"errors"
	"fmt"
	"github.com/helios-agents/helios/runpin"
	"log/slog"
	"net/url"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/helios-agents/helios/kernel/telemetry"
)

// Defaults of the zero values of ServerConfig and Config.
const (
	// DefaultTimeout bounds each call to a server (a tool call, a skill
	// listing or load).
	DefaultTimeout = 60 * time.Second
	// DefaultStartTimeout bounds a start: the process or the connection, and
	// the protocol's handshake and first tool listing.
	DefaultStartTimeout = 30 * time.Second
	// DefaultRestartBackoff is the wait before the first restart of a server
	// that failed; it doubles with each failure in a row up to
	// MaxRestartBackoff.
	DefaultRestartBackoff = time.Second
	// MaxRestartBackoff caps the doubling backoff.
	MaxRestartBackoff = time.Minute
	// DefaultMaxOutput is how many bytes of a tool result the model gets.
	DefaultMaxOutput = 30000
	// MaxMessage bounds one message read from a server: a line of the stdio
	// transport, an HTTP body or server-sent event. A larger answer is an
	// error result naming the server and the limit.
	MaxMessage = 16 << 20
)

// The limits of a skill served over the Agent Skills extension (SEP-2640):
// what every conforming host accepts. A skill past them is skipped with a
// warning.
const (
	MaxSkillFiles = 512
	MaxSkillBytes = 16 << 20
)

// ValidServerName reports whether name can name a server: it becomes part
// of every tool name (mcp__<server>__<tool>) and of the skills source label
// (mcp:<server>), so it is 1 to MaxServerName (56) letters, digits, _ or
// -: mcp__<server>__ and a character of a tool fit in a tool name's 64.
func ValidServerName(name string) bool { return serverNameRE().MatchString(name) }

// serverNameRE is compiled on first use: only a config with MCP servers
// needs it.
var serverNameRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[a-zA-Z0-9_-]{1,` + strconv.Itoa(MaxServerName) + `}$`)
})

// ServerConfig is one server. Exactly one of Command and URL is set.
type ServerConfig struct {
	// Name names the server in tool names, the skills source and every
	// warning. It must pass ValidServerName.
	Name string
	// Disabled keeps the server off: it is listed, never started.
	Disabled bool
	// DisabledReason says why a disabled server is off (a variable it
	// needs is unset); Status reports it as Err. Empty: configured off.
	DisabledReason string

	// Command is the executable of a stdio server: a path, or a name looked
	// up on PATH.
	Command string
	// Args are its arguments.
	Args []string
	// Env is the process's whole environment ("NAME=value"); nothing else
	// of the kernel's is passed. The assembly gives it the allowlisted
	// environment of the model's commands plus the server's own env.
	Env []string
	// Dir is the process's working directory. Empty: the kernel's.
	Dir string

	// URL is the endpoint of a streamable HTTP server (http or https).
	URL string
	// SSE says URL speaks the HTTP+SSE transport of protocol 2024-11-05
	// (an event stream the server posts its endpoint on) rather than
	// streamable HTTP. Claude Code's and Cursor's "type": "sse".
	SSE bool
	// Headers are sent with every request ("Name" → value).
	Headers map[string]string
	// BearerToken, when set, is sent as "Authorization: Bearer <token>".
	BearerToken string

	// Timeout bounds each call; 0 means DefaultTimeout.
	Timeout time.Duration
	// StartTimeout bounds each start; 0 means DefaultStartTimeout.
	StartTimeout time.Duration
}

// Config is what every server of a kernel shares.
type Config struct {
	// Servers in the order their tools and skills come; names are unique.
	Servers []ServerConfig
	// WorkDir is offered to servers as their root (MCP roots); empty offers
	// none.
	WorkDir string
	// MaxOutput is how many bytes of a tool's result the model gets; 0
	// means DefaultMaxOutput.
	MaxOutput int
	// RestartBackoff is the wait before the first restart; 0 means
	// DefaultRestartBackoff.
	RestartBackoff time.Duration
	// SkillDir is where the files of loaded skills are written, one folder
	// per server and skill. Empty: a temporary folder, removed on Close.
	SkillDir string
	// Logger receives the warnings (a server down, a tool name collision,
	// a skill skipped) and each server's stderr, with an "mcp.server"
	// attribute. Nil discards.
	Logger *slog.Logger
	// Telemetry gives each tool call's span the server's name and sends
	// its trace context to the server. Nil records nothing.
	Telemetry *telemetry.T
	// Version is the client's version told to servers. Empty: "dev".
	Version string
	// Pins are the digests of the files the stdio servers run that lie
	// where the model can write (ServerConfig.Files lists them). Before
	// each start they are hashed again: a server whose executable or
	// script changed, vanished or was never recorded is disabled, with one
	// warning naming the file. Nil checks nothing.
	Pins *runpin.Pins
}

// Files returns the files a stdio server runs, absolute: its command when
// it is a path, and the script an interpreter runs (python3 server.py),
// a relative one resolved against Dir. An HTTP server runs none.
func (c ServerConfig) Files() []string {
	if c.Command == "" {
		return nil
	}
	return runpin.Argv(append([]string{c.Command}, c.Args...), c.Dir)
}

// ErrConfig is wrapped by every configuration error of Start.
var ErrConfig = errors.New("invalid mcp server config")

// Check says what is wrong with one server's config: the name, the
// transport (exactly one of Command and URL), the URL, negative durations.
func (c ServerConfig) Check() error {
	var errs []error
	if !ValidServerName(c.Name) {
		errs = append(errs, fmt.Errorf("name %q: want 1 to %d letters, digits, _ or - (it becomes part of tool names, at most 64 characters)", c.Name, MaxServerName))
	}
	switch {
	case c.Command != "" && c.URL != "":
		errs = append(errs, errors.New("both command and url: a server is either a command (stdio) or a url (streamable HTTP)"))
	case c.Command == "" && c.URL == "":
		errs = append(errs, errors.New("neither command nor url"))
	case c.URL != "" && !c.Disabled: // a disabled server's URL may hold a ${NAME} never expanded
		if err := CheckURL(c.URL); err != nil {
			errs = append(errs, err)
		}
	}
	if c.Timeout < 0 || c.StartTimeout < 0 {
		errs = append(errs, fmt.Errorf("negative timeout (%v) or startTimeout (%v)", c.Timeout, c.StartTimeout))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("%w %q: %w", ErrConfig, c.Name, err)
	}
	return nil
}

// CheckURL says why u cannot be a streamable HTTP endpoint.
func CheckURL(u string) error {
	p, err := url.Parse(u)
	switch {
	case err != nil:
		return fmt.Errorf("url %q: %w", u, err)
	case p.Scheme != "http" && p.Scheme != "https":
		return fmt.Errorf("url %q: want an http or https URL", u)
	case p.Host == "":
		return fmt.Errorf("url %q: no host", u)
	}
	return nil
}

func (c ServerConfig) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

func (c ServerConfig) startTimeout() time.Duration {
	if c.StartTimeout > 0 {
		return c.StartTimeout
	}
	return DefaultStartTimeout
}

// transport names the server's transport: "stdio", "http" or "sse".
func (c ServerConfig) transport() string {
	if c.URL != "" && c.SSE {
		return "sse"
	}
	if c.URL != "" {
		return "http"
	}
	return "stdio"
}
