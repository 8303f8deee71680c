package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// catalogue is catalogue.yaml: the canary and the mutations, in order.
type catalogue struct {
	// Packages are the default go test patterns of entries that give none;
	// empty means ./... .
	Packages  []string `yaml:"packages"`
	Canary    *entry   `yaml:"canary"`
	Mutations []*entry `yaml:"mutations"`
}

// entry is one named mutation.
type entry struct {
	ID      string `yaml:"id"`
	Breaks  string `yaml:"breaks"` // one line: the contract it breaks
	File    string `yaml:"file"`   // slash-separated, relative to the module root
	Find    string `yaml:"find"`   // must occur exactly once in File
	Replace string `yaml:"replace"`
	// Packages are go test patterns, run from the module root; empty means
	// the catalogue's Packages.
	Packages []string `yaml:"packages"`
	// Expect names tests of which at least one must fail; empty means any.
	Expect []string `yaml:"expect"`
}

// The keys a catalogue may use; anything else is an error, so that a typo
// (say "expcet") cannot silently drop an expectation.
var (
	catalogueKeys = []string{"packages", "canary", "mutations"}
	entryKeys     = []string{"id", "breaks", "file", "find", "replace", "packages", "expect"}
)

var validID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// loadCatalogue reads the catalogue at path and then every fragment in the
// folder catalogue.d beside it (*.yaml, by file name). A fragment holds only
// packages and mutations; its entries follow the main file's, so each
// contract can keep its mutations in a file of its own.
func loadCatalogue(path string) (*catalogue, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load catalogue: %w", err)
	}
	cat, err := parseCatalogue(data)
	if err != nil {
		return nil, fmt.Errorf("load catalogue %s: %w", path, err)
	}
	frags, err := filepath.Glob(filepath.Join(filepath.Dir(path), "catalogue.d", "*.yaml"))
	if err != nil {
		return nil, fmt.Errorf("load catalogue fragments: %w", err)
	}
	slices.Sort(frags)
	for _, f := range frags {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("load catalogue fragment: %w", err)
		}
		muts, err := parseFragment(data, cat.Packages)
		if err != nil {
			return nil, fmt.Errorf("load catalogue fragment %s: %w", f, err)
		}
		cat.Mutations = append(cat.Mutations, muts...)
	}
	if len(frags) > 0 {
		if err := cat.validate(); err != nil {
			return nil, fmt.Errorf("load catalogue %s with its fragments: %w", path, err)
		}
	}
	return cat, nil
}

// parseFragment decodes a catalogue.d fragment strictly: top-level keys
// packages and mutations only. Entries without packages take the fragment's,
// else defaults.
func parseFragment(data []byte, defaults []string) ([]*entry, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	root := doc.Content[0]
	if err := checkKeys(root); err != nil {
		return nil, err
	}
	if mappingValue(root, "canary") != nil {
		return nil, errors.New("a fragment cannot hold the canary (it lives in catalogue.yaml)")
	}
	var frag catalogue
	if err := root.Decode(&frag); err != nil {
		return nil, err
	}
	pkgs := frag.Packages
	if len(pkgs) == 0 {
		pkgs = defaults
	}
	for _, e := range frag.Mutations {
		if e != nil && len(e.Packages) == 0 {
			e.Packages = pkgs
		}
	}
	return frag.Mutations, nil
}

// parseCatalogue decodes strictly, fills in default packages and validates.
func parseCatalogue(data []byte) (*catalogue, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 {
		return nil, errors.New("empty catalogue: it needs at least a canary")
	}
	if err := checkKeys(doc.Content[0]); err != nil {
		return nil, err
	}
	var cat catalogue
	if err := doc.Decode(&cat); err != nil {
		return nil, err
	}
	if len(cat.Packages) == 0 {
		cat.Packages = []string{"./..."}
	}
	if err := cat.validate(); err != nil {
		return nil, err
	}
	for _, e := range cat.entries() {
		if len(e.Packages) == 0 {
			e.Packages = cat.Packages
		}
	}
	return &cat, nil
}

// checkKeys reports every unknown key, naming the entry that holds it.
func checkKeys(root *yaml.Node) error {
	if root.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: the catalogue must be a mapping", root.Line)
	}
	errs := unknownKeys(root, catalogueKeys, "top level")
	if n := mappingValue(root, "canary"); n != nil {
		errs = append(errs, unknownKeys(n, entryKeys, "canary")...)
	}
	if n := mappingValue(root, "mutations"); n != nil && n.Kind == yaml.SequenceNode {
		for i, item := range n.Content {
			errs = append(errs, unknownKeys(item, entryKeys, nodeName(i, item))...)
		}
	}
	return errors.Join(errs...)
}

