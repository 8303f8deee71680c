package anthropic

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/kernel/redact"
	"github.com/helios-agents/helios/provider/internal/httpcall"
)

// DefaultBaseURL is Anthropic's API root.
const DefaultBaseURL = "https://api.anthropic.com"

// Config configures a Client. Zero values are documented per field; Model
// is required.
type Config struct {
	// BaseURL is the API root that /v1/messages hangs from. Empty means
	// DefaultBaseURL; set it for a gateway or a proxy.
	BaseURL string
	// APIKey is sent as the x-api-key header. Empty sends none (a gateway
	// that adds its own). It never appears in an error Generate returns or
	// a warning it logs: a server (or proxy) that repeats it in its answer
	// gets it replaced by [REDACTED].
	APIKey string
	// Model is the model name, e.g. "claude-sonnet-4-5". Required.
	Model string
	// MaxTokens is max_tokens, the longest answer. Zero means
	// DefaultMaxTokens(Model); negative is an error.
	MaxTokens int
	// Temperature, when set, is sent as "temperature"; nil leaves the
	// model's default.
	Temperature *float64
	// HTTPClient sends the requests. Nil uses a client without a timeout:
	// answers stream for minutes, so the request's context is the deadline.
	HTTPClient *http.Client
	// MaxRetries is how many times a failed attempt is retried (429, 529,
	// 5xx, connection failures and streams cut before any output). Zero
	// means 3; negative means never retry.
	MaxRetries int
	// Backoff is the wait before retry number attempt (1, 2, ...) when the
	// server sends no Retry-After. Nil means exponential from 500ms with
	// jitter, capped at 10s.
	Backoff func(attempt int) time.Duration
	// Logger receives retries (Warn) and request summaries (Debug). Nil
	// discards.
	Logger *slog.Logger
}

// DefaultMaxTokens is the max_tokens sent when Config.MaxTokens is zero: a
// coding agent writes whole files in one tool call, so as much as every
// model of the family allows — 4096 for the Claude 3 models, 8192 for
// Claude 3.5, 32000 for Claude 3.7 and later — and 8192 for a name that is
// not Claude's (a gateway's alias), which any current model accepts.
func DefaultMaxTokens(modelName string) int {
	switch name := strings.ToLower(modelName); {
	case strings.HasPrefix(name, "claude-3-opus"), strings.HasPrefix(name, "claude-3-sonnet"), strings.HasPrefix(name, "claude-3-haiku"):
		return 4096
	case strings.HasPrefix(name, "claude-3-5-"):
		return 8192
	case strings.HasPrefix(name, "claude-"):
		return 32000
	}
	return 8192
}

// Client is a model.Model over the Messages API. It is safe for concurrent
// use.
type Client struct {
	messages    sdk.MessageService
	baseURL     string
	keySent     bool
	secrets     *redact.Secrets // the key, hidden in errors and logs
	model       string
	maxTokens   int
	temperature *float64
	maxRetries  int
	backoff     func(attempt int) time.Duration
	logger      *slog.Logger
	lim         limits
}

var (
	_ model.Model     = (*Client)(nil)
	_ model.Describer = (*Client)(nil)
)

