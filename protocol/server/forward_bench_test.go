package server

import (
	"context"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
)

// The forwarder's per-call path, in process over pipes (host → the
// proxy's server → its client → the target): a tools/call answered by
// the target. Attached is the target connected before serving,
// declaring everything (the proxy before it declared its hosts'
// capabilities); Dialed is the proxy's way now, declaring the host's.

func benchForward(b *testing.B, modernHost bool, targetEra string, attach bool) {
	var cp *capsProxy
	if attach {
		cp = attachedCapsProxy(b, targetEra)
	} else {
		cp = newCapsProxy(b, targetEra)
	}
	h := newCapsHost(b, cp, modernHost, `{"roots":{},"sampling":{}}`)
	if _, err := h.call("caps", ""); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := h.call("caps", ""); err != nil {
			b.Fatal(err)
		}
	}
}

// attachedCapsProxy is newCapsProxy with the target attached before
// serving.
func attachedCapsProxy(b *testing.B, era string) *capsProxy {
	f := NewForwarder()
	var popts protocol.Options
	f.ClientOptions(&popts)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := protocol.Connect(ctx, onPipes(b, capsTarget(era, nil)), &popts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	f.Attach(s)
	return &capsProxy{srv: New(f.Options(Options{}))}
}

func BenchmarkForwardModernAttached(b *testing.B) { benchForward(b, true, EraModern, true) }
func BenchmarkForwardModernDialed(b *testing.B)   { benchForward(b, true, EraModern, false) }
func BenchmarkForwardLegacyAttached(b *testing.B) { benchForward(b, false, EraLegacy, true) }
func BenchmarkForwardLegacyDialed(b *testing.B)   { benchForward(b, false, EraLegacy, false) }