func unknownKeys(n *yaml.Node, allowed []string, where string) []error {
	if n.Kind != yaml.MappingNode {
		return nil // Decode reports the type error
	}
	var errs []error
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; !slices.Contains(allowed, k.Value) {
			errs = append(errs, fmt.Errorf("line %d: %s: unknown key %q (known: %s)",
				k.Line, where, k.Value, strings.Join(allowed, ", ")))
		}
	}
	return errs
}

func mappingValue(n *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// nodeName names mutation i before decoding: "mutations[2] (M3)".
func nodeName(i int, n *yaml.Node) string {
	id := ""
	if n.Kind == yaml.MappingNode {
		if v := mappingValue(n, "id"); v != nil {
			id = v.Value
		}
	}
	return entryName(i, id)
}

func entryName(i int, id string) string {
	if id == "" {
		return fmt.Sprintf("mutations[%d]", i)
	}
	return fmt.Sprintf("mutations[%d] (%s)", i, id)
}

// entries returns the canary and then the mutations.
func (c *catalogue) entries() []*entry {
	if c.Canary == nil {
		return c.Mutations
	}
	return append([]*entry{c.Canary}, c.Mutations...)
}

func (c *catalogue) validate() error {
	var errs []error
	if c.Canary == nil {
		errs = append(errs, errors.New("no canary: the runner needs one to prove it can catch anything"))
	} else {
		errs = append(errs, c.Canary.validate("canary"))
	}
	errs = append(errs, validatePatterns("top level: packages", c.Packages))
	seen := map[string]string{}
	if c.Canary != nil {
		seen[c.Canary.ID] = "canary"
	}
	for i, e := range c.Mutations {
		if e == nil {
			errs = append(errs, fmt.Errorf("%s: empty entry", entryName(i, "")))
			continue
		}
		name := entryName(i, e.ID)
		errs = append(errs, e.validate(name))
		if prev, dup := seen[e.ID]; dup && e.ID != "" {
			errs = append(errs, fmt.Errorf("%s: id %q already used by %s", name, e.ID, prev))
		}
		seen[e.ID] = name
	}
	return errors.Join(errs...)
}

func (e *entry) validate(name string) error {
	var errs []error
	fail := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: "+format, append([]any{name}, args...)...))
	}
	if !validID.MatchString(e.ID) {
		fail("id %q: want letters, digits, '_', '.' or '-'", e.ID)
	}
	switch {
	case strings.TrimSpace(e.Breaks) == "":
		fail("breaks: say which contract it breaks")
	case strings.Contains(e.Breaks, "\n"):
		fail("breaks: must be one line")
	}
	if e.File == "" || !filepath.IsLocal(filepath.FromSlash(e.File)) {
		fail("file %q: want a path relative to the module root, inside it", e.File)
	}
	switch {
	case e.Find == "":
		fail("find: empty")
	case e.Find == e.Replace:
		fail("replace: same as find, so the mutant is the original")
	}
	errs = append(errs, validatePatterns(name+": packages", e.Packages))
	for _, t := range e.Expect {
		if strings.TrimSpace(t) == "" {
			fail("expect: empty test name")
		}
	}
	return errors.Join(errs...)
}

// validatePatterns rejects patterns go test would read as flags.
func validatePatterns(where string, pkgs []string) error {
	for _, p := range pkgs {
		if p == "" || strings.HasPrefix(p, "-") {
			return fmt.Errorf("%s: %q is not a package pattern", where, p)
		}
	}
	return nil
}

// selectIDs returns the mutations named in only, in catalogue order; nil only
// means all of them.
func (c *catalogue) selectIDs(only []string) ([]*entry, error) {
	if only == nil {
		return c.Mutations, nil
	}
	want := map[string]bool{}
	for _, id := range only {
		want[id] = true
	}
	var selected []*entry
	for _, e := range c.Mutations {
		if want[e.ID] {
			selected = append(selected, e)
			delete(want, e.ID)
		}
	}
	if len(want) > 0 {
		return nil, c.unknownIDs(want)
	}
	return selected, nil
}

func (c *catalogue) unknownIDs(ids map[string]bool) error {
	var unknown, known []string
	for id := range ids {
		unknown = append(unknown, id)
	}
	slices.Sort(unknown)
	for _, e := range c.Mutations {
		known = append(known, e.ID)
	}
	msg := fmt.Sprintf("-only: unknown id %s", strings.Join(unknown, ", "))
	if c.Canary != nil && ids[c.Canary.ID] {
		msg += fmt.Sprintf(" (%s is the canary; it always runs)", c.Canary.ID)
	}
	if len(known) == 0 {
		return errors.New(msg + "; the catalogue has no mutations")
	}
	return fmt.Errorf("%s; known: %s", msg, strings.Join(known, ", "))
}

// packages returns the union of the entries' packages, in first-seen order.
func packages(entries []*entry) []string {
	var union []string
	for _, e := range entries {
		for _, p := range e.Packages {
			if !slices.Contains(union, p) {
				union = append(union, p)
			}
		}
	}
	return union
}
