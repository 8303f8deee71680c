// Package workfs is the guarded port to the agent's work dir (contract C5).
// Every file access inside the work dir — project skills, and the Read,
// Write, Edit and Glob tools — goes through an [FS], which refuses anything
// that resolves outside it. The model chooses these paths, and the work dir
// holds files that others wrote (a cloned repository can ship a symlink to
// ~/.ssh), so the guard must hold against both.
//
// A path may be relative to the work dir or absolute; an absolute path must
// name a place under the work dir literally, by its resolved name ([FS.Dir])
// or by the name [New] was given — a path through some other link that leads
// in from outside is refused, as the guard does not trust links outside the
// work dir. A path is cleaned lexically first, as [path/filepath.Clean] does,
// so "a/../b" is "b" whatever a is. The work dir itself is inside. Refused,
// with an [*EscapeError] (errors.Is(err, [ErrOutsideWorkDir])):
//
//   - ".." that climbs above the work dir ("../x", "a/../../x");
//   - an absolute path elsewhere, including a sibling whose name merely
//     starts with the work dir's ("/w/work-evil" beside "/w/work"), which a
//     string-prefix check would let through;
//   - a symlink at any depth that points outside: a link in the middle of the
//     path, the last element of a path that is read, a symlinked ancestor of a
//     file that does not exist yet (a Write target), and a symlink — even a
//     dangling one — as the last element of a Write target;
//   - a relative symlink whose target climbs above the work dir even if it
//     comes back in ("../work/x"): where it lands depends on what lies outside,
//     which the guard does not trust (os.Root refuses these too);
//   - an absolute symlink target that does not name a place under the work
//     dir literally, as for absolute paths above;
//   - a glob pattern that reaches outside ("../**", "/etc/*");
//   - a NUL byte: a C-level tool handed the path would cut it short there.
//
// Changes to the protected paths are refused with a [*ProtectedError]
// (errors.Is(err, [ErrProtected])), whether the path names them or a
// symlink leads there: helios.config.json (whoever writes it chooses what the
// next run starts), .git (its hooks and config run code later, outside any
// sandbox) and .helios and .agents except their skills folders, at the top
// of the work dir (see [Protected]). Reading them is allowed; the sandbox
// keeps them read-only for the model's commands too.
//
// Symlinks that stay inside are followed as usual, but for [FS.WriteFile]:
// a write follows no symlink at all (a [*SymlinkError] names the link), as
// a link can be swapped in between any check and the write. On Linux it
// opens each folder on the way beneath the one before it with openat2
// (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) and checks the protected paths
// on the folder it opened; without openat2 (Linux before 5.6) every write
// fails with [ErrNoOpenat2]. [FS.MakeStateDirs] creates the state folders
// before the model runs, so they are protected from its first command on.
// [FS.Lstat] and [FS.Remove]
// act on a final symlink itself, as their os counterparts do, so a link that
// points out can still be seen and deleted; its target cannot be touched.
//
// Every other error (a missing file, a permission problem) stays an ordinary
// *fs.PathError naming the operation and the path as given, so
// errors.Is(err, fs.ErrNotExist) tells "missing" apart from "refused".
//
// The guard checks each path by walking it link by link, which names the
// precise reason for a refusal, and then performs the operation through an
// [os.Root] opened on the work dir on the path so resolved. os.Root refuses
// escaping links atomically at the time of the operation, so a link swapped in
// between the check and the use cannot lead out either; such a late refusal
// is an [*EscapeError] as well.
package workfs
