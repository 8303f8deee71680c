package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"reflect"
	"strings"
	"syscall"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/workfs"
)

// decodeArgs decodes the model's arguments into dst, a pointer to a struct
// with json tags, and returns what is wrong with them for the model, or "".
// Required fields must be present and not null. Unknown fields are ignored:
// models trained on other tool sets add fields such as "description", and a
// call should not fail over a field that changes nothing.
func decodeArgs(raw json.RawMessage, dst any, required ...string) string {
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
	}
	return t.String()
}

// fsResult tells the model why a file operation on path failed: a refusal
// with the guard's reason (outside the work dir, or a protected path), a
// missing file, or the error itself.
func fsResult(path string, err error) contract.ToolResult {
	var esc *workfs.EscapeError
	var prot *workfs.ProtectedError
	switch {
	case errors.As(err, &esc):
		return contract.ErrorResult("refused: %q is outside the work dir %s: %s. File tools only reach files inside the work dir.",
			path, esc.Dir, esc.Reason)
	case errors.As(err, &prot):
		return contract.ErrorResult("refused: %q is in %s, which is read-only for you: %s, %s and %s and %s (except their %s folders) are protected. Read them if you need to; change them only by asking the user.",
			path, prot.Protected, workfs.ConfigName, workfs.GitName, workfs.StateDirs[0], workfs.StateDirs[1], workfs.SkillsName)
	case errors.Is(err, fs.ErrNotExist):
		return contract.ErrorResult("no such file: %q", path)
	case errors.Is(err, fs.ErrPermission):
		return contract.ErrorResult("permission denied: %q", path)
	case errors.Is(err, syscall.ENOTDIR):
		return contract.ErrorResult("%q: a parent of it is a file, not a directory", path)
	case errors.Is(err, syscall.EISDIR):
		return contract.ErrorResult("%q is a directory", path)
	}
	return contract.ErrorResult("%v", err)
}
