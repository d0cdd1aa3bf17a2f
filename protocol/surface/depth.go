package surface

import (
	"encoding/json"
	"fmt"
)

// MaxDepth is how deeply a schema (or the capabilities) of a snapshot
// may nest: JSON objects and arrays inside each other, counting the
// schema itself as 1. A property nested in a property of an object
// schema is at depth 5 ({"properties": {"a": {"properties": {"b": {…}}}}}).
// Deeper schemas are refused with a *DepthError, so that the work and
// memory of a diff stay proportional to the snapshots' size.
const MaxDepth = 128

// A DepthError says that a schema nests deeper than MaxDepth.
type DepthError struct {
	Tool  string // the tool, or "" for the capabilities
	Field string // "inputSchema", "outputSchema" or "capabilities"
	Depth int    // how deep it nests, counted up to MaxDepth+1
}

func (e *DepthError) Error() string {
	what := e.Field
	if e.Tool != "" {
		what = fmt.Sprintf("tool %q: %s", e.Tool, e.Field)
	}
	return fmt.Sprintf("%s nests deeper than %d levels of JSON objects and arrays (mcpwire compares schemas up to that depth)", what, MaxDepth)
}

// check refuses a snapshot whose schemas nest deeper than MaxDepth; the
// error starts with prefix.
func (s *Snapshot) check(prefix string) error {
	wrap := func(e *DepthError) error { return fmt.Errorf("%s%w", prefix, e) }
	if d := jsonDepth(s.Capabilities); d > MaxDepth {
		return wrap(&DepthError{Field: "capabilities", Depth: d})
	}
	for _, t := range s.Tools {
		if d := jsonDepth(t.InputSchema); d > MaxDepth {
			return wrap(&DepthError{Tool: t.Name, Field: "inputSchema", Depth: d})
		}
		if d := jsonDepth(t.OutputSchema); d > MaxDepth {
			return wrap(&DepthError{Tool: t.Name, Field: "outputSchema", Depth: d})
		}
	}
	return nil
}

// jsonDepth is how deeply raw JSON nests, counted up to MaxDepth+1: one
// pass over the bytes, no allocation. Brackets inside strings do not
// count; raw that is not JSON gets some count, which decoding judges.
func jsonDepth(raw json.RawMessage) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, c := range raw {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			if depth > deepest {
				deepest = depth
				if deepest > MaxDepth {
					return deepest
				}
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}
