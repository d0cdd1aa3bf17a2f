package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// env returns a getenv over a map.
func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// lookup is os.LookupEnv over m.
func lookup(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// setup writes the user and project files (skipping empty ones) and
// returns LoadOptions for them.
func setup(t *testing.T, user, project string) LoadOptions {
	t.Helper()
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	proj := filepath.Join(dir, "proj")
	for _, d := range []string{home, proj} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if user != "" {
		writeFile(t, filepath.Join(home, FileName), user)
	}
	if project != "" {
		writeFile(t, filepath.Join(proj, FileName), project)
	}
	return LoadOptions{Home: home, Dir: proj, Getenv: env(nil)}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

func names(c *Config) string {
	var n []string
	for _, s := range c.Servers {
		n = append(n, s.Name+"@"+s.Scope)
	}
	return strings.Join(n, " ")
}

func TestHome(t *testing.T) {
	h, err := Home(env(map[string]string{"MCPWIRE_HOME": "/x/y", "XDG_CONFIG_HOME": "/a"}))
	if err != nil || h != filepath.FromSlash("/x/y") {
		t.Errorf("MCPWIRE_HOME: %q %v", h, err)
	}
	h, err = Home(env(map[string]string{"XDG_CONFIG_HOME": "/a"}))
	if err != nil || h != filepath.FromSlash("/a/mcpwire") {
		t.Errorf("XDG_CONFIG_HOME: %q %v", h, err)
	}
	h, err = Home(env(nil))
	if err != nil || !strings.HasSuffix(h, filepath.FromSlash(".config/mcpwire")) {
		t.Errorf("default: %q %v", h, err)
	}
}

func TestLoadMergeScopes(t *testing.T) {
	opts := setup(t,
		`{"mcpServers": {"a": {"command": "a"}, "shared": {"command": "user-cmd", "env": {"X": "1"}}, "b": {"url": "https://b.example/mcp"}}}`,
		`{"mcpServers": {"p": {"command": "p"}, "shared": {"url": "http://127.0.0.1:9/mcp"}}}`)
	c, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := names(c), "a@user b@user p@project shared@project"; got != want {
		t.Errorf("servers = %q, want %q", got, want)
	}
	s := c.Server("shared")
	if s.Type != TypeHTTP || s.Command != "" || s.Env != nil || s.URL != "http://127.0.0.1:9/mcp" {
		t.Errorf("shared was not replaced whole: %+v", s)
	}
	if !strings.HasSuffix(s.Source, filepath.Join("proj", FileName)) || !filepath.IsAbs(s.Source) {
		t.Errorf("source = %q", s.Source)
	}
	if len(c.Files) != 2 || !c.Files[0].Exists || c.Files[0].Scope != ScopeUser || c.Files[1].Scope != ScopeProject {
		t.Errorf("files = %+v", c.Files)
	}
	for _, s := range c.Servers {
		if s.Err != nil || s.Expanded == nil {
			t.Errorf("%s: err %v, expanded %v", s.Name, s.Err, s.Expanded)
		}
	}
}

func TestLoadMissingFiles(t *testing.T) {
	c, err := Load(setup(t, "", ""))
	if err != nil || len(c.Servers) != 0 || len(c.Files) != 2 || c.Files[0].Exists {
		t.Fatalf("%+v %v", c, err)
	}
	// An empty file holds no servers.
	c, err = Load(setup(t, " \n", ""))
	if err != nil || len(c.Servers) != 0 {
		t.Fatalf("%+v %v", c, err)
	}
}

func TestLoadHomeIsWorkingDir(t *testing.T) {
	opts := setup(t, `{"mcpServers": {"a": {"command": "a"}}}`, "")
	opts.Dir = opts.Home
	c, err := Load(opts)
	if err != nil || names(c) != "a@user" || len(c.Files) != 1 {
		t.Fatalf("%q %v", names(c), err)
	}
}

func TestLoadAliasesAndDefaults(t *testing.T) {
	opts := setup(t, `{
  "servers": {
    "vs": {"transport": "stdio", "command": "x"},
    "h1": {"httpUrl": "https://h.example/mcp"},
    "h2": {"serverUrl": "https://h.example/mcp", "type": "streamable-http"},
    "s": {"type": "sse", "url": "http://localhost:8080/sse", "timeout": 2.5},
    "off": {"command": "x", "disabled": true},
    "off2": {"command": "x", "enabled": false, "required": true},
    "tools": {"command": "x", "enabledTools": ["a"], "disabledTools": ["b", "c"]}
  }
}`, "")
	c, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"vs": TypeStdio, "h1": TypeHTTP, "h2": TypeHTTP, "s": TypeSSE, "off": TypeStdio}
	for n, typ := range want {
		s := c.Server(n)
		if s == nil || s.Err != nil || s.Type != typ {
			t.Errorf("%s: %+v", n, s)
		}
	}
	if c.Server("h1").URL != "https://h.example/mcp" || c.Server("h1").Timeout != DefaultTimeout {
		t.Errorf("h1: %+v", c.Server("h1"))
	}
	if c.Server("s").Timeout != 2500*time.Millisecond {
		t.Errorf("timeout = %v", c.Server("s").Timeout)
	}
	if s := c.Server("off"); s.Enabled || s.Expanded != nil {
		t.Errorf("off: enabled %v expanded %v", s.Enabled, s.Expanded)
	}
	if s := c.Server("off2"); s.Enabled || !s.Required {
		t.Errorf("off2: %+v", s)
	}
	if s := c.Server("tools"); len(s.EnabledTools) != 1 || len(s.DisabledTools) != 2 || !s.Enabled {
		t.Errorf("tools: %+v", s)
	}
	if len(c.Warnings) != 0 {
		t.Errorf("warnings: %q", c.Warnings)
	}
}

func TestLoadUnknownFieldsWarn(t *testing.T) {
	opts := setup(t, "{\"mcpServers\": {\"a\": {\"command\": \"x\",\n  \"colour\": 1, \"oauth\": {\"extra\": 2}}},\n \"inputs\": []}", "")
	c, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	if s := c.Server("a"); s == nil || s.Err == nil || !strings.Contains(s.Err.Error(), "oauth: is for http servers") {
		t.Errorf("a: %v", s.Err)
	}
	joined := strings.Join(c.Warnings, "\n")
	for _, w := range []string{`:2:3: server "a": unknown field "colour" ignored`, `unknown field "oauth.extra"`, `:3:2: unknown top-level field "inputs"`} {
		if !strings.Contains(joined, w) {
			t.Errorf("warnings %q lack %q", joined, w)
		}
	}
}

// TestLoadFileErrors: files that fail as a whole, with line and column.
func TestLoadFileErrors(t *testing.T) {
	for _, tc := range []struct {
		name, data, want string
		syntax           bool
	}{
		{"malformed", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",}\n  }\n}", ":3:26: invalid character '}'", true},
		{"truncated", `{"mcpServers": {`, ":1:16: unexpected end of JSON input", true},
		{"array", `[1]`, ":1:1: the top level must be an object, got array", false},
		{"servers not object", `{"mcpServers": [1]}`, ":1:16: mcpServers must be an object, got array", false},
		{"servers null", `{"mcpServers": null}`, ":1:16: mcpServers must be an object, got null", false},
		{"twice", `{"mcpServers": {}, "mcpServers": {}}`, ":1:20: mcpServers given twice", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := setup(t, `{"mcpServers": {"u": {"command": "u"}}}`, tc.data)
			c, err := Load(opts)
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want a *FileError", err)
			}
			if !strings.Contains(err.Error(), filepath.Join("proj", FileName)+tc.want) || fe.Syntax != tc.syntax {
				t.Errorf("err = %v (syntax %v), want %q", err, fe.Syntax, tc.want)
			}
			if names(c) != "u@user" || c.Files[1].Err == nil {
				t.Errorf("the user file should still load: %q", names(c))
			}
		})
	}
}

