package protocol

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// wire is any JSON-RPC message as the fake server sees it.
type wire struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *jsonrpc.Error  `json:"error,omitempty"`
}

// noAnswer, returned by a handler, makes the fake send nothing.
var noAnswer = &jsonrpc.Error{Code: 1, Message: "no answer"}

// A fakeServer is a scripted MCP server on the far end of a net.Pipe: it
// reads the client's real bytes and answers them with real bytes.
type fakeServer struct {
	t      *testing.T
	conn   net.Conn // the fake's end
	client net.Conn // the client's end
	// handle answers a request, in its own goroutine: a result, or an
	// error to send (noAnswer: send nothing).
	handle func(f *fakeServer, m *wire) (any, error)

	wmu   sync.Mutex
	mu    sync.Mutex
	seq   int
	calls map[string]chan *wire // the fake's own requests, by id
	notes chan *wire            // notifications from the client
	reqs  chan *wire            // the client's requests, in the order read
	done  chan struct{}         // closed when the test ends
	wg    sync.WaitGroup
}

// initResult is an initialize answer with version and capabilities caps.
func initResult(version string, caps string) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"protocolVersion":%q,"capabilities":%s,"serverInfo":{"name":"fake","version":"1.0"},"instructions":"be nice"}`, version, caps))
}

const allCaps = `{"tools":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"prompts":{},"logging":{},"completions":{}}`

// startFake connects a session to a fake legacy server that answers
// initialize with caps and the version asked for, and everything else
// through h. Unless opts pins a version, the session is pinned to
// LatestLegacyVersion, so that initialize is its first request (id 1).
func startFake(t *testing.T, caps string, h func(f *fakeServer, m *wire) (any, error), opts *Options) (*Session, *fakeServer) {
	t.Helper()
	if opts == nil {
		opts = &Options{}
	}
	if opts.ProtocolVersion == "" {
		o := *opts
		o.ProtocolVersion = LatestLegacyVersion
		opts = &o
	}
	f := newFake(t, func(f *fakeServer, m *wire) (any, error) {
		if m.Method == "initialize" {
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			json.Unmarshal(m.Params, &p)
			return initResult(p.ProtocolVersion, caps), nil
		}
		if h == nil {
			return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found")
		}
		return h(f, m)
	})
	s := connectFake(t, f, opts)
	f.waitNote(t, "notifications/initialized")
	return s, f
}

// connectFake connects a session to f, closed when the test ends.
func connectFake(t *testing.T, f *fakeServer, opts *Options) *Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := Connect(ctx, f.stream(), opts)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// newFake starts a fake server; stream gives the client's end.
func newFake(t *testing.T, h func(f *fakeServer, m *wire) (any, error)) *fakeServer {
	c1, c2 := net.Pipe()
	f := &fakeServer{t: t, conn: c2, client: c1, handle: h, calls: map[string]chan *wire{},
		notes: make(chan *wire, 10000), reqs: make(chan *wire, 10000), done: make(chan struct{})}
	f.wg.Add(1)
	go f.read()
	t.Cleanup(func() {
		close(f.done)
		c1.Close()
		c2.Close()
		f.wg.Wait()
	})
	return f
}

// stream is the client's end as a jsonrpc.Stream.
func (f *fakeServer) stream() jsonrpc.Stream {
	return jsonrpc.NewLineStream(f.client, f.client, f.client)
}

func (f *fakeServer) read() {
	defer f.wg.Done()
	r := bufio.NewReader(f.conn)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return
		}
		m := new(wire)
		if err := json.Unmarshal(line, m); err != nil || m.JSONRPC != "2.0" {
			f.t.Errorf("fake: client sent a bad line %q", line)
			continue
		}
		switch {
		case m.Method != "" && m.ID == nil:
			f.notes <- m
		case m.Method != "":
			select { // in the order read, before any answer (readTool)
			case f.reqs <- m:
			default:
			}
			f.wg.Add(1)
			go func() {
				defer f.wg.Done()
				res, err := f.handle(f, m)
				if err == noAnswer {
					return
				}
				out := &wire{JSONRPC: "2.0", ID: m.ID}
				if err != nil {
					je, ok := err.(*jsonrpc.Error)
					if !ok {
						je = jsonrpc.NewError(jsonrpc.CodeInternalError, "%v", err)
					}
					out.Error = je
				} else {
					b, merr := json.Marshal(res)
					if merr != nil {
						f.t.Errorf("fake: marshaling result: %v", merr)
						return
					}
					out.Result = b
				}
				f.send(out)
			}()
		default:
			f.mu.Lock()
			ch := f.calls[string(m.ID)]
			delete(f.calls, string(m.ID))
			f.mu.Unlock()
			if ch == nil {
				f.t.Errorf("fake: answer to unknown id %s", m.ID)
				continue
			}
			ch <- m
		}
	}
}

// send writes one message; it gives up when the test ends.
func (f *fakeServer) send(m *wire) {
	b, err := json.Marshal(m)
	if err != nil {
		f.t.Errorf("fake: marshaling: %v", err)
		return
	}
	f.wmu.Lock()
	defer f.wmu.Unlock()
	f.conn.Write(append(b, '\n'))
}

// notify sends a notification to the client.
func (f *fakeServer) notify(method string, params any) {
	b, _ := json.Marshal(params)
	if params == nil {
		b = nil
	}
	f.send(&wire{JSONRPC: "2.0", Method: method, Params: b})
}

// request sends a request to the client and waits for its answer.
func (f *fakeServer) request(method string, params any) *wire {
	f.t.Helper()
	f.mu.Lock()
	f.seq++
	id := strconv.Quote("s" + strconv.Itoa(f.seq))
	ch := make(chan *wire, 1)
	f.calls[id] = ch
	f.mu.Unlock()
	var b json.RawMessage
	if params != nil {
		b, _ = json.Marshal(params)
	}
	f.send(&wire{JSONRPC: "2.0", ID: json.RawMessage(id), Method: method, Params: b})
	select {
	case m := <-ch:
		return m
	case <-time.After(10 * time.Second):
		f.t.Errorf("fake: no answer to %s", method)
		return &wire{}
	}
}

// waitNote waits for the client's next notification, which must be
// method.
func (f *fakeServer) waitNote(t *testing.T, method string) *wire {
	t.Helper()
	select {
	case n := <-f.notes:
		if n.Method != method {
			t.Fatalf("client sent %s (%s), want %s", n.Method, n.Params, method)
		}
		return n
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s from the client", method)
		return nil
	}
}

// readTool is the tools/call of tool that the fake has read, nil if none,
// with the requests read before it let go. Call it once the answer to a
// later request has come: requests are read in the order sent, so one
// that was sent before it has been read.
func (f *fakeServer) readTool(tool string) *wire {
	for {
		select {
		case m := <-f.reqs:
			var p struct{ Name string }
			if m.Method == "tools/call" && json.Unmarshal(m.Params, &p) == nil && p.Name == tool {
				return m
			}
		default:
			return nil
		}
	}
}

// timedOut runs call, a call of the tool "sleep" that must time out
// (its server never answers it), with timeouts from 30 ms up, doubling,
// until its request was sent before its timeout ended it, and returns
// the client's notifications/cancelled for it. Under load the deadline
// can pass before the request is written; then nothing was sent, and
// rightly nothing is cancelled. start makes a fake and a session for a
// timeout; the session's echo must answer (the barrier readTool needs).
func timedOut(t *testing.T, start func(d time.Duration) (*Session, *fakeServer), call func(s *Session, d time.Duration) error) *wire {
	t.Helper()
	for d := 30 * time.Millisecond; ; d *= 2 {
		s, f := start(d)
		if err := call(s, d); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("the call with a timeout of %v: got %v", d, err)
		}
		res, err := s.CallTool(context.Background(), "echo", nil, &CallOptions{Timeout: time.Minute})
		if err != nil || len(res.Content) != 1 || res.Content[0].Text != "ok" {
			t.Fatalf("the call after the one that timed out: %+v, %v", res, err)
		}
		if m := f.readTool("sleep"); m != nil {
			n := f.waitNote(t, "notifications/cancelled")
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			if json.Unmarshal(n.Params, &p) != nil || string(p.RequestID) != string(m.ID) {
				t.Errorf("cancelled %s, want the request %s", n.Params, m.ID)
			}
			return n
		}
		if d > 30*time.Second {
			t.Fatalf("the call was never sent before its timeout (the last %v)", d)
		}
		t.Logf("%v passed before the call was sent: again, twice as long", d)
	}
}
