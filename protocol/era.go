package protocol

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// Era detection, as 2026-07-28/basic/versioning.mdx ("Backward
// Compatibility with Initialization-Based Versions") and the transport
// pages say: send server/discover asking for the modern revision; a
// DiscoverResult, or a recognized modern error (-32020, -32021, -32022),
// means the server is modern; any other error, no answer within the probe
// timeout, or an HTTP 400/404/405 without a modern error body (the
// transport reports it as an error with NotModern) means legacy, and the
// session falls back to initialize. An UnsupportedProtocolVersionError is
// answered by asking again with the newest revision of its data.supported
// that both sides speak (legacy ones through initialize).

// ErrClosedByProbe is wrapped by Connect's error when the server closed
// the connection (a stdio server exited) on the server/discover probe:
// some legacy servers end on a request they do not know. A caller that can
// start the server again does so with an EraLegacy hint.
var ErrClosedByProbe = errors.New("the server closed the connection before answering")

// maxVersionTries bounds the discover requests of one detection (each
// -32022 may name another revision).
const maxVersionTries = 3

// start settles the session's era and revision: pinned, hinted, or
// detected.
func (s *Session) start(ctx context.Context) error {
	pin := s.opts.ProtocolVersion
	switch {
	case pin != "" && EraOf(pin) == EraLegacy:
		return s.initialize(ctx, pin, true)
	case pin != "" && s.discovered(pin):
		return nil
	case pin != "":
		return s.discover(ctx, pin, true)
	}
	v := ModernVersion
	if h := s.opts.Hint; h != nil {
		switch {
		case h.Era == EraLegacy:
			lv := h.Version
			if !isLegacySupported(lv) {
				lv = LatestLegacyVersion
			}
			err := s.initialize(ctx, lv, false)
			if err == nil || !answeredWithError(err) || s.conn.Err() != nil {
				return err
			}
			// The server refused initialize: it may have become modern.
			// Detect afresh.
		case h.Era == EraModern && IsSupported(h.Version) && EraOf(h.Version) == EraModern:
			v = h.Version
		}
	}
	return s.discover(ctx, v, false)
}

// answeredWithError reports whether err is the server's JSON-RPC error
// (not a timeout, not a broken connection).
func answeredWithError(err error) bool {
	var je *jsonrpc.Error
	return errors.As(err, &je)
}

// discover runs server/discover asking for version; pinned forbids any
// other revision (and the legacy era).
func (s *Session) discover(ctx context.Context, version string, pinned bool) error {
	probeTimeout := s.startTimeout()
	if !pinned {
		probeTimeout = s.opts.ProbeTimeout
		if probeTimeout <= 0 {
			probeTimeout = DefaultProbeTimeout
		}
		probeTimeout = min(probeTimeout, s.startTimeout())
	}
	// Over stdio the first probe has an initialize sent beside it when
	// the server is slow to answer (probe.go): early.
	var early *earlyInit
	defer func() { early.abandon() }()
	legacy := func(why error) error {
		s.modern.Store(nil)
		if pinned {
			return &wrapped{msg: fmt.Sprintf("server/discover: the server does not speak %s (pinned): %s", version, reason(why)), err: why}
		}
		if e := early; e != nil {
			early = nil
			return s.finishEarly(ctx, e)
		}
		return s.initialize(ctx, LatestLegacyVersion, false)
	}
	for try := 1; ; try++ {
		var res *DiscoverResult
		var found bool
		var err error
		if try == 1 && !pinned && !s.headers {
			a, e, settled := s.probeOverlapped(ctx, version)
			if early = e; settled {
				return legacy(errSettled)
			}
			res, found, err = a.res, a.found, a.err
		} else {
			res, found, err = s.discoverOnce(ctx, version, probeTimeout)
		}
		var next string // the revision to ask for next
		switch {
		case err == nil && !found:
			return legacy(errors.New("its answer to server/discover is not a discover result"))
		case err == nil && slices.Contains(res.SupportedVersions, version):
			s.becomeModern(version, res)
			return nil
		case err == nil:
			if next = bestCommon(res.SupportedVersions, ""); next == "" || pinned {
				s.modern.Store(nil)
				return &UnsupportedVersionError{Asked: version, Supported: res.SupportedVersions, Pinned: pinned}
			}
		default:
			if ctx.Err() != nil {
				s.modern.Store(nil)
				return &MethodError{Method: "server/discover", Err: ctx.Err()}
			}
			if s.conn.Err() != nil {
				s.modern.Store(nil)
				return fmt.Errorf("server/discover: %w: %w", ErrClosedByProbe, s.conn.Err())
			}
			je, modern := isModernError(err)
			var te *TimeoutError
			var nm interface{ NotModern() bool }
			switch {
			case modern && je.Code == CodeUnsupportedProtocolVersion:
				supported := supportedOf(je)
				next = bestCommon(supported, "")
				if next == "" || pinned && next != version {
					s.modern.Store(nil)
					return &UnsupportedVersionError{Asked: version, Supported: supported, Pinned: pinned}
				}
			case modern:
				// A modern server refused the request itself: nothing a
				// retry or the legacy era would mend.
				s.modern.Store(nil)
				return err
			case je != nil, errors.As(err, &te), errors.As(err, &nm) && nm.NotModern():
				return legacy(err)
			default:
				s.modern.Store(nil)
				return err
			}
		}
		if EraOf(next) == EraLegacy {
			s.modern.Store(nil)
			if early != nil && next == early.version {
				return legacy(err)
			}
			return s.initialize(ctx, next, false)
		}
		if try >= maxVersionTries {
			s.modern.Store(nil)
			return &UnsupportedVersionError{Asked: version, Supported: []string{next}, Pinned: pinned}
		}
		version = next
	}
}