// New validates cfg and returns a Client.
func New(cfg Config) (*Client, error) {
	var errs []error
	base := strings.TrimRight(strings.TrimSpace(cfg.BaseURL), "/")
	if base == "" {
		base = DefaultBaseURL
	}
	if u, err := url.Parse(base); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("anthropic config: BaseURL %q is not an http(s) URL with a host", cfg.BaseURL))
	} else if strings.HasSuffix(u.Path, "/messages") {
		errs = append(errs, fmt.Errorf("anthropic config: BaseURL %q must be the API root; /v1/messages is appended", cfg.BaseURL))
	}
	if strings.TrimSpace(cfg.Model) == "" {
		errs = append(errs, errors.New("anthropic config: Model is required (e.g. claude-sonnet-4-5)"))
	}
	if cfg.MaxTokens < 0 {
		errs = append(errs, fmt.Errorf("anthropic config: MaxTokens %d is negative", cfg.MaxTokens))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	c := &Client{
		baseURL:     base,
		keySent:     cfg.APIKey != "",
		secrets:     redact.New(cfg.APIKey),
		model:       cfg.Model,
		maxTokens:   cfg.MaxTokens,
		temperature: cfg.Temperature,
		maxRetries:  cfg.MaxRetries,
		backoff:     cfg.Backoff,
		logger:      cfg.Logger,
		lim:         defaultLimits,
	}
	if c.maxTokens == 0 {
		c.maxTokens = DefaultMaxTokens(cfg.Model)
	}
	c.maxRetries = httpcall.Retries(c.maxRetries)
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	// The messages service alone, not sdk.NewClient: the client would also
	// read ANTHROPIC_* variables (the config alone says where requests go
	// and with which key) and reach every other service of the API, which
	// the linker then keeps (about 30 MB more binary).
	opts := []option.RequestOption{
		option.WithoutOpenTelemetry(), // the kernel traces the call (without content unless asked)
		option.WithBaseURL(base + "/"),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0), // retries are Generate's: see httpcall.Do
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithHeader("x-api-key", cfg.APIKey))
	}
	if cfg.Temperature != nil {
		opts = append(opts, option.WithJSONSet("temperature", *cfg.Temperature))
	}
	c.messages = sdk.NewMessageService(opts...)
	return c, nil
}

// Info names the model for telemetry: provider "anthropic", whatever host
// serves it (a gateway still speaks Anthropic's API).
func (c *Client) Info() model.Info {
	host := ""
	if u, err := url.Parse(c.baseURL); err == nil {
		host = u.Hostname()
	}
	return model.Info{Provider: "anthropic", Name: c.model, Server: host}
}

// Generate sends one streaming Messages request and assembles the answer.
// Text deltas reach req.OnText as they arrive, in order, on the calling
// goroutine.
//
// Failures are retried only while nothing has been passed to OnText (see
// the package documentation); when Generate fails after output began, the
// returned Response holds what had arrived, so the caller can record what
// the user saw. Cancelling ctx aborts the request, the stream and any
// backoff wait; the error then wraps ctx.Err().
func (c *Client) Generate(ctx context.Context, req model.Request) (model.Response, error) {
	resp, err := c.generate(ctx, req)
	return resp, c.secrets.Error(err)
}

func (c *Client) generate(ctx context.Context, req model.Request) (model.Response, error) {
	params, err := c.params(req)
	if err != nil {
		return model.Response{}, fmt.Errorf("messages: %w", err)
	}
	var a *assembler
	attempts := 0
	policy := httpcall.Policy{MaxRetries: c.maxRetries, Backoff: c.backoff, Logger: c.logger.With(slog.String("model", c.model)), Op: "messages"}
	err = httpcall.Do(ctx, policy, func() (bool, error) {
		attempts++
		a = newAssembler(req.OnText, c.lim)
		err := c.attempt(ctx, params, a)
		return a.emitted, err
	})
	if err != nil {
		return a.partial(), fmt.Errorf("messages: %w", err)
	}
	resp := a.response()
	c.logger.Debug("messages done", slog.String("model", c.model), slog.String("stop_reason", resp.FinishReason),
		slog.Int("tool_calls", len(resp.ToolCalls)), slog.Int("input_tokens", resp.Usage.PromptTokens),
		slog.Int("output_tokens", resp.Usage.CompletionTokens), slog.Int("cache_read_tokens", resp.Usage.CacheReadTokens),
		slog.Int("cache_write_tokens", resp.Usage.CacheWriteTokens), slog.Int("attempts", attempts))
	return resp, nil
}

// attempt makes one HTTP exchange, feeding the answer into a. Errors worth
// another attempt come back wrapping *httpcall.Retryable.
func (c *Client) attempt(ctx context.Context, params sdk.MessageNewParams, a *assembler) error {
	stream := c.messages.NewStreaming(ctx, params, option.WithMiddleware(a.bound))
	defer stream.Close()
	for stream.Next() {
		if err := a.event(stream.Current()); err != nil {
			return err
		}
		if a.stopped {
			break // a server that keeps the connection open after message_stop does not hold Generate
		}
	}
	if err := stream.Err(); err != nil {
		return c.failure(err, a)
	}
	return a.end()
}
