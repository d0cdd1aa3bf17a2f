package cli

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mcpwire/mcpwire/config/registry"
)

// TestSyncWriteKeepsOthers: sync writes only the entries it changed over
// the lock file as it is when written, so an install that locked another
// entry while sync was reviewing (or asking) is kept.
func TestSyncWriteKeepsOthers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.lock")
	// What sync read at its start: one entry.
	start := &registry.Lock{Servers: map[string]registry.Locked{"a": {Registry: "https://r.example", Name: "x/a", Version: "1.0.0"}}}
	if err := start.Write(path); err != nil {
		t.Fatal(err)
	}
	// Meanwhile an install locks b.
	if _, err := updateLock(context.Background(), path, "b", registry.Locked{Registry: "https://r.example", Name: "x/b", Version: "2.0.0"}); err != nil {
		t.Fatal(err)
	}
	// sync now writes its own change to a.
	updates := map[string]registry.Locked{"a": {Registry: "https://r.example", Name: "x/a", Version: "1.1.0"}}
	if err := writeLockLocked(context.Background(), updates, path); err != nil {
		t.Fatal(err)
	}
	got, err := registry.ReadLock(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Servers["a"].Version != "1.1.0" || got.Servers["b"].Version != "2.0.0" {
		t.Fatalf("lock after sync: %+v, want a@1.1.0 (sync's) and b@2.0.0 (the install's)", got.Servers)
	}
}
