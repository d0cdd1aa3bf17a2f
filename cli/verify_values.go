package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpwire/mcpwire/protocol"
)

// A valueDiff is one place where a live answer differs from the
// recorded one.
type valueDiff struct {
	Path string `json:"path"` // result.content[0].text, error.code, …
	// Change is "changed", "missing" (recorded, not in the live answer)
	// or "added" (in the live answer only).
	Change   string          `json:"change"`
	Recorded json.RawMessage `json:"recorded,omitempty"`
	Live     json.RawMessage `json:"live,omitempty"`
}

// maxValueBytes bounds a value shown in a valueDiff: a longer one is
// shown as a string that gives its size.
const maxValueBytes = 2048

// compareCall sends a recorded request again and compares the answers.
func (v *verifier) compareCall(ctx context.Context, r *recordedRequest, res *verifyResult) error {
	live, callErr := v.send(ctx, r)
	if skip, ok := callErr.(skipError); ok {
		res.Status, res.Note = "skipped", string(skip)
		return nil
	}
	want := map[string]any{}
	if r.err != nil {
		want["error"] = errDoc(r.err)
	} else {
		var err error
		if want["result"], err = normalizeAnswer(r.method, r.result); err != nil {
			return fmt.Errorf("the recording's %s (line %d): %v", r.method, r.line, err)
		}
	}
	got := map[string]any{}
	switch je := liveError(callErr); {
	case je != nil:
		got["error"] = errDoc(je)
	case callErr != nil:
		// No answer to compare: the session failed (a timeout, a closed
		// connection, a result mcpwire cannot read).
		res.Note = callErr.Error()
	default:
		b, err := json.Marshal(live)
		if err != nil {
			return err
		}
		if got["result"], err = normalizeAnswer(r.method, b); err != nil {
			return err
		}
	}
	d := &valueDiffer{ignore: v.ignore}
	d.compare(nil, want, got)
	res.Values, res.ValueCount = nonNil(d.diffs), d.count
	res.Status = "same"
	if d.count > 0 || callErr != nil && liveError(callErr) == nil {
		res.Status = "different"
	}
	return nil
}

// skipError is a request verify does not send again, and why.
type skipError string

func (e skipError) Error() string { return string(e) }

// send sends a recorded request to the live server through the
// session's typed methods, so that the session speaks its era (headers,
// multi round-trip requests) as for any command.
func (v *verifier) send(ctx context.Context, r *recordedRequest) (any, error) {
	var p struct {
		Name      string          `json:"name"`
		URI       string          `json:"uri"`
		Level     string          `json:"level"`
		Arguments json.RawMessage `json:"arguments"`
		Ref       protocol.Reference
		Argument  struct{ Name, Value string }
		Context   struct {
			Arguments map[string]string `json:"arguments"`
		} `json:"context"`
	}
	if len(r.params) > 0 && json.Unmarshal(r.params, &p) != nil {
		return nil, skipError("its parameters are not an object")
	}
	switch r.method {
	case "tools/call":
		var args any
		if len(p.Arguments) > 0 && string(p.Arguments) != "null" {
			args = p.Arguments
		}
		return v.conn.CallTool(ctx, p.Name, args, nil)
	case "resources/read":
		return v.conn.ReadResource(ctx, p.URI)
	case "prompts/get":
		var args map[string]string
		if len(p.Arguments) > 0 && json.Unmarshal(p.Arguments, &args) != nil {
			return nil, skipError("its arguments are not strings")
		}
		return v.conn.GetPrompt(ctx, p.Name, args)
	case "completion/complete":
		return v.conn.Complete(ctx, p.Ref, p.Argument.Name, p.Argument.Value, p.Context.Arguments)
	case "ping":
		return struct{}{}, v.conn.Ping(ctx)
	case "logging/setLevel":
		return struct{}{}, v.conn.SetLogLevel(ctx, p.Level)
	case "resources/subscribe":
		return struct{}{}, v.conn.Subscribe(ctx, p.URI)
	case "resources/unsubscribe":
		return struct{}{}, v.conn.Unsubscribe(ctx, p.URI)
	}
	return nil, skipError("verify does not send " + r.method + " again: its answer belongs to the recorded session")
}

