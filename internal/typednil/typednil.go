// Package typednil finds typed nils crossing into interfaces: a function
// whose result is an interface returning a value of a concrete nilable type
// (a pointer, map, slice, channel or function) that may be nil. The caller's
// `err != nil` or `x != nil` check then sees a non-nil interface holding a
// nil pointer, and the first method call panics (assembly once returned
// `postgres.New(...)` from a func returning a session store interface: every
// connection error became a nil-pointer panic in Close).
//
// Three shapes are reported, each a typed nil when the callee fails:
//
//   - return f(...) where f's i-th result is a concrete nilable type and the
//     enclosing function's i-th result is an interface;
//   - return x, ..., err where x is a variable of a concrete nilable type
//     returned as an interface beside an error that is not the nil literal
//     (x, err := f(); return x, err);
//   - i, err = f() (or var i I, err = f()) where i is an interface and f's
//     result a concrete nilable type.
//
// Generated files (a "Code generated ... DO NOT EDIT." header) are skipped:
// protoc's gRPC handlers return through any by design. Check type-checks a
// module's packages from source, with the export data `go list -export`
// writes for their dependencies, using the standard library only.
package typednil

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
)

// Finding is one typed nil returned as an interface.
type Finding struct {
	Pos     token.Position
	Message string
}

func (f Finding) String() string { return fmt.Sprintf("%s: %s", f.Pos, f.Message) }

// Check type-checks the packages matching patterns (as `go list` reads
// them, from dir) and returns every finding, sorted by position.
func Check(dir string, patterns ...string) ([]Finding, error) {
	cmd := exec.Command("go", append([]string{"list", "-e", "-export", "-deps", "-json=ImportPath,Dir,GoFiles,Export,DepOnly,Error"}, patterns...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w: %s", err, stderr.String())
	}
	type pkg struct {
		ImportPath string
		Dir        string
		GoFiles    []string
		Export     string
		DepOnly    bool
		Error      *struct{ Err string }
	}
	exports := map[string]string{}
	var targets []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("go list: %w", err)
		}
		if p.Error != nil {
			return nil, fmt.Errorf("go list: %s: %s", p.ImportPath, p.Error.Err)
		}
		exports[p.ImportPath] = p.Export
		if !p.DepOnly {
			targets = append(targets, p)
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok || f == "" {
			return nil, fmt.Errorf("no export data for %q", path)
		}
		r, err := os.Open(f)
		if err != nil {
			return nil, err
		}
		return r, nil
	})
	var all []Finding
	for _, p := range targets {
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.ParseComments)
			if err != nil {
				return nil, err
			}
			files = append(files, f)
		}
		fs, err := CheckFiles(fset, p.ImportPath, files, imp)
		if err != nil {
			return nil, err
		}
		all = append(all, fs...)
	}
	sort.Slice(all, func(i, j int) bool {
		a, b := all[i].Pos, all[j].Pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		return a.Offset < b.Offset
	})
	return all, nil
}

// CheckFiles type-checks one package's files and returns its findings.
func CheckFiles(fset *token.FileSet, path string, files []*ast.File, imp types.Importer) ([]Finding, error) {
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}}
	var typeErrs []error
	conf := types.Config{Importer: imp, Error: func(err error) { typeErrs = append(typeErrs, err) }}
	if _, err := conf.Check(path, fset, files, info); err != nil {
		return nil, fmt.Errorf("type-check %s: %w", path, errors.Join(typeErrs...))
	}
	var out []Finding
	for _, f := range files {
		if ast.IsGenerated(f) {
			continue // protoc's gRPC handlers return through any, by design
		}
		var sigs []*types.Signature // enclosing functions, innermost last
		var visit func(n ast.Node) bool
		visit = func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if n.Body == nil {
					return false
				}
				sig, _ := info.Defs[n.Name].Type().(*types.Signature)
				sigs = append(sigs, sig)
				ast.Inspect(n.Body, visit)
				sigs = sigs[:len(sigs)-1]
				return false
			case *ast.FuncLit:
				sig, _ := info.Types[n].Type.(*types.Signature)
				sigs = append(sigs, sig)
				ast.Inspect(n.Body, visit)
				sigs = sigs[:len(sigs)-1]
				return false
			case *ast.ReturnStmt:
				if len(sigs) > 0 && sigs[len(sigs)-1] != nil {
					out = append(out, checkReturn(fset, info, sigs[len(sigs)-1], n)...)
				}
			case *ast.AssignStmt:
				if len(n.Rhs) == 1 {
					out = append(out, checkAssign(fset, info, n.Lhs, n.Rhs[0])...)
				}
			case *ast.ValueSpec:
				if len(n.Values) == 1 {
					lhs := make([]ast.Expr, len(n.Names))
					for i, id := range n.Names {
						lhs[i] = id
					}
					out = append(out, checkAssign(fset, info, lhs, n.Values[0])...)
				}
			}
			return true
		}
		ast.Inspect(f, visit)
	}
	return out, nil
}

