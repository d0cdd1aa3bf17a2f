package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpwire/mcpwire/internal/safe"
	mcpserver "github.com/mcpwire/mcpwire/protocol/server"
)

// A recordedCall is one request of a recording and its answer.
type recordedCall struct {
	method string
	params string // canonical: _meta dropped, members sorted
	result json.RawMessage
	err    *recordedError
}

// recordedError is a JSON-RPC error as recorded.
type recordedError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

// A replayer answers as a recording did.
type replayer struct {
	faults       *replayFaults // nil: none
	calls        []recordedCall
	serverInfo   json.RawMessage
	capabilities map[string]any
	instructions string
}

// canonicalParams drops _meta (the revision, client info, progress
// tokens) and sorts members, so that a request matches its recorded
// twin whatever its ids and envelope.
func canonicalParams(raw json.RawMessage) string {
	var v map[string]any
	if len(raw) == 0 || string(raw) == "null" {
		return "{}" // no params: as {} (the modern era sends _meta alone)
	}
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	delete(v, "_meta")
	b, _ := json.Marshal(v) // maps encode with sorted keys
	return string(b)
}

// readRecording loads the calls of a --record file.
func readRecording(name string, data []byte) (*replayer, error) {
	type line struct {
		Dir string          `json:"dir"`
		Msg json.RawMessage `json:"msg"`
	}
	type msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
		Error  *recordedError  `json:"error"`
	}
	rp := &replayer{capabilities: map[string]any{}}
	pending := map[string]*recordedCall{}
	var order []*recordedCall
	for i, raw := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		var l line
		if err := json.Unmarshal(raw, &l); err != nil {
			return nil, fmt.Errorf("%s:%d: not a line of a recording (mcpwire … --record FILE): %v", name, i+1, err)
		}
		var m msg
		if len(l.Msg) == 0 || json.Unmarshal(l.Msg, &m) != nil || len(m.ID) == 0 || string(m.ID) == "null" {
			continue
		}
		switch {
		case l.Dir == "send" && m.Method != "":
			c := &recordedCall{method: m.Method, params: canonicalParams(m.Params)}
			pending[string(m.ID)] = c
			order = append(order, c)
		case l.Dir == "recv" && m.Method == "":
			c := pending[string(m.ID)]
			if c == nil {
				continue
			}
			delete(pending, string(m.ID))
			c.result, c.err = m.Result, m.Error
			if (c.method == "initialize" || c.method == "server/discover") && m.Result != nil {
				rp.identity(c.method, m.Result)
			}
		}
	}
	for _, c := range order {
		if c.result != nil || c.err != nil {
			rp.calls = append(rp.calls, *c)
		}
	}
	if rp.serverInfo == nil {
		return nil, fmt.Errorf("%s holds no answered initialize or server/discover: record a whole session (mcpwire … --record FILE)", name)
	}
	return rp, nil
}

// identity takes the server's name, capabilities and instructions from
// its initialize or server/discover answer.
func (rp *replayer) identity(method string, result json.RawMessage) {
	var r struct {
		ServerInfo   json.RawMessage            `json:"serverInfo"`
		Capabilities map[string]any             `json:"capabilities"`
		Instructions string                     `json:"instructions"`
		Meta         map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(result, &r) != nil {
		return
	}
	rp.serverInfo = r.ServerInfo
	if method == "server/discover" {
		rp.serverInfo = r.Meta["io.modelcontextprotocol/serverInfo"]
	}
	if r.Capabilities != nil {
		rp.capabilities = r.Capabilities
	}
	rp.instructions = r.Instructions
}

// Serve answers a request with its recorded twin's answer, or an error
// naming the closest recorded request.
func (rp *replayer) Serve(ctx context.Context, p mcpserver.Peer, req *mcpserver.Request) (any, error) {
	if rp.faults != nil {
		if ok, err := rp.faults.apply(ctx); !ok {
			return nil, err
		}
	}
	params := canonicalParams(req.Params)
	var closest *recordedCall
	for i := range rp.calls {
		c := &rp.calls[i]
		if c.method != req.Method {
			continue
		}
		if c.params == params {
			if c.err != nil {
				return nil, mcpserver.Errorf(c.err.Code, "%s", c.err.Message)
			}
			return c.result, nil
		}
		if closest == nil {
			closest = c
		}
	}
	msg := fmt.Sprintf("replay: the recording holds no %s request like this one", req.Method)
	if closest != nil {
		msg += "; the closest recorded: " + oneLine(closest.params, 300)
	} else if len(rp.calls) > 0 {
		var methods []string
		for _, c := range rp.calls {
			if !slices.Contains(methods, c.method) {
				methods = append(methods, c.method)
			}
		}
		msg += "; it holds " + strings.Join(methods, ", ")
	}
	return nil, mcpserver.Errorf(mcpserver.CodeMethodNotFound, "%s", msg)
}

func runReplay(ctx context.Context, inv *invocation, args []string) error {
	fs := newFlagSet("replay")
	var inject listFlag
	var seed uint64
	fs.Var(&inject, "inject", "inject faults: `error=P%,drop=P%,latency=D±J,kill-after=N` (repeatable), counted on stderr at exit")
	fs.Uint64Var(&seed, "seed", 1, "seed the faults' draws: the same `N`, the same faults")
	pos, _, _, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	var faults *replayFaults
	if len(inject) > 0 {
		if faults, err = parseFaults(inject, seed); err != nil {
			return err
		}
	}
	if len(pos) != 1 {
		return usageErr("replay takes one FILE: a recording made with --record")
	}
	path := pos[0]
	if !filepath.IsAbs(path) {
		path = filepath.Join(inv.env.Dir, path)
	}
	data, err := safe.ReadFile(path, safe.KindSnapshot)
	if err != nil {
		return usageErr("reading %s: %v", pos[0], err)
	}
	rp, err := readRecording(pos[0], data)
	if err != nil {
		return fail(ExitUsage, phaseUsage, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if faults != nil {
		faults.kill = cancel
		rp.faults = faults
		defer func() { inv.say("replay: %s\n", faults.summary()) }()
	}
	srv := mcpserver.New(mcpserver.Options{
		NewSession:   func(*mcpserver.Session) mcpserver.Handler { return rp },
		ServerInfo:   func() any { return rp.serverInfo },
		Capabilities: func() map[string]any { return rp.capabilities },
		Instructions: func() string { return rp.instructions },
		Log:          safe.NewTextWriter(inv.env.Stderr), LogPrefix: "mcpwire replay",
	})
	if err := srv.ServeStdio(ctx, inv.env.Stdin, inv.env.Stdout); err != nil && ctx.Err() == nil && !errors.Is(err, mcpserver.ErrDropped) {
		return fail(ExitServer, "replay", err)
	}
	return nil
}
