// Package canary is the mutation suite's canary: a function and a test that
// exist only so that the runner can prove, before every run, that a mutant
// reaches the compiler and that a failing test is read as CAUGHT. It is not
// Helios code, so the canary never goes stale when Helios changes.
package canary
