package server

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/mcpwire/mcpwire/jsonrpc/jsonscan"
)

// Every modern request's _meta, and every proxied call's params, are read
// here over jsonscan rather than through encoding/json's reflection (which
// cost a third of a proxied call). The params were checked as JSON by
// jsonrpc; a member name with an escape in it, or a value of the wrong
// kind, sends the caller to the encoding/json path, which says what is
// wrong as before.

// members returns the raw values of the members of the object obj named
// in names (the last of a name, as encoding/json keeps it), in the order
// of names; ok is false when obj is not an object or a member's name has
// an escape.
func members(obj []byte, names ...string) (vals [][]byte, ok bool) {
	obj = bytes.TrimLeft(obj, " \t\r\n")
	if len(obj) == 0 || obj[0] != '{' {
		return nil, false
	}
	vals = make([][]byte, len(names))
	ok = true
	jsonscan.Members(obj, func(key, val []byte) bool {
		if bytes.IndexByte(key, '\\') >= 0 {
			ok = false
			return false
		}
		if i := slices.Index(names, string(key)); i >= 0 {
			vals[i] = val
		}
		return true
	})
	return vals, ok
}

// isNull reports whether a raw value is absent or null.
func isNull(v []byte) bool { return v == nil || string(v) == "null" }

// fastHasMeta is hasModernMeta without reflection; ok is false when
// only encoding/json can tell.
func fastHasMeta(params []byte) (has, ok bool) {
	top, ok := members(params, "_meta")
	if !ok {
		return false, false
	}
	if isNull(top[0]) || top[0][0] != '{' {
		return false, true
	}
	v, ok := members(top[0], MetaVersion)
	return v[0] != nil, ok
}

// fastModern is parseModern's reading of params without reflection; ok
// is false when the slow path must read them (an escape in a name, a
// member of the wrong kind, an error to word).
func (s *Server) fastModern(params []byte) (mr *ModernRequest, ok bool) {
	top, ok := members(params, "_meta", "inputResponses", "requestState")
	if !ok || isNull(top[0]) || top[0][0] != '{' {
		return nil, false
	}
	meta, ok := members(top[0], MetaVersion, MetaCapabilities, MetaLogLevel)
	if !ok || len(meta[0]) < 2 || meta[0][0] != '"' || len(meta[1]) == 0 || meta[1][0] != '{' {
		return nil, false
	}
	mr = &ModernRequest{level: -1}
	var err error
	if mr.Version, err = jsonscan.Unquote(meta[0]); err != nil || mr.Version != ModernVersion {
		return nil, false
	}
	if !fastCaps(meta[1], &mr.Caps) && json.Unmarshal(meta[1], &mr.Caps) != nil {
		return nil, false
	}
	if meta[2] != nil {
		if len(meta[2]) < 2 || meta[2][0] != '"' {
			return nil, false
		}
		level, err := jsonscan.Unquote(meta[2])
		if mr.level = slices.Index(LogLevels(), level); err != nil || mr.level < 0 {
			return nil, false
		}
	}
	if !isNull(top[1]) {
		if top[1][0] != '{' {
			return nil, false
		}
		mr.Responses = map[string]json.RawMessage{}
		if !eachMember(top[1], func(k string, v []byte) { mr.Responses[k] = bytes.Clone(v) }) {
			return nil, false
		}
	}
	if !isNull(top[2]) {
		if top[2][0] != '"' {
			return nil, false
		}
		st, err := jsonscan.Unquote(top[2])
		if err != nil {
			return nil, false
		}
		mr.State = &st
	}
	return mr, true
}

// fastCaps reads client capabilities (an object) into caps as
// encoding/json does; false when it cannot tell (a name encoding/json
// would match with another case, an escape, a member twice, a value of
// the wrong kind), caps then untouched.
func fastCaps(obj []byte, caps *ClientCaps) bool {
	var c ClientCaps
	var seen [4]bool
	bad := false
	ok := eachMember(obj, func(k string, v []byte) {
		var field **json.RawMessage
		i := 0
		switch k {
		case "roots":
			field = &c.Roots
		case "sampling":
			field, i = &c.Sampling, 1
		case "elicitation":
			field, i = &c.Elicitation, 2
		case "extensions":
			i = 3
		default:
			bad = bad || isCapName(k)
			return
		}
		bad = bad || seen[i]
		seen[i] = true
		switch {
		case isNull(v):
		case field != nil:
			raw := json.RawMessage(bytes.Clone(v))
			*field = &raw
		case v[0] != '{':
			bad = true
		default:
			c.Extensions = map[string]json.RawMessage{}
			bad = bad || !eachMember(v, func(ek string, ev []byte) { c.Extensions[ek] = bytes.Clone(ev) })
		}
	})
	if !ok || bad {
		return false
	}
	*caps = c
	return true
}

// isCapName reports whether encoding/json would take k for one of
// ClientCaps' members.
func isCapName(k string) bool {
	for _, n := range []string{"roots", "sampling", "elicitation", "extensions"} {
		if strings.EqualFold(k, n) {
			return true
		}
	}
	return false
}

// eachMember gives fn every member of the object obj; false when a name
// has an escape.
func eachMember(obj []byte, fn func(key string, val []byte)) bool {
	ok := true
	jsonscan.Members(obj, func(key, val []byte) bool {
		if bytes.IndexByte(key, '\\') >= 0 {
			ok = false
			return false
		}
		fn(string(key), val)
		return true
	})
	return ok
}
