package openai

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/kernel/redact"
	"github.com/helios-agents/helios/provider/internal/httpcall"
)

// Config configures a Client. Zero values are documented per field; BaseURL
// and Model are required.
type Config struct {
	// BaseURL is the API root the endpoint paths hang from, e.g.
	// https://api.deepseek.com/v1 or http://localhost:11434/v1. Required.
	BaseURL string
	// APIKey is sent as "Authorization: Bearer <key>". Empty sends no
	// Authorization header, which local servers accept. It never appears in
	// an error Generate returns or a warning it logs: a server (or proxy)
	// that repeats the header in its answer gets it replaced by [REDACTED].
	APIKey string
	// Model is the model name the server knows, e.g. "deepseek-chat". Required.
	Model string
	// HTTPClient sends the requests. Nil uses a client without a timeout:
	// answers stream for minutes, so the request's context is the deadline.
	HTTPClient *http.Client
	// MaxRetries is how many times a failed attempt is retried (429, 5xx,
	// connection failures before any output). Zero means 3; negative means
	// never retry.
	MaxRetries int
	// Backoff is the wait before retry number attempt (1, 2, ...) when the
	// server sends no Retry-After. Nil means exponential from 500ms with
	// jitter, capped at 10s.
	Backoff func(attempt int) time.Duration
	// Temperature, when set, is sent as "temperature"; nil leaves the
	// server's default.
	Temperature *float64
	// MaxTokens, when positive, is sent as "max_tokens"; zero leaves the
	// server's default.
	MaxTokens int
	// PromptCacheKey sends Request.CacheKey (the session ID) as
	// "prompt_cache_key", so that OpenAI routes a session's requests to the
	// same prompt cache. Off by default: not every compatible server
	// accepts the field.
	PromptCacheKey bool
	// Logger receives retries (Warn) and request summaries (Debug). Nil
	// discards.
	Logger *slog.Logger
}

// Client is a model.Model over one endpoint and model name. It is safe for
// concurrent use.
type Client struct {
	endpoint    string
	apiKey      string
	model       string
	http        *http.Client
	maxRetries  int
	backoff     func(attempt int) time.Duration
	temperature *float64
	maxTokens   int
	cacheKey    bool
	logger      *slog.Logger
	secrets     *redact.Secrets // the key, hidden in errors and logs
}

var (
	_ model.Model     = (*Client)(nil)
	_ model.Describer = (*Client)(nil)
)

// Info names the model and its provider for telemetry. The provider is
// known by the endpoint's host for the hosted APIs; any other
// OpenAI-compatible server (vLLM, Ollama, llama.cpp) is "_OTHER", as the
// GenAI conventions ask, and server.address tells which.
func (c *Client) Info() model.Info {
	host := ""
	if u, err := url.Parse(c.endpoint); err == nil {
		host = u.Hostname()
	}
	return model.Info{Provider: providerOf(host), Name: c.model, Server: host}
}

func providerOf(host string) string {
	for suffix, name := range map[string]string{
		"api.openai.com": "openai", "api.deepseek.com": "deepseek", "api.mistral.ai": "mistral_ai",
		"api.groq.com": "groq", "api.x.ai": "x_ai", "openai.azure.com": "azure.ai.openai",
		"generativelanguage.googleapis.com": "gcp.gemini", "api.perplexity.ai": "perplexity",
	} {
		if host == suffix || strings.HasSuffix(host, "."+suffix) {
			return name
		}
	}
	return "_OTHER"
}

