package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/mcpwire/mcpwire/internal/safe"
)

const editBase = `{
  "$comment": "kept",
  "mcpServers": {
    "first": {
      "command": "one",
      "x-unknown": {"keep": [1, 2, 3]}
    },
    "second": {"url": "https://s.example/mcp", "disabled": true},
    "third": {
      "command": "three",
      "enabled": true
    }
  },
  "trailer": 1
}
`

func readString(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestAddServer(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	writeFile(t, path, editBase)
	s, err := AddServer(path, ScopeUser, "fourth", Entry{Command: "npx", Args: []string{"-y", "pkg"}, Env: map[string]string{"K": "${K}"}})
	if err != nil {
		t.Fatal(err)
	}
	checkMode(t, path)
	got := readString(t, path)
	want := strings.Replace(editBase, `      "enabled": true
    }
  },`, `      "enabled": true
    },
    "fourth": {
      "command": "npx",
      "args": [
        "-y",
        "pkg"
      ],
      "env": {
        "K": "${K}"
      }
    }
  },`, 1)
	if got != want {
		t.Errorf("after add:\n%s\nwant:\n%s", got, want)
	}
	if s.Name != "fourth" || s.Command != "npx" || s.Err != nil || !filepath.IsAbs(s.Source) {
		t.Errorf("returned server: %+v", s)
	}

	// The returned server approves (nothing changed since).
	home := t.TempDir()
	a, err := OpenApprovals(home)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Approve(s); err != nil || a.State(s) != Approved {
		t.Errorf("approve after add: %v", err)
	}

	if _, err := AddServer(path, ScopeUser, "first", Entry{Command: "x"}); !errors.Is(err, ErrNameInUse) {
		t.Errorf("name in use: %v", err)
	}
	if _, err := AddServer(path, ScopeUser, "bad/name", Entry{Command: "x"}); err == nil {
		t.Errorf("bad name accepted")
	}
	for _, e := range []any{Entry{}, Entry{Command: "x", URL: "https://a.example"}, Entry{URL: "http://example.com"}, json.RawMessage(`[1]`), json.RawMessage(`{"command": 1}`)} {
		if _, err := AddServer(path, ScopeUser, "fifth", e); err == nil {
			t.Errorf("invalid entry %+v accepted", e)
		}
	}
	if readString(t, path) != want {
		t.Errorf("a refused add changed the file")
	}
}

func TestAddServerNewFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "deep", "home")
	path := filepath.Join(dir, FileName)
	if _, err := AddServer(path, ScopeUser, "a", json.RawMessage(`{"url":"https://a.example/mcp","headers":{"Authorization":"Bearer x"}}`)); err != nil {
		t.Fatal(err)
	}
	checkMode(t, path)
	if fi, err := os.Stat(dir); err != nil || runtime.GOOS != "windows" && fi.Mode().Perm() != 0o700 {
		t.Errorf("dir mode: %v", err)
	}
	want := `{
  "mcpServers": {
    "a": {
      "url": "https://a.example/mcp",
      "headers": {
        "Authorization": "Bearer x"
      }
    }
  }
}
`
	if got := readString(t, path); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if _, err := AddServer(path, ScopeUser, "b", Entry{Command: "b"}); err != nil {
		t.Fatal(err)
	}
	if err := RemoveServer(path, "a"); err != nil {
		t.Fatal(err)
	}
	if err := RemoveServer(path, "b"); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, path); got != "{\n  \"mcpServers\": {}\n}\n" {
		t.Errorf("after removing all:\n%s", got)
	}
	if _, err := AddServer(path, ScopeUser, "c", Entry{Command: "c"}); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, path); !strings.Contains(got, "{\n    \"c\": {\n      \"command\": \"c\"\n    }\n  }") {
		t.Errorf("add into an empty object:\n%s", got)
	}
}

func TestAddServerCompactAndVSCode(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	writeFile(t, path, `{"servers":{"a":{"command":"a"}},"inputs":[]}`)
	if _, err := AddServer(path, ScopeUser, "b", Entry{URL: "https://b.example"}); err != nil {
		t.Fatal(err)
	}
	if got, want := readString(t, path), `{"servers":{"a":{"command":"a"},"b":{"url":"https://b.example"}},"inputs":[]}`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestRemoveServer(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"first", `{
  "$comment": "kept",
  "mcpServers": {
    "second": {"url": "https://s.example/mcp", "disabled": true},
    "third": {
      "command": "three",
      "enabled": true
    }
  },
  "trailer": 1
}
`},
		{"second", `{
  "$comment": "kept",
  "mcpServers": {
    "first": {
      "command": "one",
      "x-unknown": {"keep": [1, 2, 3]}
    },
    "third": {
      "command": "three",
      "enabled": true
    }
  },
  "trailer": 1
}
`},
		{"third", `{
  "$comment": "kept",
  "mcpServers": {
    "first": {
      "command": "one",
      "x-unknown": {"keep": [1, 2, 3]}
    },
    "second": {"url": "https://s.example/mcp", "disabled": true}
  },
  "trailer": 1
}
`},
	} {
		path := filepath.Join(t.TempDir(), FileName)
		writeFile(t, path, editBase)
		if err := os.Chmod(path, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := RemoveServer(path, tc.name); err != nil {
			t.Fatal(err)
		}
		checkMode(t, path)
		if got := readString(t, path); got != tc.want {
			t.Errorf("remove %s:\n%s\nwant:\n%s", tc.name, got, tc.want)
		}
	}
	path := filepath.Join(t.TempDir(), FileName)
	writeFile(t, path, editBase)
	if err := RemoveServer(path, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("remove missing: %v", err)
	}
	if err := RemoveServer(filepath.Join(t.TempDir(), FileName), "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("remove from a missing file: %v", err)
	}
}

