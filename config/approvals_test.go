package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// entryDigest parses one entry text in a fixed file and returns its digest.
func entryDigest(t *testing.T, entry string) string {
	t.Helper()
	pf, err := parseFile("/p/.mcp.json", ScopeProject, []byte(`{"mcpServers": {"s": `+entry+`}}`))
	if err != nil {
		t.Fatal(err)
	}
	s := pf.servers[0]
	if !s.Valid() {
		t.Fatalf("%s: %v", entry, s.Err)
	}
	return Digest([]byte("0123456789abcdef0123456789abcdef"), s)
}

func TestDigestCanonical(t *testing.T) {
	same := [][]string{
		{ // member order and whitespace
			`{"command": "node", "args": ["a", "b"], "env": {"A": "1", "B": "2"}}`,
			"{\n\t\"env\" : {\"B\":\"2\",\"A\":\"1\"},\"args\":[ \"a\",\"b\" ],\n\"command\":\"node\"}",
		},
		{ // parser defaults: type, timeout, empty args/env, enabled
			`{"command": "node"}`,
			`{"command": "node", "type": "stdio", "timeout": 30, "args": [], "env": {}, "enabled": false}`,
			`{"command": "node", "transport": "stdio", "timeout": 30.0, "disabled": true, "required": true}`,
			`{"command": "n\u006fde"}`,
		},
		{ // aliases
			`{"url": "https://h.example/mcp"}`,
			`{"httpUrl": "https://h.example/mcp", "type": "streamable-http"}`,
			`{"serverUrl": "https://h.example/mcp", "transport": "http", "oauth": {}}`,
		},
		{ // timeout aliases (issue 14): seconds, or milliseconds
			`{"command": "node", "timeout": 20, "startupTimeout": 40, "toolTimeout": 90}`,
			`{"command": "node", "timeoutMs": 20000, "startupTimeoutSec": 40, "toolTimeoutSec": 90}`,
		},
		{ // empty lists of the new fields are absent ones
			`{"command": "node"}`,
			`{"command": "node", "roots": [], "envVars": []}`,
		},
		{ // oauth member order
			`{"url": "https://h.example/mcp", "oauth": {"client_id": "c", "scopes": ["x"]}}`,
			`{"url": "https://h.example/mcp", "oauth": {"scopes": ["x"], "client_id": "c"}}`,
		},
	}
	for _, group := range same {
		want := entryDigest(t, group[0])
		if len(want) != 64 {
			t.Fatalf("digest %q", want)
		}
		for _, e := range group[1:] {
			if got := entryDigest(t, e); got != want {
				t.Errorf("digest differs:\n%s\n%s", group[0], e)
			}
		}
	}
	base := `{"command": "node", "args": ["a", "b"], "env": {"A": "${X:-1}"}, "timeout": 30}`
	differ := []string{
		`{"command": "node", "args": ["b", "a"], "env": {"A": "${X:-1}"}}`,  // argument order
		`{"command": "node ", "args": ["a", "b"], "env": {"A": "${X:-1}"}}`, // string contents
		`{"command": "node", "args": ["a", "b "], "env": {"A": "${X:-1}"}}`,
		`{"command": "node", "args": ["a", "b"], "env": {"B": "${X:-1}"}}`, // env names
		`{"command": "node", "args": ["a", "b"], "env": {"A": "${X:-2}"}}`, // fallback expressions
		`{"command": "node", "args": ["a", "b"], "env": {"A": "${Y:-1}"}}`, // variable names
		`{"command": "node", "args": ["a", "b"], "env": {"A": "${X}"}}`,    // no fallback
		`{"command": "node", "args": ["a", "b"], "env": {"A": "${X:-1}"}, "timeout": 31}`,
		`{"command": "node", "args": ["a", "b"], "env": {"A": "${X:-1}"}, "cwd": "/tmp"}`,
		`{"command": "node", "args": ["a", "b", ""], "env": {"A": "${X:-1}"}}`,
		`{"command": "node", "args": ["ab"], "env": {"A": "${X:-1}"}}`,
		// issue 14's fields are covered
		`{"command": "node", "args": ["a", "b"], "env": {"A": "${X:-1}"}, "startupTimeout": 10}`,
		`{"command": "node", "args": ["a", "b"], "env": {"A": "${X:-1}"}, "toolTimeout": 10}`,
		`{"command": "node", "args": ["a", "b"], "env": {"A": "${X:-1}"}, "roots": ["."]}`,
		`{"command": "node", "args": ["a", "b"], "env": {"A": "${X:-1}"}, "roots": ["/srv"]}`,
		`{"command": "node", "args": ["a", "b"], "env": {"A": "${X:-1}"}, "envVars": ["GITHUB_TOKEN"]}`,
		`{"command": "node", "args": ["a", "b"], "env": {"A": "${X:-1}"}, "envVars": ["OTHER"]}`,
		`{"command": "node", "args": ["a", "b"], "env": {"A": "${X:-1}"}, "protocolVersion": "2025-06-18"}`, // a pinned revision
	}
	seen := map[string]string{entryDigest(t, base): base}
	for _, e := range differ {
		d := entryDigest(t, e)
		if prev, dup := seen[d]; dup {
			t.Errorf("same digest for\n%s\n%s", prev, e)
		}
		seen[d] = e
	}
	urlBase := `{"url": "https://h.example/mcp?a=1", "headers": {"X-A": "v"}}`
	seen = map[string]string{entryDigest(t, urlBase): urlBase}
	for _, e := range []string{
		`{"url": "https://h.example/mcp2?a=1", "headers": {"X-A": "v"}}`, // URL path
		`{"url": "https://h.example/mcp?a=2", "headers": {"X-A": "v"}}`,  // URL query
		`{"url": "https://h.example/mcp?a=1", "headers": {"X-B": "v"}}`,  // header names
		`{"url": "https://h.example/mcp?a=1", "headers": {"X-A": "w"}}`,  // header values
		`{"url": "https://h.example/mcp?a=1", "headers": {"X-A": "v"}, "type": "sse"}`,
		`{"url": "https://h.example/mcp?a=1", "headers": {"X-A": "v"}, "oauth": {"scopes": ["a"]}}`,
		`{"url": "https://h.example/mcp?a=1", "headers": {"X-A": "v"}, "oauth": {"client_secret": "s"}}`,
		`{"url": "https://h.example/mcp?a=1", "headers": {"X-A": "v"}, "envHeaders": {"X-Key": "KEY"}}`,
		`{"url": "https://h.example/mcp?a=1", "headers": {"X-A": "v"}, "envHeaders": {"X-Key": "OTHER"}}`,
		`{"url": "https://h.example/mcp?a=1", "headers": {"X-A": "v"}, "bearerTokenEnvVar": "TOKEN"}`,
	} {
		d := entryDigest(t, e)
		if prev, dup := seen[d]; dup {
			t.Errorf("same digest for\n%s\n%s", prev, e)
		}
		seen[d] = e
	}
	// Source and name are part of it.
	s := &Server{Name: "a", Source: "/x/.mcp.json", Type: TypeStdio, Command: "c"}
	k := []byte("k")
	d1 := Digest(k, s)
	s2 := *s
	s2.Name = "b"
	s3 := *s
	s3.Source = "/y/.mcp.json"
	if d1 == Digest(k, &s2) || d1 == Digest(k, &s3) || d1 == Digest([]byte("other"), s) {
		t.Errorf("name, source and key must change the digest")
	}
}

