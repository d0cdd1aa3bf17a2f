package transport

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// TestHTTPResumeAfterTheLastCompleteEvent drops a POST's event stream in
// the middle of an event whose id came: the stream is resumed after the
// last event dispatched (Last-Event-ID: st1-1), not after the cut one, and
// the call gets its answer.
func TestHTTPResumeAfterTheLastCompleteEvent(t *testing.T) {
	f := newFakeServer(t, &fakeServer{sessions: true})
	slowID := make(chan string, 1)
	f.before = func(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request) bool {
		if req.Method != "slow" {
			return false
		}
		slowID <- req.ID.Raw()
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "retry: 10\n")
		writeEvent(w, "st1-1", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`)
		fmt.Fprint(w, "id: st1-2\ndata: {\"jsonrpc\":\"2.0\",") // cut off
		return true
	}
	f.onGet = func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Last-Event-ID") != "st1-1" {
			http.Error(w, "no such stream", http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		writeEvent(w, "st1-2", `{"jsonrpc":"2.0","id":`+<-slowID+`,"result":{"done":true}}`)
	}
	hc := dial(t, &HTTP{URL: f.url()})
	conn := session(t, hc, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	got, err := conn.Call(ctx, "slow", nil)
	if err != nil || string(got) != `{"done":true}` {
		t.Fatalf("Call = %s, %v; want the answer from the resumed stream", got, err)
	}
	gets := f.find(func(h hit) bool { return h.HTTPMethod == "GET" && h.LastEvent != "" })
	if len(gets) != 1 || gets[0].LastEvent != "st1-1" {
		t.Errorf("resuming GETs: %+v, want one with Last-Event-ID st1-1", gets)
	}
}

// TestHTTPResumeRefusedSaysSo: when the resumption is answered 404, the
// call fails at once with an error that names the resumption, the event
// id and the 404.
func TestHTTPResumeRefusedSaysSo(t *testing.T) {
	f := newFakeServer(t, &fakeServer{sessions: true})
	f.before = func(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request) bool {
		if req.Method != "slow" {
			return false
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "retry: 10\n")
		writeEvent(w, "st1-1", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`)
		return true
	}
	f.onGet = func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no such stream", http.StatusNotFound)
	}
	hc := dial(t, &HTTP{URL: f.url()})
	conn := session(t, hc, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := conn.Call(ctx, "slow", nil)
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		t.Fatalf("Call: %v, want the transport's error answer", err)
	}
	for _, want := range []string{"ended before the response", "resuming it", "Last-Event-ID: st1-1", "404"} {
		if !strings.Contains(je.Message, want) {
			t.Errorf("the error %q does not say %q", je.Message, want)
		}
	}
}

// TestEventScannerLastIDOnDispatch: an id counts once its event is
// dispatched (a blank line, data or not), never for an event cut off by
// the end of the stream.
func TestEventScannerLastIDOnDispatch(t *testing.T) {
	for _, tc := range []struct{ stream, want string }{
		{"id: a\ndata: x\n\n", "a"},
		{"id: a\ndata: x\n\nid: b\ndata: y", "a"},         // b cut off
		{"id: a\ndata: x\n\nid: b\n", "a"},                // b never ended
		{"id: a\ndata: x\n\nid: b\n\n", "b"},              // a priming event: no data, still dispatched
		{"id: a\n\nid\n\n", ""},                           // an empty id field resets it
		{"id: a\ndata: x\n\nid: b\x00c\n\n", "a"},         // an id with NUL is ignored
		{"data: x\n\nid: a\ndata: y\n\ndata: z\n\n", "a"}, // kept by later events without id
	} {
		s := newEventScanner(strings.NewReader(tc.stream))
		for {
			if _, err := s.next(); err != nil {
				break
			}
		}
		if got := s.LastID(); got != tc.want {
			t.Errorf("%q: LastID %q, want %q", tc.stream, got, tc.want)
		}
	}
}
