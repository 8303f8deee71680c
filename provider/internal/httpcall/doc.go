// Package httpcall holds what the model adapters share about one HTTP model
// call: when and how long to wait before trying again (429 and 5xx,
// Retry-After honoured up to a minute, never once output reached the
// caller), and keeping the API key out of error messages.
package httpcall
