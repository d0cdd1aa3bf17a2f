package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
)

// toolArgs builds a tool's arguments from the command line: one JSON
// object, "-" for a JSON object on stdin, or k=v pairs typed by the
// tool's input schema (numbers, booleans, arrays and objects as JSON;
// strings as typed).
func toolArgs(ctx context.Context, words []string, stdin io.Reader, schema json.RawMessage) (map[string]any, error) {
	if len(words) == 0 {
		return map[string]any{}, nil
	}
	if len(words) == 1 && (words[0] == "-" || strings.HasPrefix(strings.TrimSpace(words[0]), "{")) {
		data := []byte(words[0])
		if words[0] == "-" {
			var err error
			data, err = readAllContext(ctx, stdin, 256<<20)
			if ctx.Err() != nil {
				return nil, err // a signal: its exit code, not a usage error
			}
			if err != nil {
				return nil, usageErr("reading arguments from stdin: %v", err)
			}
		}
		var args map[string]any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&args); err != nil || args == nil {
			return nil, usageErr("arguments are not a JSON object: %v", errOrNull(err))
		}
		if err := onlyOne(dec); err != nil {
			return nil, usageErr("arguments: %v", err)
		}
		return args, nil
	}
	types := propertyTypes(schema)
	args := map[string]any{}
	for _, w := range words {
		k, v, ok := strings.Cut(w, "=")
		if !ok || k == "" {
			return nil, usageErr("argument %q is not k=v (or give one JSON object)", w)
		}
		if _, dup := args[k]; dup {
			return nil, usageErr("argument %q given twice", k)
		}
		val, err := typed(k, v, types[k])
		if err != nil {
			return nil, err
		}
		args[k] = val
	}
	return args, nil
}

func errOrNull(err error) any {
	if err == nil {
		return "null"
	}
	return err
}

// propertyTypes maps each top-level property of a JSON schema to its type
// ("" when it has none or several).
func propertyTypes(schema json.RawMessage) map[string]string {
	var s struct {
		Properties map[string]struct {
			Type json.RawMessage `json:"type"`
		} `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	out := map[string]string{}
	for name, p := range s.Properties {
		var t string
		if json.Unmarshal(p.Type, &t) == nil {
			out[name] = t
			continue
		}
		var ts []string
		if json.Unmarshal(p.Type, &ts) == nil {
			for _, x := range ts {
				if x != "null" {
					out[name] = x
					break
				}
			}
		}
	}
	return out
}

// typed converts a k=v value by the schema type; without a type, a value
// that reads as a JSON number, boolean, array or object stays a string.
func typed(key, v, typ string) (any, error) {
	switch typ {
	case "string", "":
		return v, nil
	case "integer":
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || !isJSONNumber(v) || strings.ContainsAny(v, ".eE") {
			return nil, usageErr("argument %s wants an integer, not %q", key, v)
		}
		return n, nil
	case "number":
		// JSON's numbers only: not NaN, Inf, 1_0, 0x10 or .5, which Go
		// would read.
		if !isJSONNumber(v) {
			return nil, usageErr("argument %s wants a number, not %q", key, v)
		}
		return json.Number(v), nil
	case "boolean":
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, usageErr("argument %s wants true or false, not %q", key, v)
		}
		return b, nil
	default: // array, object, null
		var x any
		dec := json.NewDecoder(strings.NewReader(v))
		dec.UseNumber()
		if err := dec.Decode(&x); err != nil {
			return nil, usageErr("argument %s wants JSON (%s): %v", key, typ, err)
		}
		if err := onlyOne(dec); err != nil {
			return nil, usageErr("argument %s: %v", key, err)
		}
		return x, nil
	}
}

// onlyOne says whether a decoder that read one JSON value has nothing but
// white space after it.
func onlyOne(dec *json.Decoder) error {
	var extra any
	if err := dec.Decode(&extra); err != io.EOF {
		return errors.New("text after the JSON value; give one JSON value")
	}
	return nil
}

// isJSONNumber reports whether v is a number as JSON writes one:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func isJSONNumber(v string) bool {
	i := 0
	digits := func() int {
		n := 0
		for i < len(v) && v[i] >= '0' && v[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(v) && v[i] == '-' {
		i++
	}
	switch {
	case i < len(v) && v[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(v) && v[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(v) && (v[i] == 'e' || v[i] == 'E') {
		i++
		if i < len(v) && (v[i] == '+' || v[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(v)
}

// readAllContext reads r to its end, at most limit bytes, or until ctx
// ends: a signal does not wait for a stdin that nobody writes to. The
// read then goes on in its goroutine until r gives data or ends (after a
// signal the process exits; an embedder's reader should end with it).
func readAllContext(ctx context.Context, r io.Reader, limit int64) ([]byte, error) {
	type result struct {
		data []byte
		err  error
	}
	got := make(chan result, 1)
	go func() {
		data, err := io.ReadAll(io.LimitReader(r, limit))
		got <- result{data, err}
	}()
	select {
	case res := <-got:
		return res.data, res.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
