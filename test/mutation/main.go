package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// Exit statuses.
const (
	exitOK    = 0 // every selected entry was CAUGHT
	exitFail  = 1 // something escaped, the baseline or canary failed, or the run was interrupted
	exitUsage = 2 // bad flags, a bad catalogue, or GOFLAGS holds -cover
)

const (
	defaultCatalogue = "test/mutation/catalogue.yaml"
	defaultTimeout   = 4 * time.Minute
)

func main() {
	// The first SIGINT/SIGTERM cancels ctx, which kills the running go tests
	// and lets run remove its temp dir; a second one kills the runner outright.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop)
	code := run(ctx, os.Args[1:], os.Environ(), os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// options are the parsed command line.
type options struct {
	root      string // module root, absolute, symlinks resolved
	catalogue string // absolute path of the catalogue
	only      []string
	list      bool
	jobs      int
	timeout   time.Duration
	verbose   bool
	focus     bool
}

// run is the whole command; env is the environment the go commands it starts
// inherit (TMPDIR in it also places the runner's temp dir).
func run(ctx context.Context, args, env []string, stdout, stderr io.Writer) int {
	opts, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "mutate: %v\n", err)
		return exitUsage
	}
	cat, err := loadCatalogue(opts.catalogue)
	if err != nil {
		fmt.Fprintf(stderr, "mutate: %v\n", err)
		return exitUsage
	}
	selected, err := cat.selectIDs(opts.only)
	if err != nil {
		fmt.Fprintf(stderr, "mutate: %v\n", err)
		return exitUsage
	}
	if opts.list {
		writeList(stdout, cat.Canary, selected)
		return exitOK
	}
	goflags, err := goFlags(ctx, opts.root, env)
	if err != nil {
		fmt.Fprintf(stderr, "mutate: %v\n", err)
		return exitUsage
	}
	s := &suite{
		root:    opts.root,
		env:     env,
		goflags: goflags,
		jobs:    opts.jobs,
		timeout: opts.timeout,
		verbose: opts.verbose,
		focus:   opts.focus,
		stdout:  stdout,
		stderr:  stderr,
	}
	return s.run(ctx, cat.Canary, selected)
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("mutate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: go run ./test/mutation [flags]\n\n"+
			"Runs the mutation catalogue; see go doc ./test/mutation.\n\n")
		fs.PrintDefaults()
	}
	var (
		opts            options
		root, cat, only string
	)
	fs.StringVar(&root, "C", "", "module root (default: the nearest directory with a go.mod, walking up from the working directory)")
	fs.StringVar(&cat, "catalogue", defaultCatalogue, "catalogue `path`; a relative path is relative to the module root")
	fs.StringVar(&only, "only", "", "run only these comma-separated `ids` (e.g. M3,M16)")
	fs.BoolVar(&opts.list, "list", false, "list the catalogue and exit without running anything")
	fs.IntVar(&opts.jobs, "j", runtime.NumCPU(), "mutants run at the same time")
	fs.DurationVar(&opts.timeout, "timeout", defaultTimeout, "time limit for each mutant's go test, the canary's too (the baseline has none)")
	fs.BoolVar(&opts.verbose, "v", false, "print a progress line to stderr as each mutant finishes")
	fs.BoolVar(&opts.focus, "focus", false, "run only each entry's expected tests (go test -run), not its packages whole; entries without expect still run everything. Faster, but a catch by another test reads ESCAPED, not CAUGHT-ELSEWHERE")
	if err := fs.Parse(args); err != nil {
		return options{}, err
	}
	if fs.NArg() > 0 {
		return options{}, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if opts.jobs < 1 {
		return options{}, fmt.Errorf("-j %d: must be at least 1", opts.jobs)
	}
	if opts.timeout <= 0 {
		return options{}, fmt.Errorf("-timeout %s: must be positive", opts.timeout)
	}
	var err error
	if opts.only, err = parseOnly(only, fs); err != nil {
		return options{}, err
	}
	if opts.root, err = moduleRoot(root); err != nil {
		return options{}, err
	}
	opts.catalogue = cat
	if !filepath.IsAbs(cat) {
		opts.catalogue = filepath.Join(opts.root, cat)
	}
	return opts, nil
}

// parseOnly splits -only; nil means every entry. Given but empty is an error,
// so that a run selecting nothing cannot pass.
func parseOnly(only string, fs *flag.FlagSet) ([]string, error) {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "only" })
	if !given {
		return nil, nil
	}
	var ids []string
	for id := range strings.SplitSeq(only, ",") {
		if id = strings.TrimSpace(id); id != "" {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil, errors.New("-only: no ids given")
	}
	return ids, nil
}

// moduleRoot returns dir (or, when dir is empty, the nearest directory at or
// above the working directory) holding a go.mod, as an absolute path with
// symlinks resolved: overlay keys must spell files the way the go command
// does.
func moduleRoot(dir string) (string, error) {
	start := dir
	if start == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("find module root: %w", err)
		}
		start = wd
	}
	abs, err := filepath.Abs(start)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return "", fmt.Errorf("find module root: %w", err)
	}
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if dir != "" || d == filepath.Dir(d) {
			return "", fmt.Errorf("find module root: no go.mod in %s", describeSearch(dir, abs))
		}
	}
}

func describeSearch(dir, abs string) string {
	if dir != "" {
		return abs
	}
	return abs + " or any parent"
}
