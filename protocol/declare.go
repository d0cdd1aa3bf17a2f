package protocol

import (
	"bytes"
	"context"
	"encoding/json"
)

// Declaring another client's capabilities: a proxy's client declares to
// its server what its host declared (2025-11-25/basic/lifecycle.mdx,
// "Capability Negotiation"), at initialize (Options.Declare) and, in the
// modern era, on each request (2026-07-28/basic/index.mdx: the
// capabilities are per request, in _meta).

// maxVariants bounds the encoded _meta kept per declared object.
const maxVariants = 16

type declaredKey struct{}

// WithDeclared returns ctx whose requests declare caps, another
// client's capabilities object (as Options.Declare), in place of the
// session's: the modern era's per-request capabilities. A legacy
// session declared its capabilities at initialize and ignores it.
func WithDeclared(ctx context.Context, caps json.RawMessage) context.Context {
	return context.WithValue(ctx, declaredKey{}, caps)
}

// declaredIn is the object WithDeclared put in ctx, nil if none.
func declaredIn(ctx context.Context) json.RawMessage {
	d, _ := ctx.Value(declaredKey{}).(json.RawMessage)
	return d
}

// declaring is m declaring d (WithDeclared) instead: made once per
// object, kept while there are few.
func (m *modernState) declaring(s *Session, d json.RawMessage) *modernState {
	m.mu.Lock()
	v := m.variants[string(d)]
	m.mu.Unlock()
	if v != nil {
		return v
	}
	v, err := s.encodeModernState(m.version, declaredCapabilities(m.version, d))
	if err != nil {
		return m
	}
	m.mu.Lock()
	if m.variants == nil || len(m.variants) >= maxVariants {
		m.variants = map[string]*modernState{}
	}
	m.variants[string(d)] = v
	m.mu.Unlock()
	return v
}

// declaredCapabilities is what a session declares for another client
// whose capabilities object is raw: its roots, sampling and elicitation
// as it wrote them, in the forms of version (the modern era's roots has
// no listChanged; elicitation before 2025-11-25 has no modes), and its
// extensions with the session's own (the modern era's tasks and skills,
// which the session follows itself). Anything else (tasks,
// experimental) is the other client's business with its own peer.
func declaredCapabilities(version string, raw json.RawMessage) map[string]any {
	var in struct {
		Roots       json.RawMessage            `json:"roots"`
		Sampling    json.RawMessage            `json:"sampling"`
		Elicitation json.RawMessage            `json:"elicitation"`
		Extensions  map[string]json.RawMessage `json:"extensions"`
	}
	_ = json.Unmarshal(raw, &in)
	modern := EraOf(version) == EraModern
	caps := map[string]any{}
	if isObject(in.Roots) {
		caps["roots"] = in.Roots
		if modern {
			caps["roots"] = struct{}{}
		}
	}
	if isObject(in.Sampling) {
		caps["sampling"] = in.Sampling
	}
	if isObject(in.Elicitation) {
		caps["elicitation"] = in.Elicitation
		if !hasElicitationModes(version) {
			caps["elicitation"] = struct{}{}
		}
	}
	ext := map[string]any{}
	for k, v := range in.Extensions {
		if isObject(v) {
			ext[k] = v
		}
	}
	if modern {
		ext[ExtTasks], ext[ExtSkills] = struct{}{}, struct{}{}
	}
	if len(ext) > 0 {
		caps["extensions"] = ext
	}
	return caps
}

// isObject reports whether raw is a JSON object.
func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	return len(raw) > 0 && raw[0] == '{'
}
