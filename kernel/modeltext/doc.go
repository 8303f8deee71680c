// Package modeltext renders the text a model reads — tool descriptions,
// prompts, notes — from the embedded .md and .md.tmpl files of the package
// that uses it, so that a reviewer diffs prose as prose and each sentence
// has one home.
//
// A .md file is plain text; a .md.tmpl file is a text/template whose data
// the using package passes. Both are parsed into one template set, named by
// file name, on first use.
package modeltext
