// Package live is the real-model suite. It runs only with the build tag
// `live` and the variables HELIOS_LIVE_BASE_URL, HELIOS_LIVE_API_KEY and
// HELIOS_LIVE_MODEL (any OpenAI-compatible endpoint); each test skips with a
// message naming what is missing. It asserts what the unit suite cannot:
// that a real model loads the right skill first, resolves the skill's
// scripts on the first try (no failed tool call at all), and sees a skill
// created in the middle of a session. Transcripts are saved as artifacts
// (go test -artifacts; `make live` keeps them under test/live/out).
package live
