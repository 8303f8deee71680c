// Package unit holds the black-box contract tests of Helios: each test
// exercises a public contract of DESIGN.md (C1–C10) through exported APIs or
// the built helios binary, never through package internals.
package unit