// TestDigestCoversWhatRuns: the folder a server runs in, where its file was
// found, and every member of the entry but enabled/disabled, required and
// the tool filters (issue 11, item 3; fields added by others).
func TestDigestCoversWhatRuns(t *testing.T) {
	k := []byte("k")
	// The same definition in two folders, or in a user and a project file,
	// or with another cwd, has another digest.
	base := &Server{Name: "a", Source: "/checkout-a/.mcp.json", Scope: ScopeProject, Type: TypeStdio, Command: "sh", Args: []string{"./mcp-server.sh"}}
	if base.WorkDir() != "/checkout-a" {
		t.Errorf("WorkDir = %q, want the project folder", base.WorkDir())
	}
	other := *base
	other.Source = "/checkout-b/.mcp.json"
	user := *base
	user.Scope = ScopeUser
	if user.WorkDir() != "" {
		t.Errorf("a user entry without cwd runs in the caller's folder: WorkDir = %q", user.WorkDir())
	}
	cwd := *base
	cwd.Cwd = "sub"
	if cwd.WorkDir() != "/checkout-a/sub" {
		t.Errorf("WorkDir = %q", cwd.WorkDir())
	}
	seen := map[string]string{}
	for name, s := range map[string]*Server{"base": base, "other folder": &other, "user scope": &user, "cwd": &cwd} {
		d := Digest(k, s)
		if prev, dup := seen[d]; dup {
			t.Errorf("%s and %s have the same digest", prev, name)
		}
		seen[d] = name
	}
	// Members added by others, and unknown ones, are covered.
	plain := `{"url": "https://h.example/mcp"}`
	seenE := map[string]string{entryDigest(t, plain): plain}
	for _, e := range []string{
		`{"url": "https://h.example/mcp", "allowHttp": true}`,
		`{"url": "https://h.example/mcp", "allowHttp": false}`,
		`{"url": "https://h.example/mcp", "maxMessageBytes": 1024}`,
		`{"url": "https://h.example/mcp", "shutdownTimeout": 5}`,
		`{"url": "https://h.example/mcp", "protocolVersion": "2025-06-18"}`,
		`{"url": "https://h.example/mcp", "startupTimeout": 5}`,
		`{"url": "https://h.example/mcp", "toolTimeout": 5}`,
		`{"url": "https://h.example/mcp", "roots": ["/home"]}`,
		`{"url": "https://h.example/mcp", "envHeaders": {"X": "Y"}}`,
		`{"url": "https://h.example/mcp", "bearerTokenEnvVar": "TOKEN"}`,
		`{"url": "https://h.example/mcp", "x-future": {"b": 1, "a": [1, 2]}}`,
	} {
		d := entryDigest(t, e)
		if prev, dup := seenE[d]; dup {
			t.Errorf("same digest for\n%s\n%s", prev, e)
		}
		seenE[d] = e
	}
	// ... in a canonical form: member order and white space do not count.
	if entryDigest(t, `{"url": "https://h.example/mcp", "x-future": {"b": 1, "a": [1, 2]}}`) !=
		entryDigest(t, `{"x-future":{"a":[1,2],"b":1},"url":"https://h.example/mcp"}`) {
		t.Error("member order changes the digest of other members")
	}
	// What only turns a server on or off, or narrows it, is not covered.
	for _, e := range []string{
		`{"url": "https://h.example/mcp", "enabled": false}`,
		`{"url": "https://h.example/mcp", "required": true, "enabledTools": ["a"], "disabledTools": ["b"]}`,
	} {
		if entryDigest(t, e) != entryDigest(t, plain) {
			t.Errorf("%s changes the digest", e)
		}
	}
}

