package protocol

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// TestServerRequestBeforeInitializeAnswer has a legacy server send a URL
// mode elicitation request together with its initialize answer: the
// request's handler reads the revision spoken while the handshake records
// the answer's (a data race under -race before the revision had a guard
// of its own). The revision asked for is the one the capabilities were
// declared for, so the request is judged by it.
func TestServerRequestBeforeInitializeAnswer(t *testing.T) {
	answered := make(chan *wire, 1)
	f := newFake(t, func(f *fakeServer, m *wire) (any, error) {
		if m.Method != "initialize" {
			return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found")
		}
		id := strconv.Quote("early")
		f.mu.Lock()
		f.calls[id] = answered
		f.mu.Unlock()
		f.send(&wire{JSONRPC: "2.0", ID: json.RawMessage(id), Method: "elicitation/create",
			Params: json.RawMessage(`{"mode":"url","message":"sign in","url":"https://example.com/x","elicitationId":"e1"}`)})
		return initResult(LatestLegacyVersion, `{}`), nil
	})
	elicit := func(ctx context.Context, p *ElicitParams) (*ElicitResult, error) {
		return &ElicitResult{Action: "accept"}, nil
	}
	s := connectFake(t, f, &Options{ProtocolVersion: LatestLegacyVersion, Elicit: elicit, ElicitURL: true})
	select {
	case m := <-answered:
		if m.Error != nil || !strings.Contains(string(m.Result), `"accept"`) {
			t.Errorf("early elicitation answered %s %v", m.Result, m.Error)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the early elicitation request got no answer")
	}
	if v := s.ProtocolVersion(); v != LatestLegacyVersion {
		t.Errorf("speaks %q", v)
	}
}

// TestListenLateAckThenEarlyAck has a modern server fail its first
// subscriptions/listen, acknowledge it late (after the failure), and
// acknowledge the next listen before the client knows its ID (the IDs
// count up, so a server can): both acknowledgments close the listener's
// channel, which panicked with a double close before each listen began
// with a fresh acknowledgment.
func TestListenLateAckThenEarlyAck(t *testing.T) {
	listens := make(chan *wire, 4)
	ack := func(f *fakeServer, id json.RawMessage) {
		f.notify("notifications/subscriptions/acknowledged", map[string]any{
			"_meta":         map[string]any{"io.modelcontextprotocol/subscriptionId": id},
			"notifications": map[string]any{"toolsListChanged": true}})
	}
	n := 0
	s, _ := startModern(t, allCaps, func(f *fakeServer, m *wire) (any, error) {
		if m.Method != "subscriptions/listen" {
			return json.RawMessage(`{"resultType":"complete"}`), nil
		}
		n++
		listens <- m
		if n > 1 {
			<-f.done
			return nil, noAnswer
		}
		next, err := strconv.Atoi(string(m.ID))
		if err != nil {
			t.Errorf("listen id %s is no number", m.ID)
		}
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			// The client backs off a second before it listens again:
			// the late acknowledgment comes meanwhile, after the failure
			// was taken in; then the early one of the next listen.
			select {
			case <-time.After(200 * time.Millisecond):
			case <-f.done:
				return
			}
			ack(f, m.ID)
			ack(f, json.RawMessage(strconv.Itoa(next+1)))
		}()
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "not now")
	}, &Options{OnToolsChanged: func() {}})
	for range 2 {
		select {
		case <-listens:
		case <-time.After(10 * time.Second):
			t.Fatal("the session did not listen again")
		}
	}
	// The session is still well: a request works.
	if err := s.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
}
