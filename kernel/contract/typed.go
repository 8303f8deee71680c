package contract

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// NewTool builds a Tool whose arguments are a value of In, a struct: the
// argument struct is the schema. The schema the model sees is derived from
// In's type by github.com/google/jsonschema-go: each exported field is a
// property named by its json tag, described by its `jsonschema` tag, and
// required unless the json tag says omitempty or omitzero; no other
// property is declared (additionalProperties false). A pointer field is an
// optional argument whose absence call can tell from a zero value; its
// schema type is its element's. refine adjusts the derived schema for what a
// Go type cannot say (bounds, defaults, a description with a configured
// value in it), in order.
//
// Call decodes the model's arguments into an In and runs call with it. What
// the model can correct is a ToolResult with IsError that names the
// argument, and call does not run: arguments that are not a JSON object, a
// required argument missing or null, a value of the wrong JSON type.
// Arguments the schema does not declare are ignored: models trained on other
// tool sets add fields such as "description", and a call should not fail
// over a field that changes nothing. The schema's bounds are what the model
// is told; call checks values itself, so its message can say what to do. A
// context already done is Call's Go error, and call does not run.
//
// NewTool panics when In is not a struct or its schema cannot be derived or
// does not resolve after refine: a programming error, found by the first
// test that builds the tool.
func NewTool[In any](name, description string, call func(ctx context.Context, in In) (ToolResult, error),
	refine ...func(*jsonschema.Schema)) Tool {
	a, err := argsFor[In](refine)
	if err != nil {
		panic(fmt.Sprintf("new tool %s: %v", name, err))
	}
	return Tool{
		Name:        name,
		Description: description,
		Schema:      a.schema,
		Call: func(ctx context.Context, args json.RawMessage) (ToolResult, error) {
			if err := ctx.Err(); err != nil {
				return ToolResult{}, fmt.Errorf("tool %s: %w", name, err)
			}
			var in In
			if msg := decodeArgs(args, &in, a.required); msg != "" {
				return ErrorResult("%s; %s takes %s", msg, name, a.shape), nil
			}
			return call(ctx, in)
		},
	}
}

// SchemaFor is the schema NewTool derives from In, as compact JSON, for a
// front end that offers a tool through another library (the MCP server).
// It panics as NewTool does.
func SchemaFor[In any](refine ...func(*jsonschema.Schema)) json.RawMessage {
	a, err := argsFor[In](refine)
	if err != nil {
		panic(fmt.Sprintf("schema for %v: %v", reflect.TypeFor[In](), err))
	}
	return a.schema
}

// args is what NewTool knows of an argument type.
type args struct {
	schema   json.RawMessage // compact JSON
	required []string
	// shape sums the arguments up for a model that got them wrong:
	// {"path": string, "offset"?: integer}.
	shape string
}

// derived holds the args of types built without refinements, by type: a
// tool rebuilt at every step (the skill tool, over the current catalog)
// would otherwise derive and check its schema every time (BenchmarkNewTool
// measures it).
var derived sync.Map // reflect.Type -> args

// argsFor derives, refines and checks In's schema. The caller must not
// modify what it returns.
func argsFor[In any](refine []func(*jsonschema.Schema)) (args, error) {
	if len(refine) > 0 {
		return deriveArgs[In](refine)
	}
	t := reflect.TypeFor[In]()
	if a, ok := derived.Load(t); ok {
		return a.(args), nil
	}
	a, err := deriveArgs[In](nil)
	if err == nil {
		derived.Store(t, a)
	}
	return a, err
}

func deriveArgs[In any](refine []func(*jsonschema.Schema)) (args, error) {
	if t := reflect.TypeFor[In](); t.Kind() != reflect.Struct {
		return args{}, fmt.Errorf("arguments type %v is not a struct", t)
	}
	s, err := jsonschema.For[In](nil)
	if err != nil {
		return args{}, err
	}
	notNull(s)
	if s.Properties == nil {
		// A tool without arguments still says it takes an object with none.
		s.Properties = map[string]*jsonschema.Schema{}
	}
	for _, f := range refine {
		f(s)
	}
	if _, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true}); err != nil {
		return args{}, err
	}
	data, err := json.Marshal(s)
	if err != nil {
		return args{}, err
	}
	return args{schema: data, required: s.Required, shape: shape(s)}, nil
}

// shape renders a schema's properties in order, an optional one marked
// with "?": {"path": string, "offset"?: integer}.
func shape(s *jsonschema.Schema) string {
	var b strings.Builder
	b.WriteString("{")
	for i, name := range s.PropertyOrder {
		if i > 0 {
			b.WriteString(", ")
		}
		opt := "?"
		if slices.Contains(s.Required, name) {
			opt = ""
		}
		typ := s.Properties[name].Type
		if typ == "" {
			typ = "any"
		}
		fmt.Fprintf(&b, "%q%s: %s", name, opt, typ)
	}
	b.WriteString("}")
	return b.String()
}

// notNull drops the "null" the derivation allows for pointers and slices:
// null is accepted (it decodes as absent), but a model is told the type it
// should send.
func notNull(s *jsonschema.Schema) {
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	for _, p := range s.Properties {
		notNull(p)
	}
	if s.Items != nil {
		notNull(s.Items)
	}
}

// decodeArgs decodes the model's arguments into dst, a pointer to a struct
// with json tags, and returns what is wrong with them for the model, or "".
// The required arguments must be present and not null.
func decodeArgs(raw json.RawMessage, dst any, required []string) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return fmt.Sprintf("invalid arguments: not a JSON object (%v)", err)
	}
	var missing []string
	for _, name := range required {
		if v, ok := fields[name]; !ok || string(v) == "null" {
			missing = append(missing, fmt.Sprintf("%q", name))
		}
	}
	switch len(missing) {
	case 0:
	case 1:
		return "invalid arguments: missing required argument " + missing[0]
	default:
		return "invalid arguments: missing required arguments " + strings.Join(missing, ", ")
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return fmt.Sprintf("invalid arguments: %q must be %s, not %s", te.Field, jsonType(te.Type), te.Value)
		}
		return fmt.Sprintf("invalid arguments: %v", err)
	}
	return ""
}

// jsonType names the JSON type a Go type decodes from, as the schema says it.
func jsonType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return t.String()
}
