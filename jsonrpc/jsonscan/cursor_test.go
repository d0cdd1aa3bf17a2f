package jsonscan

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

func TestCursor(t *testing.T) {
	c := NewCursor([]byte(` { "a" : [1, {"b":"}"}, null], "c\u0064":"x\ty" , "e":{}, "f": null, "g": true } `))
	var keys, raws []string
	var cd string
	var elems []string
	err := c.Object(func(key []byte) error {
		k := string(key)
		keys = append(keys, k)
		switch k {
		case "a":
			return c.Array(func() error {
				if c.Null() {
					elems = append(elems, "null")
					return nil
				}
				elems = append(elems, string(c.Raw()))
				return nil
			})
		case "cd":
			var err error
			cd, err = c.String()
			return err
		case "e":
			raws = append(raws, string(c.Raw()))
		case "f":
			if !c.Null() {
				t.Errorf("f is null")
			}
		}
		return nil // "g" is skipped
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(keys, []string{"a", "cd", "e", "f", "g"}) || cd != "x\ty" ||
		!reflect.DeepEqual(elems, []string{"1", `{"b":"}"}`, "null"}) || !reflect.DeepEqual(raws, []string{"{}"}) {
		t.Fatalf("keys %q cd %q elems %q raws %q", keys, cd, elems, raws)
	}
	if k := c.Kind(); k != 0 {
		t.Errorf("cursor not at the end: %q", k)
	}
	for _, bad := range []string{``, `{`, `{"a"`, `{"a":`, `{"a":1`, `[1,`, `[`, `{1:2}`, `"x"`, `{"a`, `[,]`} {
		c1, c2 := NewCursor([]byte(bad)), NewCursor([]byte(bad))
		if c1.Object(func([]byte) error { return nil }) == nil && c2.Array(func() error { return nil }) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if _, err := NewCursor([]byte(`"abc`)).String(); err == nil {
		t.Errorf("an unclosed string was decoded")
	}
}

// walk reads any JSON value with a Cursor into the shapes encoding/json
// gives an any (numbers as json.Number).
func walk(c *Cursor) (any, error) {
	switch c.Kind() {
	case '{':
		m := map[string]any{}
		err := c.Object(func(key []byte) error {
			v, err := walk(c)
			m[string(key)] = v
			return err
		})
		return m, err
	case '[':
		a := []any{}
		err := c.Array(func() error {
			v, err := walk(c)
			a = append(a, v)
			return err
		})
		return a, err
	case '"':
		return c.String()
	case 'n':
		c.Null()
		return nil, nil
	case 't', 'f':
		return string(c.Raw()) == "true", nil
	default:
		return json.Number(c.Raw()), nil
	}
}

func FuzzCursor(f *testing.F) {
	f.Add([]byte(`{"a":[1,2],"b":{"c":"d\u00e9"},"a":null}`))
	f.Add([]byte(`[{"a":1},"x",[], -1.5e3, true, false, null]`))
	f.Add([]byte(`{"k\"ey":"\ud83d\ude00\ud800"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Never panics or loops, whatever the input; on valid input it
		// reads what encoding/json reads.
		got, err := walk(NewCursor(data))
		if !Valid(data) {
			return
		}
		if err != nil {
			t.Fatalf("walk(%q): %v", data, err)
		}
		var want any
		d := json.NewDecoder(bytes.NewReader(data))
		d.UseNumber()
		if err := d.Decode(&want); err != nil {
			t.Fatalf("valid %q: %v", data, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("walk(%q) = %#v, encoding/json %#v", data, got, want)
		}
	})
}

// FuzzIndexedCursor reads a result through the index a Scanner builds
// while it checks a message (as jsonrpc.DecodeMessage does), with every
// value indexed down to min bytes: it must read what encoding/json reads.
func FuzzIndexedCursor(f *testing.F) {
	f.Add([]byte(`{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"x":{"type":"string"}}}}],"nextCursor":"c"}`), uint8(2))
	f.Add([]byte(`[{"a":1},"x\u00e9\"",[], -1.5e3, true, false, null, {"b":[[[]]]}]`), uint8(1))
	f.Add([]byte(`{"content":[{"type":"text","text":"long long long long \n text"}]}`), uint8(8))
	f.Fuzz(func(t *testing.T, result []byte, min uint8) {
		if !Valid(result) {
			return
		}
		line := append(append([]byte(`{"jsonrpc":"2.0","id":1,"result":`), result...), '}')
		s := NewScanner(line, int(min)+1)
		var val []byte
		var ix Index
		if !s.Object(0, func(key, _, v []byte, x Index) {
			if string(key) == "result" {
				val, ix = v, x
			}
		}) {
			t.Fatalf("scanning %q failed", line)
		}
		cursor := func() *Cursor { return NewIndexedCursor(val, ix) }
		got, err := walk(cursor())
		if err != nil {
			t.Fatalf("walk(%q): %v", result, err)
		}
		var want any
		d := json.NewDecoder(bytes.NewReader(result))
		d.UseNumber()
		if err := d.Decode(&want); err != nil {
			t.Fatalf("valid %q: %v", result, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("walk(%q) = %#v, encoding/json %#v", result, got, want)
		}
		// Taking some values apart and skipping others gives the same
		// with the index as without.
		var a, b []string
		if err := mixed(cursor(), &a, 0); err != nil {
			t.Fatal(err)
		}
		if err := mixed(NewCursor(result), &b, 0); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("indexed %q\nscanned %q", a, b)
		}
		// Skipping whole values through the index lands where scanning does.
		c := cursor()
		if raw := c.Raw(); !bytes.Equal(raw, bytes.TrimSpace(result)) {
			t.Fatalf("Raw = %q, want %q", raw, result)
		}
	})
}

// mixed walks the value at c, taking apart the members and elements at
// even places and skipping (Object) or taking raw (Array) the others, and
// notes what it sees in out.
func mixed(c *Cursor, out *[]string, depth int) error {
	n := 0
	switch c.Kind() {
	case '{':
		return c.Object(func(key []byte) error {
			n++
			*out = append(*out, "key "+string(key))
			if n%2 == 0 {
				return nil
			}
			return mixed(c, out, depth+1)
		})
	case '[':
		return c.Array(func() error {
			n++
			if n%2 == 0 {
				*out = append(*out, "raw "+string(c.Raw()))
				return nil
			}
			return mixed(c, out, depth+1)
		})
	case '"':
		s, err := c.String()
		*out = append(*out, "str "+s)
		return err
	default:
		*out = append(*out, "lit "+string(c.Raw()))
		return nil
	}
}