// TestExpandRunsInTheProject: a project entry runs in the project folder,
// and a relative command path is the project's, never the caller's
// working directory's.
func TestExpandRunsInTheProject(t *testing.T) {
	dir := filepath.Join(string(filepath.Separator), "proj")
	home := filepath.Join(string(filepath.Separator), "home")
	for _, c := range []struct {
		s        Server
		cwd, cmd string
	}{
		{Server{Scope: ScopeProject, Source: filepath.Join(dir, FileName), Command: "./srv.sh"}, dir, filepath.Join(dir, "srv.sh")},
		{Server{Scope: ScopeProject, Source: filepath.Join(dir, FileName), Command: "node"}, dir, "node"},
		{Server{Scope: ScopeProject, Source: filepath.Join(dir, FileName), Command: "bin/x", Cwd: "sub"}, filepath.Join(dir, "sub"), filepath.Join(dir, "sub", "bin", "x")},
		{Server{Scope: ScopeUser, Source: filepath.Join(home, FileName), Command: "./srv.sh"}, "", filepath.Join(home, "srv.sh")},
		{Server{Scope: ScopeUser, Source: filepath.Join(home, FileName), Command: "npx"}, "", "npx"},
	} {
		c.s.Type, c.s.Name = TypeStdio, "s"
		x, err := c.s.Expand(nil)
		if err != nil {
			t.Fatal(err)
		}
		if x.Cwd != c.cwd || x.Command != c.cmd {
			t.Errorf("%+v: cwd %q command %q, want %q %q", c.s, x.Cwd, x.Command, c.cwd, c.cmd)
		}
	}
}

func checkMode(t *testing.T, path string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		return
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("%s: mode %v, want 0600", path, fi.Mode().Perm())
	}
}

func TestLoadKey(t *testing.T) {
	home := filepath.Join(t.TempDir(), "new", "home")
	k1, err := LoadKey(home)
	if err != nil || len(k1) != 32 {
		t.Fatalf("%x %v", k1, err)
	}
	checkMode(t, filepath.Join(home, KeyFileName))
	if fi, err := os.Stat(home); err != nil || runtime.GOOS != "windows" && fi.Mode().Perm() != 0o700 {
		t.Errorf("home: %v %v", fi.Mode(), err)
	}
	k2, err := LoadKey(home)
	if err != nil || !bytes.Equal(k1, k2) {
		t.Errorf("second load: %v", err)
	}
	entries, _ := os.ReadDir(home)
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
	writeFile(t, filepath.Join(home, KeyFileName), "short")
	if _, err := LoadKey(home); err == nil || !strings.Contains(err.Error(), "5 bytes instead of 32") {
		t.Errorf("short key: %v", err)
	}
}

