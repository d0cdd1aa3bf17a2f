package config

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

// tomlDoc parses src and returns it as JSON (keys in file order).
func tomlDoc(t *testing.T, src string) string {
	t.Helper()
	root, err := parseTOML([]byte(src))
	if err != nil {
		t.Fatalf("parseTOML:\n%s\n%v", src, err)
	}
	out, err := tomlJSON(root)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func TestTOMLValues(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`a = "x\ty\u00e9\U0001F600\"\\"`, `{"a":"x\tyé😀\"\\"}`},
		{`a = 'C:\path\n'`, `{"a":"C:\\path\\n"}`},
		{"a = \"\"\"\nline1\nline2\"\"\"", `{"a":"line1\nline2"}`},
		{"a = \"\"\"one \\\n    two\"\"\"", `{"a":"one two"}`},
		{"a = \"\"\"q\"\"\"\"\"", `{"a":"q\"\""}`},
		{"a = '''\nraw \\n\n'''", `{"a":"raw \\n\n"}`},
		{"a = ''''x'''", `{"a":"'x"}`},
		{`a = 42`, `{"a":42}`},
		{`a = -17`, `{"a":-17}`},
		{`a = 1_000_000`, `{"a":1000000}`},
		{`a = 0xDEAD_beef`, `{"a":3735928559}`},
		{`a = 0o755`, `{"a":493}`},
		{`a = 0b1010`, `{"a":10}`},
		{`a = 3.5`, `{"a":3.5}`},
		{`a = -1e3`, `{"a":-1000}`},
		{`a = 6.626e-34`, `{"a":6.626e-34}`},
		{`a = 1_0.2_5`, `{"a":10.25}`},
		{`a = true`, `{"a":true}`},
		{`a = false # off`, `{"a":false}`},
		{`a = [1, "two", [3.0], {x = 1}]`, `{"a":[1,"two",[3],{"x":1}]}`},
		{"a = [\n  1, # one\n  2,\n]\n", `{"a":[1,2]}`},
		{`a = []`, `{"a":[]}`},
		{`t = { x = 1, y.z = "w" }`, `{"t":{"x":1,"y":{"z":"w"}}}`},
		{`t = {}`, `{"t":{}}`},
		{`"quoted key" = 1` + "\n" + `'lit' = 2` + "\n" + `a.b.c = 3` + "\n" + `a . b . d = 4`, `{"quoted key":1,"lit":2,"a":{"b":{"c":3,"d":4}}}`},
		{"# only a comment\n\n", `{}`},
		{"[a]\nx = 1\n[a.b]\ny = 2\n[c]\n", `{"a":{"x":1,"b":{"y":2}},"c":{}}`},
		{"[[s]]\nn = 1\n[[s]]\nn = 2\n[s.sub]\nk = 3\n", `{"s":[{"n":1},{"n":2,"sub":{"k":3}}]}`},
		{"[x.y.z]\n[x]\nw = 1\n", `{"x":{"y":{"z":{}},"w":1}}`},
		{"a = 1\r\nb = 2\r\n", `{"a":1,"b":2}`},
	} {
		if got := tomlDoc(t, tc.src); got != tc.want {
			t.Errorf("%q:\n got %s\nwant %s", tc.src, got, tc.want)
		}
	}
	root, _ := parseTOML([]byte("a = inf\nb = -inf\nc = nan"))
	if !math.IsInf(root.get("a").(float64), 1) || !math.IsInf(root.get("b").(float64), -1) || !math.IsNaN(root.get("c").(float64)) {
		t.Errorf("inf/nan: %v", root.vals)
	}
	if _, err := tomlJSON(root); err == nil {
		t.Error("inf as JSON: no error")
	}
}

func TestTOMLErrors(t *testing.T) {
	for _, tc := range []struct{ src, msg string }{
		{`a = "open`, "without its closing"},
		{"a = \"two\nlines\"", "a line end in a one-line string"},
		{`a = "\x41"`, "unknown escape"},
		{`a = "\uD800"`, "not a Unicode scalar"},
		{`a = 01`, "is not a value"},
		{`a = 1__0`, "is not a value"},
		{`a = _1`, "is not a value"},
		{`a = 1.`, "is not a value"},
		{`a = .5`, "is not a value"},
		{`a = 1e`, "is not a value"},
		{`a = 0x`, "is not a value"},
		{`a = bare`, "is not a value"},
		{`a = 1979-05-27T07:32:00Z`, "dates and times are not read here"},
		{`a = 1979-05-27`, "dates and times are not read here"},
		{"a = 1\na = 2", "given twice"},
		{"[t]\n[t]", "defined twice"},
		{"[t]\nx=1\n[t.x]", "a value already"},
		{"a.b = 1\n[a]", "defined twice"},
		{"[a]\nb.c = 1\n[a.b]", "defined twice"},
		{"t = {x = 1}\n[t]", "defined twice"},
		{"t = {x = 1}\nt.y = 2", "inline table"},
		{"[[s]]\n[s]", "array of tables"},
		{"[s]\n[[s]]", "a table already"},
		{"a = 1 b = 2", "after the value"},
		{`a = [1 2]`, "expected , or ]"},
		{`t = {x = 1,}`, "no comma after its last key"},
		{"t = {x = 1,\ny = 2}", "expected a key"},
		{`= 1`, "expected a key"},
		{`a`, "expected ="},
		{"[a", "must end with ]"},
		{`"""k""" = 1`, "multi-line string"},
		{"a = \"\x01\"", "control character"},
		{"a = 1 # \x7f", "control character in a comment"},
		{"a = " + strings.Repeat("[", 100), "nest deeper"},
		{"a = \xff", "not UTF-8"},
		{"a = truex", "unexpected"},
	} {
		_, err := parseTOML([]byte(tc.src))
		var te *TOMLError
		if !errors.As(err, &te) || !strings.Contains(err.Error(), tc.msg) || te.Line < 1 || te.Col < 1 {
			t.Errorf("%q: error %v, want one with %q", tc.src, err, tc.msg)
		}
	}
}

// FuzzTOML: the reader never panics or hangs, and what it reads writes as
// valid JSON (unless a float is infinite or NaN).
func FuzzTOML(f *testing.F) {
	for _, s := range []string{
		"[mcp_servers.docs]\nurl = \"https://docs.example.com/mcp\"\nbearer_token_env_var = \"T\"\n",
		"[[mcp.servers]]\nname = 'x'\ncommand = \"npx\"\nargs = [\"-y\", '@s/p']\nenv = { K = \"v\" }\n",
		"a = \"\"\"\nx\\\n  y\"\"\"\nb = '''q'''\nc = 0x1F\nd = -3.5e2\ne = [1, [2, {f = true}]]\n",
		"[a.b]\n[[a.c]]\n[a.c.d]\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		root, err := parseTOML(data)
		if err != nil {
			var te *TOMLError
			if !errors.As(err, &te) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		out, err := tomlJSON(root)
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("invalid JSON %q from %q", out, data)
		}
	})
}
