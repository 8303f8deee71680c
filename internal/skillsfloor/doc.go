// Package skillsfloor is the I/O floor of a skills discovery: list a root,
// then open, read 4 KiB of and close each <root>/<entry>/SKILL.md over
// GOMAXPROCS workers, parsing nothing. BenchmarkDiscover times it in process
// beside the folder source; the command cmd/skillsfloor runs it as a whole
// process beside `helios skills list --json` (issue 11).
package skillsfloor