func TestApprovalStates(t *testing.T) {
	opts := setup(t, "", `{"mcpServers": {"a": {"command": "a"}, "b": {"url": "https://b.example/"}}}`)
	settings := filepath.Join(opts.Home, SettingsFileName)
	writeFile(t, settings, `{
  "theme": "dark",
  "capabilities": {
    "other": [1, 2],
    "mcp_approvals": {}
  },
  "zz": null
}
`)
	c, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	a, err := OpenApprovals(opts.Home)
	if err != nil {
		t.Fatal(err)
	}
	sa, sb := c.Server("a"), c.Server("b")
	if st := a.State(sa); st != NeverApproved {
		t.Errorf("state %v", st)
	}
	if err := a.Approve(sa); err != nil {
		t.Fatal(err)
	}
	checkMode(t, settings)
	if st := a.State(sa); st != Approved {
		t.Errorf("after approve: %v", st)
	}
	if st := a.State(sb); st != NeverApproved {
		t.Errorf("b: %v", st)
	}
	data, _ := os.ReadFile(settings)
	for _, want := range []string{`"theme": "dark"`, `"other": [1, 2]`, `"zz": null`, `"version": 1`} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("settings.json lost %q:\n%s", want, data)
		}
	}
	if i, j, k := bytes.Index(data, []byte("theme")), bytes.Index(data, []byte("capabilities")), bytes.Index(data, []byte("zz")); !(i < j && j < k) {
		t.Errorf("key order changed:\n%s", data)
	}

	// A fresh Approvals (another process) sees the same.
	a2, err := OpenApprovals(opts.Home)
	if err != nil || a2.State(sa) != Approved {
		t.Fatalf("reopened: %v %v", a2.State(sa), err)
	}

	// Changed since approval.
	writeFile(t, sa.Source, `{"mcpServers": {"a": {"command": "a", "args": ["--evil"]}, "b": {"url": "https://b.example/"}}}`)
	c2, _ := Load(opts)
	if st := a.State(c2.Server("a")); st != Changed {
		t.Errorf("changed: %v", st)
	}
	// Approving what was loaded before the change is refused.
	var stale *StaleError
	if err := a.Approve(sa); !errors.As(err, &stale) || stale.Reason != "changed" || stale.Server != "a" {
		t.Errorf("stale approve: %v", err)
	}
	if err := a.Approve(c2.Server("a")); err != nil || a.State(c2.Server("a")) != Approved {
		t.Errorf("approve the new one: %v", err)
	}
	// Formatting alone is no change.
	writeFile(t, sa.Source, "{\"mcpServers\": {\n\"b\": {\"url\": \"https://b.example/\"},\n \"a\": {\"args\": [\"--evil\"], \"command\": \"a\", \"enabled\": false}}}")
	c3, _ := Load(opts)
	if st := a.State(c3.Server("a")); st != Approved {
		t.Errorf("reformatted: %v", st)
	}

	// Revoked.
	if err := a.Revoke(c3.Server("a")); err != nil {
		t.Fatal(err)
	}
	checkMode(t, settings)
	if st := a.State(c3.Server("a")); st != Revoked {
		t.Errorf("revoked: %v", st)
	}

	// Removed from the file.
	writeFile(t, sa.Source, `{"mcpServers": {}}`)
	if err := a.Approve(c3.Server("a")); !errors.As(err, &stale) || stale.Reason != "removed" {
		t.Errorf("removed: %v", err)
	}
}

