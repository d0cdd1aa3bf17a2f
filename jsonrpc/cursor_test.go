package jsonrpc

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