// New validates cfg and returns a Client.
func New(cfg Config) (*Client, error) {
	var errs []error
	base := strings.TrimRight(strings.TrimSpace(cfg.BaseURL), "/")
	if base == "" {
		errs = append(errs, errors.New("openai config: BaseURL is required (e.g. https://api.deepseek.com/v1 or http://localhost:11434/v1)"))
	} else if u, err := url.Parse(base); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("openai config: BaseURL %q is not an http(s) URL with a host", cfg.BaseURL))
	} else if strings.HasSuffix(u.Path, "/chat/completions") {
		errs = append(errs, fmt.Errorf("openai config: BaseURL %q must be the API root; /chat/completions is appended", cfg.BaseURL))
	}
	if strings.TrimSpace(cfg.Model) == "" {
		errs = append(errs, errors.New("openai config: Model is required (the model name the server knows)"))
	}
	if cfg.MaxTokens < 0 {
		errs = append(errs, fmt.Errorf("openai config: MaxTokens %d is negative", cfg.MaxTokens))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	c := &Client{
		endpoint:    base + "/chat/completions",
		apiKey:      cfg.APIKey,
		model:       cfg.Model,
		http:        cfg.HTTPClient,
		maxRetries:  cfg.MaxRetries,
		backoff:     cfg.Backoff,
		temperature: cfg.Temperature,
		maxTokens:   cfg.MaxTokens,
		cacheKey:    cfg.PromptCacheKey,
		logger:      cfg.Logger,
		secrets:     redact.New(cfg.APIKey),
	}
	if c.http == nil {
		c.http = &http.Client{}
	}
	c.maxRetries = httpcall.Retries(c.maxRetries)
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	return c, nil
}

// Generate sends one streaming Chat Completions request and assembles the
// answer. Text deltas reach req.OnText as they arrive, in order, on the
// calling goroutine.
//
// Failures are retried (429 and 5xx, honouring Retry-After up to a minute;
// connection failures and truncated streams) only while nothing has been
// passed to OnText: a retry after that would show the user the same words
// twice. When Generate fails after output began, the returned Response holds
// what had arrived, so the caller can record what the user saw. Other 4xx
// statuses are returned at once as a *StatusError. Cancelling ctx aborts the
// request, the stream and any backoff wait; the error then wraps ctx.Err().
func (c *Client) Generate(ctx context.Context, req model.Request) (model.Response, error) {
	resp, err := c.generate(ctx, req)
	return resp, c.secrets.Error(err)
}

func (c *Client) generate(ctx context.Context, req model.Request) (model.Response, error) {
	body, err := encodeRequest(c, req)
	if err != nil {
		return model.Response{}, fmt.Errorf("chat completion: %w", err)
	}
	var a *assembler
	attempts := 0
	policy := httpcall.Policy{MaxRetries: c.maxRetries, Backoff: c.backoff, Logger: c.logger.With(slog.String("model", c.model)), Op: "chat completion"}
	err = httpcall.Do(ctx, policy, func() (bool, error) {
		attempts++
		a = newAssembler(req.OnText, defaultLimits)
		err := c.attempt(ctx, body, a)
		return a.emitted, err
	})
	if err != nil {
		return a.partial(), fmt.Errorf("chat completion: %w", err)
	}
	resp := a.response()
	c.logger.Debug("chat completion done", slog.String("model", c.model), slog.String("finish_reason", resp.FinishReason),
		slog.Int("tool_calls", len(resp.ToolCalls)), slog.Int("prompt_tokens", resp.Usage.PromptTokens),
		slog.Int("completion_tokens", resp.Usage.CompletionTokens), slog.Int("cache_read_tokens", resp.Usage.CacheReadTokens),
		slog.Int("attempts", attempts))
	return resp, nil
}

// attempt makes one HTTP exchange, feeding the answer into a. Errors worth
// another attempt come back as *httpcall.Retryable.
func (c *Client) attempt(ctx context.Context, body []byte, a *assembler) error {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return err
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream, application/json")
	if c.apiKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	res, err := c.http.Do(hreq)
	if err != nil {
		return httpcall.TransportError(err)
	}
	defer res.Body.Close()

	if res.StatusCode < 200 || res.StatusCode > 299 {
		return statusError(res, c.apiKey != "", c.secrets)
	}
	ct := res.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	switch mt {
	case "application/json":
		// Some servers ignore "stream": true.
		return readCompletion(res.Body, a)
	case "text/html":
		// A web UI or a proxy's page, not an API: the base URL is wrong.
		return fmt.Errorf("%w: got Content-Type %q from %s; is the base URL the API root (often ending in /v1)?", ErrMalformed, ct, c.endpoint)
	}
	return readStream(res.Body, a)
}