// normalizeAnswer is a result as compared: decoded as mcpwire decodes
// it for its method, whatever era carried it, without the envelope of
// the era (resultType, the serverInfo in _meta: the server's identity is
// compared with the lists), numbers kept as written.
func normalizeAnswer(method string, raw json.RawMessage) (any, error) {
	var typed any
	switch method {
	case "tools/call":
		typed = &protocol.CallToolResult{}
	case "resources/read":
		typed = &protocol.ReadResourceResult{}
	case "prompts/get":
		typed = &protocol.GetPromptResult{}
	case "completion/complete":
		typed = &protocol.CompleteResult{}
	}
	if typed != nil {
		if err := json.Unmarshal(raw, typed); err != nil {
			return nil, err
		}
		var err error
		if raw, err = json.Marshal(typed); err != nil {
			return nil, err
		}
	}
	v, err := decodeJSON(raw)
	if err != nil {
		return nil, err
	}
	if m, ok := v.(map[string]any); ok {
		delete(m, "resultType")
		if meta, ok := m["_meta"].(map[string]any); ok {
			delete(meta, "io.modelcontextprotocol/serverInfo")
			if len(meta) == 0 {
				delete(m, "_meta")
			}
		}
	}
	return v, nil
}

// A valueDiffer walks two JSON values side by side.
type valueDiffer struct {
	ignore []ignorePath
	diffs  []valueDiff
	count  int
}

// A pathSeg is one step of a path: a member's name, or an index.
type pathSeg struct {
	_ [0]func() // not comparable: no equality function in the binary

	key   string
	index int // -1 for a member
}

func (d *valueDiffer) compare(path []pathSeg, a, b any) {
	if d.ignored(path) {
		return
	}
	switch av := a.(type) {
	case map[string]any:
		if bv, ok := b.(map[string]any); ok {
			keys := make([]string, 0, len(av)+len(bv))
			for k := range av {
				keys = append(keys, k)
			}
			for k := range bv {
				if _, ok := av[k]; !ok {
					keys = append(keys, k)
				}
			}
			slices.Sort(keys)
			for _, k := range keys {
				x, inA := av[k]
				y, inB := bv[k]
				p := append(slices.Clip(path), pathSeg{key: k, index: -1})
				switch {
				case !inA:
					d.add(p, "added", nil, y)
				case !inB:
					d.add(p, "missing", x, nil)
				default:
					d.compare(p, x, y)
				}
			}
			return
		}
	case []any:
		if bv, ok := b.([]any); ok {
			for i := range max(len(av), len(bv)) {
				p := append(slices.Clip(path), pathSeg{index: i})
				switch {
				case i >= len(av):
					d.add(p, "added", nil, bv[i])
				case i >= len(bv):
					d.add(p, "missing", av[i], nil)
				default:
					d.compare(p, av[i], bv[i])
				}
			}
			return
		}
	}
	if !sameLeaf(a, b) {
		d.add(path, "changed", a, b)
	}
}

// sameLeaf compares two values that are not both objects or both lists:
// numbers by value (1 and 1.0 are the same), the rest exactly.
func sameLeaf(a, b any) bool {
	an, aok := a.(json.Number)
	bn, bok := b.(json.Number)
	if aok && bok {
		if an == bn {
			return true
		}
		x, err1 := strconv.ParseFloat(string(an), 64)
		y, err2 := strconv.ParseFloat(string(bn), 64)
		return err1 == nil && err2 == nil && x == y
	}
	switch a.(type) {
	case map[string]any, []any:
		return false
	}
	switch b.(type) {
	case map[string]any, []any:
		return false
	}
	return a == b
}

func (d *valueDiffer) add(path []pathSeg, change string, a, b any) {
	if d.ignored(path) {
		return
	}
	d.count++
	if len(d.diffs) == maxValueDiffs {
		return
	}
	vd := valueDiff{Path: pathString(path), Change: change}
	if change != "added" {
		vd.Recorded = shownValue(a)
	}
	if change != "missing" {
		vd.Live = shownValue(b)
	}
	d.diffs = append(d.diffs, vd)
}

