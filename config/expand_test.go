package config

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestExpandString(t *testing.T) {
	vars := lookup(map[string]string{"A": "alpha", "B": "${A}", "EMPTY": "", "P": "x:-y"})
	for _, tc := range []struct {
		in, want, errVar, errMsg string
	}{
		{in: "plain", want: "plain"},
		{in: "${A}", want: "alpha"},
		{in: "<${A}|${A}>", want: "<alpha|alpha>"},
		{in: "${B}", want: "${A}"},              // once: not recursive
		{in: "${NOPE:-${A}}", want: "${A}"},     // the default is "${A" (up to the first }), then "}"
		{in: "${NOPE:-a b:-c}", want: "a b:-c"}, // the first :- splits
		{in: "${EMPTY:-d}", want: ""},           // a default is for unset only: set but empty stays empty
		{in: "${EMPTY}", want: ""},              // set but empty: empty
		{in: "<${EMPTY}>", want: "<>"},
		{in: "${A:-d}", want: "alpha"},
		{in: "${P}", want: "x:-y"},
		{in: "${NOPE:-}", want: ""},
		{in: "$A $$ $ $$A ${", errMsg: "without a closing"}, // only ${ is special
		{in: "$A $$ $ $$A", want: "$A $$ $ $$A"},
		{in: "$${A}", want: "$alpha"},
		{in: "${NOPE}", errVar: "NOPE", errMsg: "variable NOPE is not set and has no default"},
		{in: "${}", errMsg: "not ${NAME}"},
		{in: "${1A}", errMsg: "not ${NAME}"},
		{in: "${A-x}", errMsg: "not ${NAME}"},
		{in: "${A:=x}", errMsg: "not ${NAME}"},
	} {
		got, p := expandString(tc.in, vars)
		if tc.errMsg == "" && tc.errVar == "" {
			if p != nil || got != tc.want {
				t.Errorf("expand(%q) = %q, %v; want %q", tc.in, got, p, tc.want)
			}
			continue
		}
		if p == nil || p.name != tc.errVar || !strings.Contains(p.msg, tc.errMsg) {
			t.Errorf("expand(%q) = %q, %+v; want error var %q msg %q", tc.in, got, p, tc.errVar, tc.errMsg)
		}
	}
}

func TestExpandErrorNamesNoValue(t *testing.T) {
	s := &Server{Name: "x", Type: TypeHTTP, URL: "https://h.example/", Headers: map[string]string{"X-Key": "sk-${KEY}-verysecretpart"}}
	_, err := s.Expand(env(nil))
	var xe *ExpandError
	if !errors.As(err, &xe) || xe.Field != "headers.X-Key" || xe.Var != "KEY" {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(err.Error(), "verysecretpart") {
		t.Errorf("error shows the value: %v", err)
	}
	if want := `server "x": headers.X-Key: variable KEY is not set`; !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want %q", err, want)
	}
}

func TestExpandAfterChecks(t *testing.T) {
	for _, tc := range []struct {
		s    Server
		vars map[string]string
		want string
	}{
		{Server{Type: TypeStdio, Command: "${C:-}"}, nil, "command: after expansion: is empty"},
		{Server{Type: TypeHTTP, URL: "${U}"}, map[string]string{"U": "http://10.0.0.1/"}, "url: after expansion: plain http"},
		{Server{Type: TypeSSE, URL: "${U}"}, map[string]string{"U": "https://a:b@h.example/"}, "url: after expansion: a user name or password"},
		{Server{Type: TypeHTTP, URL: "https://h.example/", Headers: map[string]string{"A": "${V}"}}, map[string]string{"V": "x\r\nInjected: 1"}, "headers.A: after expansion: contains a line break"},
	} {
		_, err := tc.s.Expand(env(tc.vars))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want %q", tc.s, err, tc.want)
		}
	}
	for _, u := range []string{"http://localhost:1/x", "http://127.9.9.9/", "http://[::1]:80/", "https://example.com/"} {
		s := Server{Type: TypeHTTP, URL: u}
		if _, err := s.Expand(nil); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
}