// TestLoadEntryErrors: one rule per case; the bad entry gets Err naming
// file, server, field and position; the good entry stays usable.
func TestLoadEntryErrors(t *testing.T) {
	for _, tc := range []struct {
		name, entry, want string
	}{
		{"wrong type", `{"command": 5}`, `:3:22: server "bad": command: must be a string, got number`},
		{"entry not object", `"npx"`, `:3:10: server "bad": must be an object, got string`},
		{"missing command and url", `{"args": ["x"]}`, `:3:3: server "bad": needs command (a stdio server) or url (an http server)`},
		{"both", `{"command": "x", "url": "https://a.example"}`, `:3:27: server "bad": url: command and url exclude each other`},
		{"empty command", `{"command": " "}`, `command: must not be empty`},
		{"args not strings", `{"command": "x", "args": ["a", 1]}`, `:3:41: server "bad": args[1]: must be a string, got number`},
		{"args not array", `{"command": "x", "args": "a b"}`, `args: must be an array of strings, got string`},
		{"env not strings", `{"command": "x", "env": {"A": true}}`, `env.A: must be a string, got boolean`},
		{"env bad name", `{"command": "x", "env": {"A=B": "v"}}`, `env.A=B: is not a valid environment variable name`},
		{"env twice", `{"command": "x", "env": {"A": "1", "A": "2"}}`, `env.A: given twice`},
		{"field twice", `{"command": "x", "command": "y"}`, `command: given twice`},
		{"bad type", `{"type": "websocket", "url": "https://a.example"}`, `type: must be "stdio", "http"`},
		{"type and transport disagree", `{"type": "http", "transport": "sse", "url": "https://a.example"}`, `transport: disagrees with type`},
		{"stdio without command", `{"type": "stdio", "url": "https://a.example"}`, `type: a stdio server needs command`},
		{"http without url", `{"type": "http", "command": "x"}`, `type: an http server needs url`},
		{"url twice", `{"url": "https://a.example", "httpUrl": "https://b.example"}`, `httpUrl: the URL is already given as url`},
		{"non-loopback http", `{"url": "http://example.com/mcp"}`, `url: plain http is allowed only to localhost, 127.0.0.0/8 and [::1] (host example.com); use https`},
		{"url credentials", `{"url": "https://user:hunter22@example.com/mcp"}`, `url: a user name or password (user:password@) is not allowed in a URL`},
		{"url scheme", `{"url": "ftp://example.com"}`, `url: the scheme must be https (or http to localhost), not ftp`},
		{"url no host", `{"url": "https:///mcp"}`, `url: no host`},
		{"headers on stdio", `{"command": "x", "headers": {"A": "b"}}`, `headers: is for http servers; this one is stdio`},
		{"env on http", `{"url": "https://a.example", "env": {"A": "b"}}`, `env: is for stdio servers; this one is http`},
		{"bad header name", `{"url": "https://a.example", "headers": {"A B": "x"}}`, `headers.A B: is not a valid header name`},
		{"header line break", `{"url": "https://a.example", "headers": {"A": "x\r\nB: y"}}`, `headers.A: must not contain line breaks`},
		{"oauth and authorization", `{"url": "https://a.example", "headers": {"authorization": "Bearer x"}, "oauth": {}}`, `oauth: oauth and a static Authorization header exclude each other`},
		{"oauth not object", `{"url": "https://a.example", "oauth": true}`, `oauth: must be an object, got boolean`},
		{"oauth scopes", `{"url": "https://a.example", "oauth": {"scopes": "a b"}}`, `oauth.scopes: must be an array of strings`},
		{"oauth server url", `{"url": "https://a.example", "oauth": {"authorization_server": "http://auth.example"}}`, `oauth.authorization_server: plain http is allowed only`},
		{"timeout zero", `{"command": "x", "timeout": 0}`, `timeout: must be more than 0 and at most 300 seconds`},
		{"timeout negative", `{"command": "x", "timeout": -1}`, `timeout: must be more than 0`},
		{"timeout too big", `{"command": "x", "timeout": 301}`, `timeout: must be more than 0 and at most 300 seconds`},
		{"timeout string", `{"command": "x", "timeout": "30"}`, `timeout: must be a number of seconds, got string`},
		{"shutdownTimeout zero", `{"command": "x", "shutdownTimeout": 0}`, `shutdownTimeout: must be more than 0 and at most 300 seconds`},
		{"shutdownTimeout too big", `{"url": "https://a.example", "shutdownTimeout": 301}`, `shutdownTimeout: must be more than 0 and at most 300 seconds`},
		{"shutdownTimeout string", `{"command": "x", "shutdownTimeout": "5"}`, `shutdownTimeout: must be a number of seconds, got string`},
		{"maxMessageBytes fraction", `{"command": "x", "maxMessageBytes": 2048.5}`, `maxMessageBytes: must be a whole number of bytes from 1024 to 1099511627776`},
		{"maxMessageBytes small", `{"command": "x", "maxMessageBytes": 100}`, `maxMessageBytes: must be a whole number of bytes from 1024`},
		{"maxMessageBytes exponent", `{"command": "x", "maxMessageBytes": 1e9}`, `maxMessageBytes: must be a whole number of bytes`},
		{"maxMessageBytes string", `{"command": "x", "maxMessageBytes": "1MB"}`, `maxMessageBytes: must be a number of bytes, got string`},
		{"enabled not bool", `{"command": "x", "enabled": "yes"}`, `enabled: must be true or false, got string`},
		{"protocolVersion unknown", `{"command": "x", "protocolVersion": "2025-01-01"}`, `protocolVersion: must be one of 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05`},
		{"protocolVersion not a string", `{"command": "x", "protocolVersion": 2025}`, `protocolVersion: must be a string`},
		{"enabled and disabled disagree", `{"command": "x", "enabled": true, "disabled": true}`, `enabled: enabled and disabled disagree`},
		{"tools not list", `{"command": "x", "disabledTools": "a"}`, `disabledTools: must be an array of strings`},
		{"nul in command", `{"command": "a\u0000b"}`, `command: must not contain a NUL character`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := "{\n\"mcpServers\": {\n  \"bad\": " + tc.entry + ",\n  \"good\": {\"command\": \"ok\"}\n}}"
			opts := setup(t, "", data)
			c, err := Load(opts)
			if err != nil {
				t.Fatal(err)
			}
			bad := c.Server("bad")
			var fe *FieldError
			if !errors.As(bad.Err, &fe) {
				t.Fatalf("bad.Err = %v, want a *FieldError", bad.Err)
			}
			if fe.Server != "bad" || !strings.HasSuffix(fe.File, FileName) || fe.Line == 0 {
				t.Errorf("fields: %+v", fe)
			}
			if !strings.Contains(bad.Err.Error(), tc.want) {
				t.Errorf("err = %v\nwant %q", bad.Err, tc.want)
			}
			if bad.Valid() || bad.Expanded != nil {
				t.Errorf("bad entry looks usable")
			}
			if good := c.Server("good"); good.Err != nil || good.Expanded == nil {
				t.Errorf("good entry: %v", good.Err)
			}
			if strings.Contains(bad.Err.Error(), "hunter22") {
				t.Errorf("error shows a secret: %v", bad.Err)
			}
		})
	}
}

