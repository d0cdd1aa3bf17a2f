package cli

import (
	"context"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// withLockWait gives ctx the hook that says, once per lock, why a
// command waits: another program edits the same file. A signal (Ctrl-C)
// ends the wait with nothing written.
func (inv *invocation) withLockWait(ctx context.Context) context.Context {
	return safe.WithLockWait(ctx, func(path string) {
		inv.say("waiting for %s: another program holds its lock (Ctrl-C gives up, writing nothing)\n", safe.Sanitize(path))
	})
}