// TestSeedFields reads the fields of the seeds' configurations (issue 14):
// the timeout aliases, roots, envVars, envHeaders and bearerTokenEnvVar,
// as written and expanded, with their errors.
func TestSeedFields(t *testing.T) {
	vars := map[string]string{"GITHUB_TOKEN": "ghp-secret", "EMPTY": "", "KEY": "k-1", "TOKEN": "t-1"}
	opts := setup(t, `{"mcpServers": {
		"zut": {"command": "node", "args": ["${EMPTY}"], "envVars": ["GITHUB_TOKEN", "UNSET", "EMPTY"], "env": {"EMPTY": "own"},
			"startupTimeoutSec": 45, "toolTimeoutSec": 120, "roots": ["work", "/abs"]},
		"orb": {"url": "https://h.example/mcp", "timeoutMs": 2500, "envHeaders": {"X-Key": "KEY"}, "bearerTokenEnvVar": "TOKEN"},
		"both": {"command": "node", "timeout": 5, "timeoutMs": 5000},
		"auth2": {"url": "https://h.example/mcp", "headers": {"Authorization": "x"}, "bearerTokenEnvVar": "TOKEN"},
		"oauth": {"url": "https://h.example/mcp", "oauth": {}, "bearerTokenEnvVar": "TOKEN"},
		"stdiohdr": {"command": "node", "envHeaders": {"X": "KEY"}},
		"httpvars": {"url": "https://h.example/mcp", "envVars": ["KEY"]},
		"toolong": {"command": "node", "toolTimeout": 301},
		"badname": {"command": "node", "envVars": ["A=B"]},
		"unsethdr": {"url": "https://h.example/mcp", "envHeaders": {"X-Key": "NOPE"}},
		"emptytok": {"url": "https://h.example/mcp", "bearerTokenEnvVar": "EMPTY"}
	}}`, "")
	opts.Getenv = nil
	opts.LookupEnv = lookup(vars)
	cfg, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	zut := cfg.Server("zut")
	if zut.Err != nil {
		t.Fatal(zut.Err)
	}
	if zut.StartupTimeout != 45*time.Second || zut.ToolTimeout != 120*time.Second || zut.Timeout != DefaultTimeout {
		t.Errorf("zut timeouts %v %v %v", zut.StartupTimeout, zut.ToolTimeout, zut.Timeout)
	}
	x := zut.Expanded
	if x.Args[0] != "" { // set but empty: ""
		t.Errorf("${EMPTY} expanded to %q", x.Args[0])
	}
	if len(x.Env) != 2 || x.Env["GITHUB_TOKEN"] != "ghp-secret" || x.Env["EMPTY"] != "own" {
		t.Errorf("zut env %v: want GITHUB_TOKEN passed through, UNSET left out, env's own EMPTY kept", x.Env)
	}
	dir := filepath.Dir(zut.Source)
	if len(x.Roots) != 2 || x.Roots[0] != filepath.Join(dir, "work") || x.Roots[1] != filepath.Clean("/abs") {
		t.Errorf("zut roots %v", x.Roots)
	}
	if !slices.Contains(zut.Secrets(), "ghp-secret") {
		t.Error("a variable passed through by envVars is not a secret")
	}
	orb := cfg.Server("orb")
	if orb.Err != nil {
		t.Fatal(orb.Err)
	}
	if orb.Timeout != 2500*time.Millisecond || orb.Expanded.Headers["X-Key"] != "k-1" || orb.Expanded.Headers["Authorization"] != "Bearer t-1" {
		t.Errorf("orb: timeout %v headers %v", orb.Timeout, orb.Expanded.Headers)
	}
	if s := orb.Secrets(); !slices.Contains(s, "t-1") || !slices.Contains(s, "k-1") {
		t.Errorf("orb's secrets %d values lack the header values from the environment", len(s))
	}
	for name, want := range map[string]string{
		"both":     "timeoutMs: the same as timeout",
		"auth2":    "bearerTokenEnvVar and an Authorization header exclude each other",
		"oauth":    "oauth and bearerTokenEnvVar exclude each other",
		"stdiohdr": "envHeaders: is for http servers",
		"httpvars": "envVars: is for stdio servers",
		"toolong":  "toolTimeout: must be more than 0 and at most 300 seconds",
		"badname":  "envVars[0]: is not a valid environment variable name",
		"unsethdr": "envHeaders.X-Key: variable NOPE is not set",
		"emptytok": "bearerTokenEnvVar: variable EMPTY is empty",
	} {
		s := cfg.Server(name)
		if s.Err == nil || !strings.Contains(s.Err.Error(), want) {
			t.Errorf("%s: err %v, want %q", name, s.Err, want)
		}
	}
}

// TestDefaultOnlyForUnset reads a file whose ${VAR:-default} names a
// variable set to "" and one unset: the first stays empty, the second
// takes its default (magi-code's rule, not a shell's).
func TestDefaultOnlyForUnset(t *testing.T) {
	opts := setup(t, `{"mcpServers": {"s": {"command": "x", "args": ["${EMPTY:-d1}", "${UNSET:-d2}"], "env": {"K": "${EMPTY:-d3}"}}}}`, "")
	opts.Getenv, opts.LookupEnv = nil, lookup(map[string]string{"EMPTY": ""})
	c, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	x := c.Server("s").Expanded
	if x == nil || x.Args[0] != "" || x.Args[1] != "d2" || x.Env["K"] != "" {
		t.Fatalf("expanded: %+v (err %v)", x, c.Server("s").Err)
	}
}