func TestLoadBadNames(t *testing.T) {
	for _, n := range []string{"", "a/b", "..", ".x", "-x", "a b", strings.Repeat("x", 65), "é"} {
		c, err := Load(setup(t, "", `{"mcpServers": {`+string(marshalString(n))+`: {"command": "x"}}}`))
		if err != nil {
			t.Fatal(err)
		}
		if c.Servers[0].Err == nil {
			t.Errorf("name %q accepted", n)
		}
	}
	for _, n := range []string{"a", "A_b-c.d", "_x", "9"} {
		if err := ValidName(n); err != nil {
			t.Errorf("ValidName(%q) = %v", n, err)
		}
	}
}

func TestLoadNameTwice(t *testing.T) {
	data := `{"mcpServers": {
  "a": {"command": "one"},
  "b": {"command": "b"},
  "a": {"command": "two"}
}, "servers": {"b": {"command": "b2"}}}`
	c, err := Load(setup(t, data, ""))
	if err != nil {
		t.Fatal(err)
	}
	if names(c) != "a@user b@user" {
		t.Fatalf("servers %q", names(c))
	}
	a := c.Server("a")
	if a.Err == nil || !strings.Contains(a.Err.Error(), `:4:3: server "a": defined more than once in this file (first at line 2, column 3)`) {
		t.Errorf("a: %v", a.Err)
	}
	if b := c.Server("b"); b.Err == nil || !strings.Contains(b.Err.Error(), "defined more than once") {
		t.Errorf("b: %v", b.Err)
	}
}

