package cli

import (
	"bytes"
	"path/filepath"

	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/manager"
)

// recordTo starts the recording of --record FILE, once per invocation:
// every session of the command is recorded, and the file written (0600)
// when the command ends.
func (inv *invocation) recordTo(path string) *manager.Recorder {
	if inv.recorder != nil {
		return inv.recorder
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(inv.env.Dir, path)
	}
	rec := manager.NewRecorder(inv.redactor())
	inv.recorder = rec
	inv.atExit(func() {
		// Once more with every secret the command learnt, line by line.
		var out bytes.Buffer
		for _, line := range bytes.SplitAfter(rec.Bytes(), []byte("\n")) {
			if len(bytes.TrimSpace(line)) > 0 {
				out.Write(inv.redactJSON(bytes.TrimRight(line, "\n")))
				out.WriteByte('\n')
			}
		}
		if err := safe.WriteAtomic(path, out.Bytes(), 0o600); err != nil {
			inv.say("error: --record: %s\n", safe.Sanitize(err.Error()))
		}
	})
	return rec
}