func TestApprovalInvalidRecords(t *testing.T) {
	s := &Server{Name: "a", Source: "/p/.mcp.json", Type: TypeStdio, Command: "x", Timeout: DefaultTimeout}
	for _, rec := range []string{
		`true`, `null`, `"yes"`, `{}`, `{"version": 2, "digest": "%s"}`, `{"version": "1", "digest": "%s"}`,
		`{"version": 1}`, `{"version": 1, "digest": "abc"}`, `{"version": 1, "digest": "%S"}`,
		`{"version": 1, "digest": "%s", "digest": "%s"}`,
	} {
		home := t.TempDir()
		a, err := OpenApprovals(home)
		if err != nil {
			t.Fatal(err)
		}
		d := a.Digest(s)
		r := strings.ReplaceAll(rec, "%s", d)
		r = strings.ReplaceAll(r, "%S", strings.ToUpper(d))
		writeFile(t, filepath.Join(home, SettingsFileName), `{"capabilities": {"mcp_approvals": {"/p/.mcp.json": {"a": `+r+`}}}}`)
		a, err = OpenApprovals(home)
		if err != nil {
			t.Fatal(err)
		}
		if st := a.State(s); st != InvalidRecord {
			t.Errorf("%s: %v", r, st)
		}
	}
	for _, settings := range []string{`{"capabilities": []}`, `{"capabilities": {"mcp_approvals": {"/p/.mcp.json": 1}}}`} {
		home := t.TempDir()
		writeFile(t, filepath.Join(home, SettingsFileName), settings)
		a, err := OpenApprovals(home)
		if err != nil {
			t.Fatal(err)
		}
		if st := a.State(s); st != InvalidRecord {
			t.Errorf("%s: %v", settings, st)
		}
	}
}

// TestSettingsNotJSON: a settings.json that is not JSON is never
// overwritten.
func TestSettingsNotJSON(t *testing.T) {
	opts := setup(t, `{"mcpServers": {"a": {"command": "a"}}}`, "")
	settings := filepath.Join(opts.Home, SettingsFileName)
	const broken = `{"theme": "dark",`
	writeFile(t, settings, broken)
	c, _ := Load(opts)
	a, err := OpenApprovals(opts.Home)
	var fe *FileError
	if !errors.As(err, &fe) || !fe.Syntax || a == nil {
		t.Fatalf("open: %v", err)
	}
	if a.State(c.Server("a")) != Unavailable || a.Err() == nil {
		t.Errorf("state of an unreadable settings.json")
	}
	if err := a.Approve(c.Server("a")); err == nil {
		t.Errorf("approve over a broken settings.json succeeded")
	}
	if err := a.Revoke(c.Server("a")); err == nil {
		t.Errorf("revoke over a broken settings.json succeeded")
	}
	if data, _ := os.ReadFile(settings); string(data) != broken {
		t.Errorf("settings.json was overwritten: %s", data)
	}
	writeFile(t, settings, `{"capabilities": "none"}`)
	if err := a.Approve(c.Server("a")); err == nil || !strings.Contains(err.Error(), `"capabilities" is a string, not an object`) {
		t.Errorf("approve into a non-object: %v", err)
	}
}

func TestApproveInvalid(t *testing.T) {
	opts := setup(t, `{"mcpServers": {"a": {"command": 1}}}`, "")
	c, _ := Load(opts)
	a, _ := OpenApprovals(opts.Home)
	if err := a.Approve(c.Server("a")); err == nil || !strings.Contains(err.Error(), "invalid") {
		t.Errorf("approve invalid: %v", err)
	}
}

// TestApprovalOutdated: a record made by the first form of the digest
// (an older mcpwire) reads "renewal required", not "changed"; a record
// that matches no form reads "changed"; approving again makes it approved.
func TestApprovalOutdated(t *testing.T) {
	opts := setup(t, "", `{"mcpServers": {"a": {"command": "a", "args": ["x"]}, "b": {"command": "b"}}}`)
	c, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	key, err := LoadKey(opts.Home)
	if err != nil {
		t.Fatal(err)
	}
	sa, sb := c.Server("a"), c.Server("b")
	if digestForm(key, sa, 1) == Digest(key, sa) {
		t.Fatal("the two forms agree: the test shows nothing")
	}
	src, _ := json.Marshal(sa.Source)
	writeFile(t, filepath.Join(opts.Home, SettingsFileName), fmt.Sprintf(
		`{"capabilities": {"mcp_approvals": {%s: {"a": {"version": 1, "digest": %q}, "b": {"version": 1, "digest": %q}}}}}`,
		src, digestForm(key, sa, 1), digestForm(key, sa, 1)))
	a, err := OpenApprovals(opts.Home)
	if err != nil {
		t.Fatal(err)
	}
	if st := a.State(sa); st != Outdated || st.String() != "renewal required" {
		t.Errorf("a record of digest form 1: %v, want renewal required", st)
	}
	if st := a.State(sb); st != Changed {
		t.Errorf("a record of another definition: %v, want changed", st)
	}
	if err := a.Approve(sa); err != nil {
		t.Fatal(err)
	}
	if st := a.State(sa); st != Approved {
		t.Errorf("approved again: %v", st)
	}
}