// shownValue is v as JSON, or a string giving its size past
// maxValueBytes.
func shownValue(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(`null`)
	}
	if len(b) > maxValueBytes {
		b, _ = json.Marshal(fmt.Sprintf("(%d bytes of JSON)", len(b)))
	}
	return b
}

// plainKey reports whether a path writes member name k after a dot:
// `^[A-Za-z_$][A-Za-z0-9_$-]*$` (by hand: the binary links no regexp).
func plainKey(k string) bool {
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '_' || c == '$' || i > 0 && (c >= '0' && c <= '9' || c == '-')) {
			return false
		}
	}
	return k != ""
}

// pathString spells a path: result.content[0].text, result._meta["a/b"].
func pathString(path []pathSeg) string {
	var b strings.Builder
	for i, s := range path {
		switch {
		case s.index >= 0:
			fmt.Fprintf(&b, "[%d]", s.index)
		case plainKey(s.key):
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.key)
		default:
			q, _ := json.Marshal(s.key)
			fmt.Fprintf(&b, "[%s]", q)
		}
	}
	return b.String()
}

// An ignorePath is an --ignore PATH: its steps, where a key "*" or an
// index -2 ([*]) matches any.
type ignorePath []pathSeg

// ignored says whether an --ignore path names path.
func (d *valueDiffer) ignored(path []pathSeg) bool {
	for _, ip := range d.ignore {
		if len(ip) != len(path) {
			continue
		}
		match := true
		for i, s := range ip {
			p := path[i]
			switch {
			case s.index == -2:
				match = p.index >= 0
			case s.index >= 0:
				match = p.index == s.index
			default:
				match = p.index < 0 && (s.key == "*" || s.key == p.key)
			}
			if !match {
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

// parseIgnorePaths reads --ignore paths: steps .name, ["name"], [N],
// [*] and .* after a first name; a path that does not start with result
// or error is one inside the result (_meta is result._meta).
func parseIgnorePaths(words []string) ([]ignorePath, error) {
	var out []ignorePath
	for _, w := range words {
		p, err := parseIgnorePath(w)
		if err != nil {
			return nil, usageErr("--ignore %q: %v (write it as result.content[0].text, error.message or _meta)", w, err)
		}
		if p[0].key != "result" && p[0].key != "error" {
			p = append(ignorePath{{key: "result", index: -1}}, p...)
		}
		out = append(out, p)
	}
	return out, nil
}

func parseIgnorePath(s string) (ignorePath, error) {
	var p ignorePath
	for i := 0; i < len(s); {
		switch {
		case s[i] == '[':
			end := strings.IndexByte(s[i:], ']')
			if strings.HasPrefix(s[i:], `["`) {
				end = strings.Index(s[i:], `"]`) + 1
			}
			if end <= 0 {
				return nil, fmt.Errorf("a [ without its ]")
			}
			inner := s[i+1 : i+end]
			i += end + 1
			switch n, err := strconv.Atoi(inner); {
			case inner == "*":
				p = append(p, pathSeg{index: -2})
			case err == nil && n >= 0:
				p = append(p, pathSeg{index: n})
			case strings.HasPrefix(inner, `"`):
				var key string
				if err := json.Unmarshal([]byte(inner), &key); err != nil {
					return nil, fmt.Errorf("%s is not a quoted name", inner)
				}
				p = append(p, pathSeg{key: key, index: -1})
			default:
				return nil, fmt.Errorf("[%s] is neither an index, [*] nor a quoted name", inner)
			}
		case s[i] == '.' && len(p) > 0:
			i++
			fallthrough
		default:
			j := i
			for j < len(s) && s[j] != '.' && s[j] != '[' {
				j++
			}
			if j == i {
				return nil, fmt.Errorf("an empty name at byte %d", i)
			}
			p = append(p, pathSeg{key: s[i:j], index: -1})
			i = j
		}
	}
	if len(p) == 0 {
		return nil, fmt.Errorf("an empty path")
	}
	return p, nil
}