func TestLoadExpansion(t *testing.T) {
	data := `{"mcpServers": {
  "s": {"command": "${BIN}", "args": ["--x=${X:-dflt}", "$HOME", "$$", "${LIT}"], "env": {"TOKEN": "${TOKEN}"}, "cwd": "sub/${D:-dir}"},
  "h": {"url": "https://${HOST}/mcp?k=${K:-none}", "headers": {"Authorization": "Bearer ${TOKEN}"}},
  "unset": {"command": "x", "env": {"A": "${MISSING}"}},
  "unsetOff": {"command": "x", "env": {"A": "${MISSING}"}, "enabled": false},
  "badurl": {"url": "${URL}"},
  "creds": {"url": "https://${U}@h.example/"}
}}`
	opts := setup(t, "", data)
	opts.Getenv = env(map[string]string{"BIN": "/bin/tool", "TOKEN": "s3cret-token", "HOST": "h.example:8443", "LIT": "${TOKEN}", "URL": "http://example.com/", "U": "me:pw"})
	c, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	s := c.Server("s").Expanded
	if s == nil {
		t.Fatal(c.Server("s").Err)
	}
	if s.Command != "/bin/tool" || strings.Join(s.Args, " ") != "--x=dflt $HOME $$ ${TOKEN}" || s.Env["TOKEN"] != "s3cret-token" {
		t.Errorf("expanded: %+v", s)
	}
	if want := filepath.Join(filepath.Dir(c.Server("s").Source), "sub", "dir"); s.Cwd != want {
		t.Errorf("cwd = %q, want %q", s.Cwd, want)
	}
	if c.Server("s").Command != "${BIN}" {
		t.Errorf("the definition itself must stay unexpanded")
	}
	h := c.Server("h").Expanded
	if h == nil || h.URL != "https://h.example:8443/mcp?k=none" || h.Headers["Authorization"] != "Bearer s3cret-token" {
		t.Errorf("h: %+v %v", h, c.Server("h").Err)
	}
	var xe *ExpandError
	if err := c.Server("unset").Err; !errors.As(err, &xe) || xe.Var != "MISSING" || xe.Field != "env.A" || xe.Server != "unset" {
		t.Errorf("unset: %v", err)
	} else if !c.Server("unset").Valid() {
		t.Errorf("an unset variable does not make the entry invalid")
	}
	if s := c.Server("unsetOff"); s.Err != nil {
		t.Errorf("disabled entries are not expanded: %v", s.Err)
	}
	if err := c.Server("badurl").Err; err == nil || !strings.Contains(err.Error(), `server "badurl": url: after expansion: plain http is allowed only`) {
		t.Errorf("badurl: %v", err)
	}
	if err := c.Server("creds").Err; err == nil || !strings.Contains(err.Error(), "user name or password") || strings.Contains(err.Error(), "pw") {
		t.Errorf("creds: %v", err)
	}
}

