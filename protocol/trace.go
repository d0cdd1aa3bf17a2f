package protocol

import (
	"fmt"
	"strings"
)

// Trace context (SEP-414): W3C Trace Context and Baggage carried in a
// request's _meta as "traceparent", "tracestate" and "baggage", in both
// eras, so that a server can join the caller's trace.

// A TraceContext is the trace a request belongs to.
type TraceContext struct {
	Traceparent string // 00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>
	Tracestate  string // optional
	Baggage     string // optional
}

// maxTraceHeader bounds tracestate and baggage (the W3C limits are 512
// and 8192 bytes).
const maxTraceHeader = 8192

// Check reports whether tc is well formed: a traceparent of version 00
// with a trace id and parent id that are not all zeros, lower-case hex;
// tracestate and baggage of printable ASCII within the limits.
func (tc *TraceContext) Check() error {
	p := strings.Split(tc.Traceparent, "-")
	if len(p) != 4 || p[0] != "00" || !lowerHex(p[1], 32) || !lowerHex(p[2], 16) || !lowerHex(p[3], 2) ||
		strings.Trim(p[1], "0") == "" || strings.Trim(p[2], "0") == "" {
		return fmt.Errorf("traceparent %s: want 00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>, ids not all zeros", quoteShort(tc.Traceparent))
	}
	for name, v := range map[string]string{"tracestate": tc.Tracestate, "baggage": tc.Baggage} {
		if len(v) > maxTraceHeader {
			return fmt.Errorf("%s: longer than %d bytes", name, maxTraceHeader)
		}
		for _, r := range v {
			if r < 0x20 || r > 0x7e {
				return fmt.Errorf("%s: only printable ASCII is allowed", name)
			}
		}
	}
	return nil
}

func lowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for _, r := range s {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') {
			return false
		}
	}
	return true
}

// TraceID is the trace id of the traceparent, "" when malformed.
func (tc *TraceContext) TraceID() string {
	if tc == nil || tc.Check() != nil {
		return ""
	}
	return strings.Split(tc.Traceparent, "-")[1]
}

// meta adds tc's members to meta (a new map; nil tc: meta as it is).
func (tc *TraceContext) meta(meta map[string]any) map[string]any {
	if tc == nil || tc.Traceparent == "" {
		return meta
	}
	out := make(map[string]any, len(meta)+3)
	for k, v := range meta {
		out[k] = v
	}
	out["traceparent"] = tc.Traceparent
	if tc.Tracestate != "" {
		out["tracestate"] = tc.Tracestate
	}
	if tc.Baggage != "" {
		out["baggage"] = tc.Baggage
	}
	return out
}
