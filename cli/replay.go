package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/internal/safe"
	mcpserver "github.com/mcpwire/mcpwire/protocol/server"
)

// A replayer answers as a recording did.
type replayer struct {
	faults       *replayFaults // nil: none
	match        replayMatch
	speed        float64 // 1: as recorded; 2: twice as fast; 0: no waits
	calls        []*recordedCall
	serverInfo   json.RawMessage
	capabilities map[string]any
	instructions string
	// era and versions are what the recorded server offered (see
	// recordedEra): replay offers the same, but with --any-era.
	era      string
	versions []string

	mu     sync.Mutex            // guards served; held for no I/O
	served map[*recordedCall]int // answers given, by the first call of a group
}

// Serve answers a request with its recorded twin's answer, after what
// the server sent meanwhile, at the recorded pace; or with an error
// naming the closest recorded request.
func (rs replaySession) Serve(ctx context.Context, p mcpserver.Peer, req *mcpserver.Request) (any, error) {
	rp := rs.replayer
	start := time.Now()
	if rp.faults != nil {
		if ok, err := rp.faults.apply(ctx); !ok {
			return nil, err
		}
	}
	params, raw, token := paramsOf(req.Params)
	c, err := rp.find(req.Method, params, raw)
	for round := 0; err == nil; round++ {
		if err = rs.pace(ctx, p, c, start, token); err != nil {
			return nil, err
		}
		if round == maxInputRounds || c.err != nil || mcpserver.Modern(ctx) != nil || !inputRequired(c.result) {
			break
		}
		// A modern recording's input_required, to a legacy client: the
		// server asks it as a legacy server does, and the recorded retry
		// answers.
		start = time.Now()
		c, err = rs.askInputs(ctx, p, req.Method, params, c.result)
	}
	if err != nil {
		return nil, err
	}
	if c.err != nil {
		return nil, &mcpserver.Error{Code: c.err.Code, Message: c.err.Message, Data: c.err.Data}
	}
	result := any(c.result)
	if mcpserver.Modern(ctx) == nil {
		result = legacyResult(c.result)
	}
	if len(c.after) > 0 {
		// Sent once the answer is, in order; without their waits, which
		// would hold the writer up.
		after := c.after
		bg := context.WithoutCancel(ctx)
		return &mcpserver.AfterReply{Result: result, Then: func() {
			for _, ev := range after {
				_ = rs.play(bg, p, ev, token)
			}
		}}, nil
	}
	return result, nil
}

// pace sends what the server sent during c, and waits for c's answer,
// at the recorded pace from start.
func (rs replaySession) pace(ctx context.Context, p mcpserver.Peer, c *recordedCall, start time.Time, token json.RawMessage) error {
	for _, ev := range c.events {
		if err := rs.wait(ctx, start, ev.at); err != nil {
			return err
		}
		if err := rs.play(ctx, p, ev, token); err != nil {
			return err
		}
	}
	return rs.wait(ctx, start, c.took)
}

// maxInputRounds bounds the input_required rounds a replay asks of a
// legacy client for one request.
const maxInputRounds = 8

// inputRequired reports whether a recorded result asks for input (the
// modern era's multi round-trip requests).
func inputRequired(result json.RawMessage) bool {
	var r struct {
		ResultType string `json:"resultType"`
	}
	return json.Unmarshal(result, &r) == nil && r.ResultType == "input_required"
}

