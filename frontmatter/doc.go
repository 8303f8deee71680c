// Package frontmatter is the one parser for the YAML frontmatter that opens
// SKILL.md and EXTENSION.md files: a YAML mapping between two lines that are
// exactly "---", followed by a free-form body.
//
// Both file kinds share this parser so that a file accepted in one place is
// never refused in the other. The rules:
//
//   - A UTF-8 byte order mark before the first line is skipped; LF and CRLF
//     line endings both work.
//   - The first line must be "---" (trailing spaces, tabs or a CR are
//     tolerated); otherwise the file has no frontmatter ([ErrNoFrontmatter]).
//   - The frontmatter ends at the next line that is "---" in the same sense.
//     A line such as "----" or "--- x" is not a delimiter, so it may appear
//     inside a value. No such line is [ErrUnclosed].
//   - The text between the delimiters must be one YAML document whose top
//     level is a mapping with scalar keys. Empty frontmatter, a scalar or a
//     sequence is [ErrNotMapping]; empty frontmatter is refused rather than
//     read as an empty mapping because a SKILL.md without a name and a
//     description is useless and the author should hear so.
//   - YAML that does not parse, holds a second document, or repeats a key
//     (at any depth) is [ErrYAML].
//
// Every error of [Parse] is an [*Error] naming the file and the 1-based line in
// that file (yaml's own line numbers count from the first line after the
// opening delimiter; they are translated), so a person can jump to the spot.
//
// Parse keeps the value of each top-level key as a [yaml.Node] rather than
// decoding into a struct: callers are lenient by design (an optional field of
// an unexpected type is kept and warned about, never fatal), so the decision
// of what a field must be belongs to them, made through [Document.Scalar],
// [Document.Bool] and [Document.Decode].
package frontmatter
