// Package skillsfloor is what the discovery benchmarks measure against and
// with.
//
// The I/O floor of a skills discovery (Read): list a root, then open, read
// 4 KiB of and close each <root>/<entry>/SKILL.md over GOMAXPROCS workers,
// parsing nothing; on Linux with the bare system calls (openat relative to
// the root, read, close), as the folder source does, not through *os.File. BenchmarkDiscover times it in process beside the folder
// source; the command cmd/skillsfloor runs it as a whole process beside
// `helios skills list --json` (issue 11).
//
// The corpora the benchmarks read (Corpora), in two shapes: synthetic
// (Generate: every skill alike, one-line plain values) and real
// (GenerateReal: skills drawn, seeded, from shape.json, the measured make-up
// of published SKILL.md files — frontmatter and body sizes, which keys, in
// which YAML form each value is written, how long, names with capitals or
// spaces). cmd/skillshape measures a set of skill repositories and writes
// shape.json; it records counts and quantiles, never the files' text
// (issue 29).
package skillsfloor