func TestLoadShutdownTimeoutAndMaxMessageBytes(t *testing.T) {
	c, err := Load(setup(t, "", `{"mcpServers": {
  "a": {"command": "x", "shutdownTimeout": 0.5, "maxMessageBytes": 1048576},
  "b": {"url": "https://b.example/mcp", "shutdownTimeout": 10},
  "c": {"command": "x"}
}}`))
	if err != nil {
		t.Fatal(err)
	}
	a, b, cc := c.Server("a"), c.Server("b"), c.Server("c")
	for _, s := range []*Server{a, b, cc} {
		if s.Err != nil {
			t.Fatalf("%s: %v", s.Name, s.Err)
		}
	}
	if a.ShutdownTimeout != 500*time.Millisecond || a.MaxMessageBytes != 1<<20 {
		t.Errorf("a: %v %d", a.ShutdownTimeout, a.MaxMessageBytes)
	}
	if b.ShutdownTimeout != 10*time.Second || b.MaxMessageBytes != 0 {
		t.Errorf("b: %v %d", b.ShutdownTimeout, b.MaxMessageBytes)
	}
	if cc.ShutdownTimeout != 0 || cc.MaxMessageBytes != 0 {
		t.Errorf("c (defaults are 0): %v %d", cc.ShutdownTimeout, cc.MaxMessageBytes)
	}
}