func checkReturn(fset *token.FileSet, info *types.Info, sig *types.Signature, ret *ast.ReturnStmt) []Finding {
	res := sig.Results()
	var out []Finding
	report := func(at ast.Node, i int, got types.Type, how string) {
		out = append(out, Finding{fset.Position(at.Pos()), fmt.Sprintf(
			"%s returns %s as result %d of type %s: a nil %s becomes a non-nil interface (a typed nil); return nil explicitly when it is nil",
			how, types.TypeString(got, nil), i, types.TypeString(res.At(i).Type(), nil), types.TypeString(got, nil))})
	}
	if len(ret.Results) == 1 && res.Len() > 1 {
		call, ok := ast.Unparen(ret.Results[0]).(*ast.CallExpr)
		if !ok {
			return nil
		}
		tuple, ok := info.Types[call].Type.(*types.Tuple)
		if !ok || tuple.Len() != res.Len() {
			return nil
		}
		for i := range tuple.Len() {
			if isInterface(res.At(i).Type()) && nilableConcrete(tuple.At(i).Type()) {
				report(call, i, tuple.At(i).Type(), "return of a call")
			}
		}
		return out
	}
	if len(ret.Results) != res.Len() || !hasLiveError(info, ret.Results) {
		return nil
	}
	for i, e := range ret.Results {
		id, ok := ast.Unparen(e).(*ast.Ident)
		if !ok {
			continue
		}
		if _, isVar := info.Uses[id].(*types.Var); !isVar {
			continue
		}
		if t := info.Types[e].Type; isInterface(res.At(i).Type()) && nilableConcrete(t) {
			report(e, i, t, "return of variable "+id.Name)
		}
	}
	return out
}

// checkAssign reports `a, err = f()` (or `var a I, err = f()`) where a is
// an interface and f's result a concrete nilable type: on f's error path a
// holds a typed nil.
func checkAssign(fset *token.FileSet, info *types.Info, lhs []ast.Expr, rhs ast.Expr) []Finding {
	call, ok := ast.Unparen(rhs).(*ast.CallExpr)
	if !ok || len(lhs) < 2 {
		return nil
	}
	tuple, ok := info.Types[call].Type.(*types.Tuple)
	if !ok || tuple.Len() != len(lhs) {
		return nil
	}
	var out []Finding
	for i, l := range lhs {
		var lt types.Type
		if id, ok := l.(*ast.Ident); ok {
			if id.Name == "_" {
				continue
			}
			if obj := info.ObjectOf(id); obj != nil {
				lt = obj.Type()
			}
		} else {
			lt = info.TypeOf(l)
		}
		if lt != nil && isInterface(lt) && nilableConcrete(tuple.At(i).Type()) {
			out = append(out, Finding{fset.Position(l.Pos()), fmt.Sprintf(
				"assignment of a call stores %s in %s of type %s: a nil %s becomes a non-nil interface (a typed nil); assign to a variable of the concrete type and check the error first",
				types.TypeString(tuple.At(i).Type(), nil), types.ExprString(l), types.TypeString(lt, nil), types.TypeString(tuple.At(i).Type(), nil))})
		}
	}
	return out
}

// hasLiveError reports whether a result is an error other than the nil
// literal: the return is on a path where something may have failed.
func hasLiveError(info *types.Info, results []ast.Expr) bool {
	errType := types.Universe.Lookup("error").Type()
	for _, e := range results {
		tv := info.Types[e]
		if tv.IsNil() {
			continue
		}
		if types.Identical(tv.Type, errType) {
			return true
		}
	}
	return false
}

func isInterface(t types.Type) bool { return types.IsInterface(t) }

// nilableConcrete reports whether a value of t can be nil without t being
// an interface.
func nilableConcrete(t types.Type) bool {
	if t == nil || types.IsInterface(t) {
		return false
	}
	switch t.Underlying().(type) {
	case *types.Pointer, *types.Map, *types.Slice, *types.Chan, *types.Signature:
		return true
	}
	return false
}