// becomeModern makes the session a modern one speaking version, with what
// server/discover said.
func (s *Session) becomeModern(version string, res *DiscoverResult) {
	s.era = EraModern
	s.speak(version)
	s.init = &InitializeResult{
		ProtocolVersion: version,
		Capabilities:    res.Capabilities,
		ServerInfo:      res.identity(),
		Instructions:    res.Instructions,
		Meta:            res.Meta,
	}
}

// An UnsupportedVersionError says that the server and this package have
// no revision in common (the server's UnsupportedProtocolVersionError, or
// a discover answer without the version asked for), or that it does not
// speak the pinned one.
type UnsupportedVersionError struct {
	Asked     string   // the revision asked for
	Supported []string // what the server says it supports
	Pinned    bool     // Asked was pinned
}

func (e *UnsupportedVersionError) Error() string {
	if e.Pinned {
		return fmt.Sprintf("server/discover: the server does not support protocol version %s (pinned); it supports %s",
			e.Asked, strings.Join(e.Supported, ", "))
	}
	return fmt.Sprintf("server/discover: no protocol version in common: the server supports %s, mcpwire speaks %s",
		orNone(e.Supported), strings.Join(supportedVersions[:], ", "))
}

// orNone joins vs, or says "none".
func orNone(vs []string) string {
	if len(vs) == 0 {
		return "none"
	}
	return strings.Join(vs, ", ")
}

// reason is what err says, without the method a *MethodError adds and
// with only the message of the server's error.
func reason(err error) string {
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return je.Message
	}
	var me *MethodError
	if errors.As(err, &me) {
		return me.Err.Error()
	}
	return err.Error()
}

// A wrapped error says msg and unwraps to err.
type wrapped struct {
	_ [0]func() // not comparable: no equality function in the binary

	msg string
	err error
}

func (e *wrapped) Error() string { return e.msg }
func (e *wrapped) Unwrap() error { return e.err }

// discovered starts the session from Options.Discovered, speaking the
// pinned modern version; false when there is none, or it does not name
// version.
func (s *Session) discovered(version string) bool {
	raw := s.opts.Discovered
	if len(raw) == 0 {
		return false
	}
	ms, err := s.newModernState(version)
	if err != nil {
		return false
	}
	s.modern.Store(ms)
	res, found, err := s.discoverResult(&jsonrpc.Response{Result: raw}, nil)
	if err != nil || !found || !slices.Contains(res.SupportedVersions, version) {
		s.modern.Store(nil)
		return false
	}
	s.becomeModern(version, res)
	return true
}
