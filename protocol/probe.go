package protocol

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// First contact over a stream without HTTP envelopes (stdio). The spec
// (2026-07-28/basic/transports/stdio.mdx, "Backward Compatibility") lets
// the probe end in legacy when the server "does not respond within a
// reasonable timeout"; it does not say how long that is, and no fixed
// time tells a legacy server that ignores server/discover from a server
// of either era that is slow to start (npx on a cold cache: seconds
// before its first byte). So the probe waits alone for ProbeOverlap only;
// then initialize goes out beside it, and the first answer decides:
//
//   - a DiscoverResult or a recognized modern error: modern (the
//     initialize is given up unanswered, never cancelled with a notice);
//   - any other error to server/discover: legacy, and the initialize
//     already sent is the handshake (no second round trip);
//   - a result to initialize while server/discover is unanswered: the
//     server read the probe first and did not answer it; it gets
//     probeSettle more to answer it (a server that handles requests
//     concurrently may answer them in either order), then it is legacy.
//
// A legacy server that ignores the probe thus costs ProbeOverlap plus
// probeSettle more than a legacy-only client; a slow starter of either
// era reads both requests when it starts and is classified by its
// answers, whatever its start takes.

// DefaultProbeOverlap is how long the probe waits alone over stdio before
// initialize is sent beside it, unless [Options.ProbeOverlap] says
// otherwise.
const DefaultProbeOverlap = 500 * time.Millisecond

// probeSettle is how long an answered initialize waits for the answer to
// the server/discover sent before it.
const probeSettle = 250 * time.Millisecond

// An earlyInit is an initialize sent beside the era probe.
type earlyInit struct {
	version string
	ctx     context.Context // ends at the session's timeout
	cancel  context.CancelFunc
	done    chan struct{} // closed once raw or err is set
	raw     json.RawMessage
	err     error
}

// sendEarlyInit sends initialize asking for the newest legacy revision
// without waiting for its answer.
func (s *Session) sendEarlyInit(ctx context.Context) *earlyInit {
	e := &earlyInit{version: LatestLegacyVersion, done: make(chan struct{})}
	e.ctx, e.cancel = context.WithTimeoutCause(ctx, s.startTimeout(), &TimeoutError{Method: "initialize", Timeout: s.startTimeout()})
	params, err := jsonrpc.MarshalParams(s.initParams(e.version))
	var p *jsonrpc.Pending
	if err == nil {
		p, err = s.conn.StartRaw(e.ctx, "initialize", params)
	}
	if err != nil {
		e.err = err
		close(e.done)
		return e
	}
	go func() {
		defer close(e.done)
		resp, err := p.Wait(e.ctx)
		if err == nil {
			e.raw = resp.Result
		}
		e.err = err
	}()
	return e
}

// abandon gives the early initialize up: the server is not told (an
// initialize is never cancelled), a late answer is dropped.
func (e *earlyInit) abandon() {
	if e == nil {
		return
	}
	e.cancel()
	<-e.done
}

// finish completes the handshake with the early initialize's answer.
func (s *Session) finishEarly(ctx context.Context, e *earlyInit) error {
	<-e.done
	defer e.cancel()
	s.speak(e.version)
	return s.initialized(ctx, e.ctx, e.version, false, e.raw, e.err)
}

// A probeAnswer is the outcome of one server/discover.
type probeAnswer struct {
	_ [0]func() // not comparable: no equality function in the binary

	res   *DiscoverResult
	found bool
	err   error
}

// errSettled ends a probe that an answered initialize made moot.
var errSettled = errors.New("the server answered initialize instead")

// probeOverlapped is the first server/discover of an unpinned detection
// over stdio, with initialize sent beside it after the overlap (see
// above). It returns the probe's outcome and the early initialize, if
// one was sent; with settled, the early initialize's answer decides
// (legacy) and the probe was given up.
func (s *Session) probeOverlapped(ctx context.Context, version string) (a probeAnswer, early *earlyInit, settled bool) {
	sc, err := s.startDiscover(ctx, version, s.startTimeout())
	if err != nil {
		return probeAnswer{err: err}, nil, false
	}
	answers := make(chan probeAnswer, 1)
	go func() {
		res, found, err := s.discoverResult(sc.wait())
		answers <- probeAnswer{res: res, found: found, err: err}
	}()
	overlap := s.opts.ProbeOverlap
	if overlap <= 0 {
		overlap = DefaultProbeOverlap
	}
	if s.opts.ProbeTimeout > 0 {
		overlap = min(overlap, s.opts.ProbeTimeout)
	}
	grace := time.NewTimer(overlap)
	defer grace.Stop()
	var initDone <-chan struct{}
	var settle <-chan time.Time
	for {
		select {
		case a := <-answers:
			return a, early, false
		case <-grace.C:
			if s.conn.Err() == nil {
				early = s.sendEarlyInit(ctx)
				initDone = early.done
			}
		case <-initDone:
			initDone = nil
			if early.err == nil {
				t := time.NewTimer(probeSettle)
				defer t.Stop()
				settle = t.C
			}
			// An error (a modern-only server refuses initialize) leaves
			// the probe to decide.
		case <-settle:
			sc.cancel(errSettled)
			<-answers
			return probeAnswer{}, early, true
		}
	}
}
