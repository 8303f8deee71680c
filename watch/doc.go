// Package watch tells a skills provider that something in its roots changed
// and what to read again (contract C4). It watches, per root:
//
//   - the root's direct children: bundle directories, flat *.md files, and
//     symlinks (created, removed, renamed, and for flat files written);
//   - each bundle directory for its SKILL.md / skill.md (created, written,
//     removed, renamed over);
//   - nothing deeper: scripts/, references/ and any nested directory of a
//     bundle never cause a callback, and neither do hidden names or editor
//     temp names (…~, *.swp, *.swx, *.swo, *.tmp, 4913, .#…, #…#).
//
// A Change names the root children to read again (Entries), or asks for the
// whole set of roots to be read again (Rescan), and says whether the watcher
// can currently be trusted (Incomplete). The provider does all the reading:
// this package never parses a skill.
//
// One [Watcher] serves a whole kernel. In [Native] mode it owns exactly one
// fsnotify (inotify) instance, shared by every [Subscription] and reference
// counted by path: Linux allows about 128 inotify instances per user, so one
// per project would run out. [Poll] mode uses no inotify at all and stats the
// roots every PollInterval instead.
//
// A root that does not exist yet is watched through its nearest existing
// ancestor directory, for the creation of the next missing path segment; the
// watch moves down as segments appear, and when the root itself appears it is
// watched directly and Rescan is reported. A root that is deleted is watched
// through its ancestor again, and Rescan is reported. A PollInterval check
// backs this up, and also retries watches that could not be added.
//
// Changes are published on the leading edge: the first event after a quiet
// period (no callback for Coalesce) is delivered at once, a millisecond
// later so the other half of a rename joins it. The events that follow are
// coalesced: the rest of a burst becomes one callback, Coalesce after its
// last event (and at the latest 10×Coalesce after its first), so a checkout
// renaming thousands of files yields a handful of callbacks. With WriteStability,
// an entry is reported only once its skill file's size and mtime have stayed
// the same for that long, so an editor's half-written save (or a vim
// rename-and-rewrite) is seen once, finished.
//
// Ordering rule: callbacks of one Subscription never run concurrently and
// arrive in order; after a Change with Incomplete set, the Subscription's
// result must be treated as incomplete until a later Change with Incomplete
// unset, which always carries Rescan. No callback runs after
// [Subscription.Close] or [Watcher.Close] returns. A callback must not call
// Close on its own Subscription or on the Watcher (Close waits for the running
// callback); Touch and Healthy are fine.
package watch
