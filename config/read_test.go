package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// TestLoadRefusesSpecialFiles: a project .mcp.json that is a link to
// /dev/zero or /dev/stdin, a FIFO, or a file over 4 MiB is an error of
// that file, at once (no read until memory runs out, no wait for a
// writer); the user's servers still load.
func TestLoadRefusesSpecialFiles(t *testing.T) {
	cases := map[string]func(t *testing.T, p string){
		"huge": func(t *testing.T, p string) {
			f, err := os.Create(p)
			if err != nil {
				t.Fatal(err)
			}
			f.Truncate(safe.LimitConfig + 1)
			f.Close()
		},
	}
	for _, dev := range []string{"/dev/zero", "/dev/stdin"} {
		if _, err := os.Stat(dev); err == nil {
			cases[dev] = func(t *testing.T, p string) {
				if err := os.Symlink(dev, p); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if mkfifo != nil {
		cases["FIFO"] = func(t *testing.T, p string) { mkfifo(t, p) }
	}
	for name, make := range cases {
		t.Run(name, func(t *testing.T) {
			opts := setup(t, `{"mcpServers":{"mine":{"command":"x"}}}`, "")
			p := filepath.Join(opts.Dir, FileName)
			make(t, p)
			c, err := Load(opts)
			if c == nil || err == nil {
				t.Fatalf("Load = %v, %v; want the config and the file's error", c, err)
			}
			if names(c) != "mine@user" {
				t.Errorf("servers %q, want the user's", names(c))
			}
			var got error
			for _, f := range c.Files {
				if f.Scope == ScopeProject {
					got = f.Err
				}
			}
			var re *safe.ReadError
			if !errors.As(got, &re) && !errors.Is(got, safe.ErrNotRegular) && !errors.Is(got, safe.ErrTooLarge) {
				t.Fatalf("project file error %v, want a refusal of the reader", got)
			}
			if !strings.Contains(got.Error(), p) {
				t.Errorf("error %q does not name the file", got)
			}
		})
	}
}

// mkfifo makes a FIFO at p, where the system has them.
var mkfifo func(t *testing.T, p string)
