package jsonrpc

import (
	"math"
	"testing"
)

// TestMarshalSimpleMatchesEncodingJSON checks the reflection-free
// encoding of common argument maps against encoding/json, byte for byte.
func TestMarshalSimpleMatchesEncodingJSON(t *testing.T) {
	cases := []any{
		map[string]string{},
		map[string]string{"text": "hello", "a": "b<>&", "é": "\u2028\x01\"\\", "": ""},
		map[string]any{"n": 1.5, "i": 3, "j": int64(-9), "b": true, "nil": nil, "s": "x"},
		map[string]any{"tiny": 1e-7, "big": 1e21, "neg": -0.0, "max": math.MaxFloat64, "min": math.SmallestNonzeroFloat64, "int": 123456789.0},
		map[string]string(nil),
		map[string]any(nil),
	}
	for i := range 20 { // more keys than the sorting array holds
		cases = append(cases, map[string]string{string(rune('a' + i)): "v"})
	}
	many := map[string]string{}
	for i := range 40 {
		many[string(rune('z'-i%26))+string(rune('a'+i))] = "v"
	}
	cases = append(cases, many)
	for _, v := range cases {
		want, err := marshalNoEscape(v)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := marshalSimple(v)
		if !ok || string(got) != string(want) {
			t.Errorf("marshalSimple(%#v) = %s, %v; encoding/json: %s", v, got, ok, want)
		}
	}
	for _, v := range []any{map[string]any{"x": []int{1}}, map[string]any{"f": math.NaN()}, map[string]int{"a": 1}, struct{}{}} {
		if _, ok := marshalSimple(v); ok {
			t.Errorf("marshalSimple(%#v) took a shape it does not encode", v)
		}
	}
}

func FuzzMarshalSimple(f *testing.F) {
	f.Add("text", "hello", 1.5, int64(3), true)
	f.Add("a\u2028", "\x00<\xff", 1e-7, int64(-1), false)
	f.Fuzz(func(t *testing.T, k, s string, x float64, n int64, b bool) {
		for _, v := range []any{
			map[string]string{k: s, s: k},
			map[string]any{k: s, s + "1": x, "n": n, "b": b, "i": int(n), "z": nil},
		} {
			want, err := marshalNoEscape(v)
			got, ok := marshalSimple(v)
			if err != nil {
				if ok {
					t.Fatalf("marshalSimple(%#v) = %s; encoding/json fails: %v", v, got, err)
				}
				continue
			}
			if !ok || string(got) != string(want) {
				t.Fatalf("marshalSimple(%#v) = %s, %v; encoding/json: %s", v, got, ok, want)
			}
		}
	})
}
