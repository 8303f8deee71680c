// Package redact hides secret values (an API key, a token, a database
// password) in text Helios prints, logs, stores or exports: each occurrence
// becomes Mark, "[REDACTED]".
//
// A Secrets is a set of values; its String, Error, Handler and Writer
// apply it to a string, an error (which errors.Is and errors.As still see
// through), a slog handler's records and a writer's bytes. The assembly
// fills one Secrets with every secret the configuration names (the value of
// model.apiKeyEnv, the PostgreSQL URL's password, the MCP server's
// --token-env) and hands it to what writes anything out; a component that
// holds a secret itself (the model client its key) also hides it at the
// source, in the errors it returns.
//
// A value is found as written and in its URL query encoding. Values shorter
// than MinLen are ignored: hiding every "ab" of a two-letter password would
// blank out the output while protecting nothing an attacker could not guess.
package redact
