package manager

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/demo"
	"github.com/mcpwire/mcpwire/internal/proctest"
	"github.com/mcpwire/mcpwire/protocol"
)

// TestProbe: a probe tries the detection and then each supported
// revision pinned, and says which eras the server speaks; it neither
// reads nor writes the era cache it is given.
func TestProbe(t *testing.T) {
	proctest.Check(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cache := openHome(t, t.TempDir()).EraCache()
	for _, c := range []struct {
		args     []string
		eras     string
		detected protocol.Era
	}{
		{nil, "dual", protocol.EraModern},
		{[]string{"--era", "modern"}, string(protocol.EraModern), protocol.EraModern},
		{[]string{"--era", "legacy"}, string(protocol.EraLegacy), protocol.EraLegacy},
	} {
		spec := demoSpec(t, c.args...)
		rep := Probe(ctx, spec, &DialOptions{Environ: os.Environ(), EraCache: cache}, 30*time.Second)
		if !rep.OK() || rep.Eras() != c.eras || rep.AuthErr() != nil || rep.LegacySSE {
			t.Errorf("%v: OK %v, eras %s, auth %v, SSE %v; want %s", c.args, rep.OK(), rep.Eras(), rep.AuthErr(), rep.LegacySSE, c.eras)
		}
		d := rep.Detected
		if !d.OK || d.Revision != "" || d.Era != c.detected || d.ServerInfo.Name == "" || len(d.Capabilities) == 0 {
			t.Errorf("%v: detected %+v, want %s", c.args, d, c.detected)
		}
		if len(rep.Revisions) != len(protocol.SupportedVersions()) {
			t.Fatalf("%v: %d revisions tried, want %d", c.args, len(rep.Revisions), len(protocol.SupportedVersions()))
		}
		for i, row := range rep.Revisions {
			v := protocol.SupportedVersions()[i]
			speaks := c.eras == "dual" || c.eras == string(protocol.EraOf(v))
			if row.Revision != v || (row.OK && (row.Spoken != v || row.Era != protocol.EraOf(v))) || (!row.OK && row.Err == nil) {
				t.Errorf("%v: row %+v for %s", c.args, row, v)
			}
			if speaks && !row.OK {
				t.Errorf("%v: %s refused: %v", c.args, v, row.Err)
			}
			if !speaks && row.OK && protocol.EraOf(v) == protocol.EraModern {
				t.Errorf("%v: %s accepted by a server that does not speak it", c.args, v)
			}
		}
		if h := cache.Lookup(spec); h != nil {
			t.Errorf("%v: the probe wrote the era cache: %+v", c.args, h)
		}
	}
}

// TestProbeFailures: a server that never answers fails the detection
// within the budget of one connection, and the probe stops when its
// context ends; a server that wants a login says so through AuthErr.
func TestProbeFailures(t *testing.T) {
	proctest.Check(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep := Probe(ctx, demoSpec(t, "--hang-initialize"), &DialOptions{Environ: os.Environ()}, time.Second)
	if rep.OK() || rep.Detected.Err == nil || rep.Eras() != "none" {
		t.Fatalf("silent server: OK %v, detected %+v, eras %s", rep.OK(), rep.Detected, rep.Eras())
	}
	if rep.AuthErr() != nil {
		t.Errorf("silent server: AuthErr %v", rep.AuthErr())
	}

	cctx, ccancel := context.WithCancel(ctx)
	ccancel()
	rep = Probe(cctx, demoSpec(t), nil, time.Minute)
	if rep.Detected.OK || len(rep.Revisions) != 0 {
		t.Errorf("ended context: detected %+v, %d revisions tried", rep.Detected, len(rep.Revisions))
	}

	spec := httpDemo(t, demo.Options{RequireAuth: "the-token"})
	rep = Probe(ctx, spec, nil, 30*time.Second)
	var se *ServerError
	if err := rep.AuthErr(); err == nil || !errors.As(err, &se) || se.Phase != PhaseAuth {
		t.Errorf("locked server: AuthErr %v, want a *ServerError in the auth phase", err)
	}
}
