package jsonrpc

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
)

// appendSimple appends v as encoding/json (without HTML escaping) would
// encode it, for the shapes tool arguments most often take: a
// map[string]string, or a map[string]any whose values are strings,
// booleans, nil, ints, int64s or finite float64s. It reports false, and
// appends nothing, for anything else: encoding/json does that, with the
// reflection and allocations these shapes do without.
func appendSimple(dst []byte, v any) ([]byte, bool) {
	switch m := v.(type) {
	case map[string]string:
		return appendObject(dst, m, AppendString), true
	case map[string]any:
		for _, x := range m {
			if !simpleValue(x) {
				return dst, false
			}
		}
		return appendObject(dst, m, appendValue), true
	}
	return dst, false
}

// appendObject appends m as encoding/json encodes a map: its keys sorted,
// each value by value (null for a nil map).
func appendObject[V any](dst []byte, m map[string]V, value func([]byte, V) []byte) []byte {
	if m == nil {
		return append(dst, "null"...)
	}
	var small [16]string // the keys of most maps, sorted here
	keys := small[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, k)
		dst = append(dst, ':')
		dst = value(dst, m[k])
	}
	return append(dst, '}')
}

// simpleValue reports whether appendValue encodes x.
func simpleValue(x any) bool {
	switch x := x.(type) {
	case nil, string, bool, int, int64:
		return true
	case float64:
		return !math.IsInf(x, 0) && !math.IsNaN(x) // encoding/json refuses those
	}
	return false
}

// appendValue appends a value simpleValue accepts, as encoding/json does.
func appendValue(dst []byte, x any) []byte {
	switch x := x.(type) {
	case string:
		return AppendString(dst, x)
	case bool:
		return strconv.AppendBool(dst, x)
	case int:
		return strconv.AppendInt(dst, int64(x), 10)
	case int64:
		return strconv.AppendInt(dst, x, 10)
	case float64:
		return appendFloat(dst, x)
	}
	return append(dst, "null"...)
}

// appendFloat appends a finite float64 as encoding/json does: the
// shortest form, in exponent form only for very small or large values,
// with a one-digit negative exponent written as such (1e-7, not 1e-07).
func appendFloat(dst []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

// sizeHint guesses the encoded size of a simple map, to allocate once.
func sizeHint(v any) int {
	n := 2
	switch m := v.(type) {
	case map[string]string:
		for k, x := range m {
			n += len(k) + len(x) + 6
		}
	case map[string]any:
		for k, x := range m {
			n += len(k) + 6
			if s, ok := x.(string); ok {
				n += len(s)
			} else {
				n += 24
			}
		}
	}
	return n
}

// marshalSimple is appendSimple into a slice of its own.
func marshalSimple(v any) (json.RawMessage, bool) {
	switch m := v.(type) {
	case map[string]string:
	case map[string]any:
		for _, x := range m {
			if !simpleValue(x) {
				return nil, false
			}
		}
	default:
		return nil, false
	}
	b, ok := appendSimple(make([]byte, 0, sizeHint(v)), v)
	if !ok {
		return nil, false
	}
	return b, true
}
