package cli

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
)

// A replayMatch says how a request is matched to a recorded one: always
// by method and params, _meta left out (ids, revision, client info and
// progress tokens differ from run to run); fields named by ignore left
// out too (a name at any depth, or a dotted path from the params); and,
// when loose, a request that matches none gets the answer of the closest
// recorded one with the same method and target (tool, prompt, uri).
type replayMatch struct {
	loose  bool
	ignore []string
}

// strip is params without the ignored fields, for comparing.
func (m *replayMatch) strip(params map[string]any) map[string]any {
	if len(m.ignore) == 0 || params == nil {
		return params
	}
	out := copyTree(params).(map[string]any)
	for _, name := range m.ignore {
		if path := strings.Split(name, "."); len(path) > 1 {
			dropPath(out, path)
		} else {
			dropName(out, name)
		}
	}
	return out
}

// copyTree copies the maps and slices of a decoded JSON value.
func copyTree(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = copyTree(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = copyTree(e)
		}
		return out
	}
	return v
}

// dropPath deletes the member at path (object members only).
func dropPath(m map[string]any, path []string) {
	for len(path) > 1 {
		next, ok := m[path[0]].(map[string]any)
		if !ok {
			return
		}
		m, path = next, path[1:]
	}
	delete(m, path[0])
}

// dropName deletes every member called name, at any depth.
func dropName(v any, name string) {
	switch v := v.(type) {
	case map[string]any:
		delete(v, name)
		for _, e := range v {
			dropName(e, name)
		}
	case []any:
		for _, e := range v {
			dropName(e, name)
		}
	}
}

// same reports whether a request's params match a recorded call's.
func (m *replayMatch) same(c *recordedCall, params map[string]any, raw string) bool {
	if c.params == nil || params == nil {
		return c.params == nil && params == nil && c.raw == raw
	}
	return reflect.DeepEqual(m.strip(c.params), m.strip(params))
}

// aboutOf is what a request is about: a tool's or a prompt's name, a
// resource's uri, a completion's ref.
func aboutOf(params map[string]any) any {
	for _, k := range []string{"name", "uri", "ref"} {
		if v, ok := params[k]; ok {
			return v
		}
	}
	return nil
}

// likeness scores how close a recorded call is to a request of the same
// method: the same target first, then members (flattened) that agree,
// less those that differ.
func likeness(c *recordedCall, params map[string]any) int {
	score := 0
	if t := aboutOf(params); t != nil && reflect.DeepEqual(t, aboutOf(c.params)) {
		score += 1 << 20
	}
	a, b := map[string]string{}, map[string]string{}
	flatten("", c.params, a, 0)
	flatten("", params, b, 0)
	for k, v := range b {
		if w, ok := a[k]; ok && w == v {
			score++
		} else {
			score--
		}
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			score--
		}
	}
	return score
}

// flatten maps each leaf of v (to a small depth) to its JSON text.
func flatten(prefix string, v any, out map[string]string, depth int) {
	if m, ok := v.(map[string]any); ok && depth < 4 {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			flatten(prefix+"."+k, m[k], out, depth+1)
		}
		return
	}
	b, _ := json.Marshal(v)
	out[prefix] = string(b)
}

// paramsText is a recorded call's params as one line, for a message.
func (c *recordedCall) paramsText() string {
	if c.params == nil {
		return c.raw
	}
	b, _ := json.Marshal(c.params) // maps encode with sorted keys
	return string(b)
}
