package manager

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/internal/proctest"
)

// TestApprovalsFailClosed: when the approvals of the home cannot be read
// or created, no definition that needs approval runs, and its state names
// the cause (issue 11, items 1 and 2). Only TrustAll skips approvals
// (no Home is the default one: TestNewDefaultHome).
func TestApprovalsFailClosed(t *testing.T) {
	proctest.Check(t)
	cases := []struct {
		name  string
		setup func(t *testing.T, home string) string // returns the Home to give
		cause string
	}{
		{"key empty", func(t *testing.T, home string) string {
			os.WriteFile(filepath.Join(home, config.KeyFileName), nil, 0o600)
			return home
		}, "0 bytes instead of 32"},
		{"key of the wrong length", func(t *testing.T, home string) string {
			os.WriteFile(filepath.Join(home, config.KeyFileName), []byte("short"), 0o600)
			return home
		}, "5 bytes instead of 32"},
		{"key a directory", func(t *testing.T, home string) string {
			os.Mkdir(filepath.Join(home, config.KeyFileName), 0o700)
			return home
		}, "approval key"},
		{"home not creatable", func(t *testing.T, home string) string {
			file := filepath.Join(home, "a-file")
			os.WriteFile(file, nil, 0o600)
			return filepath.Join(file, "home")
		}, "not a directory"},
		{"settings not JSON", func(t *testing.T, home string) string {
			os.WriteFile(filepath.Join(home, config.SettingsFileName), []byte(`{"a":`), 0o600)
			return home
		}, "settings.json"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			writeConfig(t, home, demoServer{name: "s"})
			cfg := loadConfig(t, home)
			m, err := New(Options{Config: cfg, Home: openHome(t, c.setup(t, home)), StartupTimeout: 20 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			tools, _ := m.Tools(ctx)
			if len(tools) != 0 {
				t.Fatalf("%d tools from a server that is not approved", len(tools))
			}
			st := state(t, m, "s")
			var ae *ApprovalError
			if st.State != StateNeedsApproval || st.Phase != PhaseApproval || st.Pid != 0 || !errors.As(st.Err, &ae) {
				t.Fatalf("state %+v, want needs approval with an *ApprovalError", st)
			}
			if !strings.Contains(st.Err.Error(), c.cause) {
				t.Errorf("error %q does not name the cause %q", st.Err, c.cause)
			}
		})
	}
	t.Run("TrustAll", func(t *testing.T) {
		home := t.TempDir()
		writeConfig(t, home, demoServer{name: "s"})
		m, err := New(Options{Config: loadConfig(t, home), TrustAll: true, StartupTimeout: 20 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		if tools := mustTools(t, m); len(tools) != demoTools {
			t.Fatalf("%d tools with TrustAll, want %d", len(tools), demoTools)
		}
	})
}