// askInputs asks a legacy client the input requests of a recorded
// input_required result, and finds the recorded retry: the one with the
// client's answers, else the one with the same requestState.
func (rs replaySession) askInputs(ctx context.Context, p mcpserver.Peer, method string, params map[string]any, result json.RawMessage) (*recordedCall, error) {
	var r struct {
		InputRequests map[string]struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		} `json:"inputRequests"`
		RequestState string `json:"requestState"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return nil, mcpserver.Errorf(mcpserver.CodeInternalError, "replay: a recorded input_required result that cannot be read: %v", err)
	}
	keys := slices.Sorted(maps.Keys(r.InputRequests))
	answers := map[string]any{}
	for _, k := range keys {
		in := r.InputRequests[k]
		out, err := p.Call(ctx, in.Method, in.Params)
		if err != nil {
			if ctx.Err() != nil {
				return nil, mcpserver.ErrCancelled
			}
			return nil, mcpserver.Errorf(mcpserver.CodeInternalError, "replay: the client did not answer the recorded %s: %v", in.Method, err)
		}
		var v any
		_ = json.Unmarshal(out, &v)
		answers[k] = v
	}
	retry := copyTree(params).(map[string]any)
	retry["inputResponses"], retry["requestState"] = answers, r.RequestState
	if r.RequestState == "" {
		delete(retry, "requestState")
	}
	if c, err := rs.find(method, retry, ""); err == nil {
		return c, nil
	}
	for _, c := range rs.calls {
		if c.method == method && c.params["requestState"] == r.RequestState && reflect.DeepEqual(aboutOf(c.params), aboutOf(params)) {
			return c, nil // the client answered otherwise: the recorded answer still
		}
	}
	return nil, rs.unmatched(method, nil)
}

// find is the recorded call that answers a request: among those that
// match, the first not yet used (the last once all are), so that a
// request made twice gets the answers recorded in turn.
func (rp *replayer) find(method string, params map[string]any, raw string) (*recordedCall, error) {
	var group []*recordedCall
	var closest *recordedCall
	best := 0
	for _, c := range rp.calls {
		if c.method != method {
			continue
		}
		if rp.match.same(c, params, raw) {
			group = append(group, c)
		} else if s := likeness(c, params); closest == nil || s > best {
			closest, best = c, s
		}
	}
	if len(group) == 0 && rp.match.loose && closest != nil && best >= 1<<19 {
		group = []*recordedCall{closest} // the same target: close enough
	}
	if len(group) > 0 {
		rp.mu.Lock()
		n := rp.served[group[0]]
		rp.served[group[0]] = n + 1
		rp.mu.Unlock()
		return group[min(n, len(group)-1)], nil
	}
	return nil, rp.unmatched(method, closest)
}

// unmatched is the error for a request the recording does not hold.
func (rp *replayer) unmatched(method string, closest *recordedCall) error {
	msg := fmt.Sprintf("replay: the recording holds no %s request like this one", method)
	if closest != nil {
		msg += "; the closest recorded: " + oneLine(closest.paramsText(), 300)
		if !rp.match.loose {
			msg += " (replay --match loose --ignore-field NAME leaves fields out of the match)"
		}
		return mcpserver.Errorf(mcpserver.CodeInvalidParams, "%s", msg)
	}
	var methods []string
	for _, c := range rp.calls {
		if !slices.Contains(methods, c.method) {
			methods = append(methods, c.method)
		}
	}
	if len(methods) > 0 {
		msg += "; it holds " + strings.Join(methods, ", ")
	}
	return mcpserver.Errorf(mcpserver.CodeMethodNotFound, "%s", msg)
}

// minWait is the shortest wait replay makes: a timer cannot wait less
// than about a millisecond (measured: 50 µs, 140 µs and 500 µs timers
// all fire after 1.1 ms), so a shorter one would slow the replay down.
const minWait = time.Millisecond

// maxReplayWait bounds one recorded wait at the chosen --speed: a
// recording that would hold a client longer is refused at the start.
const maxReplayWait = 10 * time.Minute

// checkWaits refuses a recording whose recorded pace would make a client
// wait past maxReplayWait for one answer or event.
func (rp *replayer) checkWaits(name string) error {
	if rp.speed <= 0 {
		return nil
	}
	for _, c := range rp.calls {
		longest := c.took
		for _, ev := range c.events {
			longest = max(longest, ev.at)
		}
		if d := longest / rp.speed; d > float64(maxReplayWait/time.Millisecond) {
			return usageErr("%s: an answer to %s is recorded %.4g s after its request: at --speed %g a client would wait past %v; replay it with --speed 0 (no waits) or a higher --speed",
				name, safe.Sanitize(c.method), longest/1000, rp.speed, maxReplayWait)
		}
	}
	return nil
}

// wait sleeps until ms (recorded, scaled by --speed) after start; not
// at all when that is less than minWait away.
func (rp *replayer) wait(ctx context.Context, start time.Time, ms float64) error {
	if rp.speed <= 0 || ms <= 0 {
		return nil
	}
	d := time.Until(start.Add(time.Duration(ms / rp.speed * float64(time.Millisecond))))
	if d < minWait {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return mcpserver.ErrCancelled
	}
}

// play sends one recorded notification or server request to the client.
// A progress notification carries the client's own progressToken (none
// is sent when it gave none); a server request's answer is not looked
// at, and in the modern era, where the server asks through the result
// itself (as recorded), none is sent.
func (rs replaySession) play(ctx context.Context, p mcpserver.Peer, ev recordedEvent, token json.RawMessage) error {
	var params map[string]any
	if json.Unmarshal(ev.params, &params) != nil {
		params = nil
	}
	if meta, ok := params["_meta"].(map[string]any); ok {
		delete(meta, mcpserver.MetaSubscriptionID) // the recorded session's
		if len(meta) == 0 {
			delete(params, "_meta")
		}
	}
	if ev.method == "notifications/progress" {
		if token == nil || params == nil {
			return nil
		}
		params["progressToken"] = token
	}
	var out any // none, rather than {}
	if len(params) > 0 {
		out = params
	}
	switch {
	case ev.request && mcpserver.Modern(ctx) != nil:
		return nil
	case ev.request:
	case mcpserver.Modern(ctx) != nil && changeNotice(ev.method):
		rs.sess.Broadcast(ctx, ev.method, out) // to the listen streams that asked
		return nil
	default:
		_ = p.Notify(ctx, ev.method, out)
		return nil
	}
	if _, err := p.Call(ctx, ev.method, out); err != nil && ctx.Err() != nil {
		return mcpserver.ErrCancelled
	}
	return nil
}

// changeNotice reports whether method is a change notification, which
// the modern era sends on subscriptions/listen streams.
func changeNotice(method string) bool {
	return strings.HasSuffix(method, "/list_changed") || method == "notifications/resources/updated"
}

// A replaySession is the Handler of one session of a replay.
type replaySession struct {
	*replayer
	sess *mcpserver.Session
}

// replayFlags are replay's own flags.
type replayFlags struct {
	proxyFlags
	inject listFlag
	ignore listFlag
	seed   uint64
	match  string
	speed  float64
	anyEra bool
	server string
}

func (f *replayFlags) register(fs *flag.FlagSet) {
	fs.Var(&f.inject, "inject", "inject faults, `FAULT[=V]` comma-separated (repeatable): error=P%, drop=P%, garble=P%, latency=D±J, kill-after=N, slow-stream[=P%], close-stream[=P%] (the last two with --listen); counted on stderr at exit")
	fs.Uint64Var(&f.seed, "seed", 1, "seed the faults' draws: the same `N`, the same faults")
	fs.StringVar(&f.match, "match", "exact", "match requests to recorded ones: exact (method and params but _meta), or loose (the closest recorded one with the same method and tool, prompt or uri answers when none matches)")
	fs.Var(&f.ignore, "ignore-field", "leave the params member `NAME` (at any depth; or a dotted path such as arguments.seed) out of the match (repeatable, or comma-separated)")
	fs.StringVar(&f.server, "server", "", "serve the session of the server `NAME` (a recording of several servers, as list --record makes)")
	fs.Float64Var(&f.speed, "speed", 1, "replay the recorded timing `N` times as fast (0: no waits)")
	fs.StringVar(&f.listen, "listen", "", "serve streamable HTTP at `ADDR` (e.g. 127.0.0.1:8080) instead of stdio")
	fs.BoolVar(&f.public, "listen-public", false, "allow a --listen address that is not loopback")
	fs.StringVar(&f.bearerVar, "bearer-token-env-var", "", "with --listen: require the bearer token in the environment variable `NAME`")
	fs.BoolVar(&f.anyEra, "any-era", false, "serve both eras and every revision, not only what the recorded server offered (its initialize's revision, or its discover's supported ones)")
	fs.BoolVar(&f.noAuth, "no-auth", false, "with --listen-public: serve without a bearer token (anyone who reaches the address may use the server)")
}

// runReplay serves a recording back as an MCP server, over stdio or
// with --listen over streamable HTTP, whatever the transport it was
// recorded over, offering the revisions the recorded server offered (both
// eras, every revision with --any-era).
func runReplay(ctx context.Context, inv *invocation, args []string) error {
	fs := newFlagSet("replay")
	var rf replayFlags
	rf.register(fs)
	pos, _, _, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	var faults *replayFaults
	if len(rf.inject) > 0 {
		if faults, err = parseFaults(rf.inject, rf.seed); err != nil {
			return err
		}
	}
	if rf.match != "exact" && rf.match != "loose" {
		return usageErr("--match %q: want exact or loose", rf.match)
	}
	if rf.speed < 0 {
		return usageErr("--speed %g: want 0 (no waits) or more", rf.speed)
	}
	if len(pos) != 1 {
		return usageErr("replay takes one FILE: a recording made with --record")
	}
	if faults.streamFaults() && rf.listen == "" {
		return usageErr("--inject slow-stream and close-stream are faults of SSE answers over HTTP: add --listen ADDR")
	}
	// The recorded server's own words after logging/setLevel are replayed;
	// the replay's server adds none of its own.
	sopts := mcpserver.Options{Log: safe.NewTextWriter(inv.env.Stderr), LogPrefix: "mcpwire replay", QuietLevel: true}
	if rf.listen != "" {
		if err := inv.listenPolicy(&rf.proxyFlags, &sopts, "the recording "+safe.Sanitize(pos[0])); err != nil {
			return err
		}
	}
	path := pos[0]
	if !filepath.IsAbs(path) {
		path = filepath.Join(inv.env.Dir, path)
	}
	data, err := safe.ReadFile(path, safe.KindRecording)
	if err != nil {
		return usageErr("reading %s: %v", pos[0], err)
	}
	rp, err := readRecording(pos[0], data, rf.server)
	if err != nil {
		return fail(ExitUsage, phaseUsage, err)
	}
	rp.speed, rp.match.loose = rf.speed, rf.match == "loose"
	if err := rp.checkWaits(pos[0]); err != nil {
		return err
	}
	for _, v := range rf.ignore {
		rp.match.ignore = append(rp.match.ignore, strings.Split(v, ",")...)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if faults != nil {
		faults.kill = cancel
		rp.faults = faults
		defer func() { inv.say("replay: %s\n", faults.summary()) }()
	}
	sopts.NewSession = func(s *mcpserver.Session) mcpserver.Handler { return replaySession{rp, s} }
	sopts.ServerInfo = func() any { return rp.serverInfo }
	sopts.Capabilities = func() map[string]any { return rp.capabilities }
	sopts.Instructions = func() string { return rp.instructions }
	if !rf.anyEra {
		sopts.Era, sopts.Versions = rp.era, rp.versions
	}
	sopts.SSE = faults.streamFaults() // answers as event streams, to be slowed or cut
	srv := mcpserver.New(sopts)
	if rf.listen != "" {
		var front func(http.Handler) http.Handler
		if faults != nil {
			front = func(h http.Handler) http.Handler { return faultHandler(h, faults) }
		}
		return inv.serveFront(ctx, srv, front, rf.listen, "replay", safe.Sanitize(pos[0]))
	}
	var stdout io.Writer = inv.env.Stdout
	if faults != nil && faults.garblePct > 0 {
		stdout = garbleWriter{w: stdout, faults: faults}
	}
	if err := srv.ServeStdio(ctx, inv.env.Stdin, stdout); err != nil && ctx.Err() == nil && !errors.Is(err, mcpserver.ErrDropped) {
		return fail(ExitServer, "replay", err)
	}
	return nil
}