func TestSetEnabled(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	writeFile(t, path, editBase)
	steps := []struct {
		name    string
		enabled bool
		old     string
		new     string
	}{
		{"first", false, `"x-unknown": {"keep": [1, 2, 3]}
    },`, `"x-unknown": {"keep": [1, 2, 3]},
      "enabled": false
    },`},
		{"second", true, `"disabled": true}`, `"disabled": false}`},
		{"third", false, `"enabled": true
    }`, `"enabled": false
    }`},
	}
	want := editBase
	for _, st := range steps {
		if err := SetEnabled(path, st.name, st.enabled); err != nil {
			t.Fatal(err)
		}
		checkMode(t, path)
		want = strings.Replace(want, st.old, st.new, 1)
		if got := readString(t, path); got != want {
			t.Errorf("set %s %v:\n%s\nwant:\n%s", st.name, st.enabled, got, want)
		}
	}
	opts := LoadOptions{Home: t.TempDir(), Dir: filepath.Dir(path), Getenv: env(nil)}
	c, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	if c.Server("first").Enabled || !c.Server("second").Enabled || c.Server("third").Enabled {
		t.Errorf("enabled flags wrong after edits")
	}
	// Both members present: "enabled" wins and "disabled" goes.
	writeFile(t, path, `{"mcpServers": {"a": {"command": "a", "disabled": false, "enabled": true}}}`)
	if err := SetEnabled(path, "a", false); err != nil {
		t.Fatal(err)
	}
	if got, want := readString(t, path), `{"mcpServers": {"a": {"command": "a", "enabled": false}}}`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if err := SetEnabled(path, "zz", true); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing: %v", err)
	}
}

// TestEditsNeverOverwriteInvalidJSON: every edit refuses a file that is
// not JSON and leaves it as it was.
func TestEditsNeverOverwriteInvalidJSON(t *testing.T) {
	for _, broken := range []string{`{"mcpServers": {"a": {"command": "a"},}}`, `[1, 2]`, `{"mcpServers": "x"}`} {
		path := filepath.Join(t.TempDir(), FileName)
		writeFile(t, path, broken)
		edits := map[string]func() error{
			"add":     func() error { _, err := AddServer(path, ScopeUser, "b", Entry{Command: "b"}); return err },
			"remove":  func() error { return RemoveServer(path, "a") },
			"enable":  func() error { return SetEnabled(path, "a", true) },
			"disable": func() error { return SetEnabled(path, "a", false) },
		}
		for name, edit := range edits {
			err := edit()
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Errorf("%s on %s: %v, want a *FileError", name, broken, err)
			}
			if got := readString(t, path); got != broken {
				t.Errorf("%s overwrote %s: %s", name, broken, got)
			}
		}
		entries, _ := os.ReadDir(filepath.Dir(path))
		if len(entries) != 1 {
			t.Errorf("temporary files left: %v", entries)
		}
	}
}

// TestEditThroughSymlink: no edit writes through a symbolic link, nor
// replaces it (issue 11, item 4).
func TestEditThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere.json")
	writeFile(t, target, `{"mcpServers": {"b": {"command": "b"}}}`)
	os.Chmod(target, 0o644)
	link := filepath.Join(dir, FileName)
	if err := os.Symlink(target, link); err != nil {
		t.Skip(err)
	}
	for name, edit := range map[string]func() error{
		"add":     func() error { _, err := AddServer(link, ScopeUser, "a", Entry{Command: "a"}); return err },
		"remove":  func() error { return RemoveServer(link, "b") },
		"disable": func() error { return SetEnabled(link, "b", false) },
	} {
		err := edit()
		var se *safe.SymlinkError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("%s: err = %v, want a refusal naming the link", name, err)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s: the link was replaced", name)
		}
		if got := readString(t, target); got != `{"mcpServers": {"b": {"command": "b"}}}` {
			t.Errorf("%s: the target was edited: %s", name, got)
		}
		if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o644 {
			t.Errorf("%s: the target's mode changed to %v", name, fi.Mode().Perm())
		}
	}
}

// TestEditsParallel: edits and approvals from many goroutines at once (each
// with a lock file of its own opening, as separate processes have) all
// land (issue 11, item 16; testdata/script/edits_locked.txtar runs 50
// processes).
func TestEditsParallel(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, FileName)
	ap, err := OpenApprovals(home)
	if err != nil {
		t.Fatal(err)
	}
	const n = 30
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			s, err := AddServer(path, ScopeUser, fmt.Sprintf("s%02d", i), Entry{Command: "x"})
			if err == nil {
				err = ap.Approve(s)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	c, err := Load(LoadOptions{Home: home, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ap, _ = OpenApprovals(home)
	approved := 0
	for _, s := range c.Servers {
		if ap.State(s) == Approved {
			approved++
		}
	}
	if len(c.Servers) != n || approved != n {
		t.Errorf("%d servers, %d approved; want %d of each", len(c.Servers), approved, n)
	}
}
