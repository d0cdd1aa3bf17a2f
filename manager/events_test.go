package manager

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/peakheap"
	"github.com/mcpwire/mcpwire/internal/proctest"
)

// floodEnv, set to 1 in a child's environment, makes the test binary a
// hostile legacy server: once a resource is subscribed to, it sends
// 20,000 pings without reading the answers, then updates of that
// resource as fast as the pipe takes them, until the pipe breaks.
const floodEnv = "MCPWIRE_MANAGER_TEST_FLOOD"

func floodServerMain(in io.Reader, out io.Writer) int {
	r := bufio.NewReader(in)
	w := bufio.NewWriterSize(out, 64<<10)
	answer := func(id json.RawMessage, result string) {
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", id, result)
		w.Flush()
	}
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return 0
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
				URI             string `json:"uri"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &req) != nil || req.ID == nil {
			continue
		}
		switch req.Method {
		case "initialize":
			answer(req.ID, fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{"tools":{},"resources":{"subscribe":true}},"serverInfo":{"name":"flood","version":"1"}}`, req.Params.ProtocolVersion))
		case "tools/list":
			answer(req.ID, `{"tools":[]}`)
		case "resources/subscribe":
			answer(req.ID, `{}`)
			for i := range 20000 {
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":"p%d","method":"ping"}`+"\n", i)
			}
			if w.Flush() != nil {
				return 0
			}
			go io.Copy(io.Discard, r) // the answers, from now on
			note := fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":%q}}`+"\n", req.Params.URI)
			for {
				if _, err := w.WriteString(note); err != nil {
					return 0
				}
			}
		default:
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}`+"\n", req.ID)
			w.Flush()
		}
	}
}

// TestFloodIsBoundedAndFair: a server flooding resource updates (and
// server requests) while another tells of one change of its tools. The
// other's OnChange arrives though the agent's update handler is slow,
// the heap stays bounded (the updates of one resource coalesce), and the
// state counts what was merged and refused.
func TestFloodIsBoundedAndFair(t *testing.T) {
	proctest.Check(t)
	var updates atomic.Int64
	changed := make(chan struct{}, 1)
	m, _ := newManager(t, Options{
		OnResourceUpdated: func(server, uri string) {
			updates.Add(1)
			time.Sleep(time.Millisecond) // an agent's slow handler
		},
		OnChange: func(server string) {
			if server == "calm" {
				select {
				case changed <- struct{}{}:
				default:
				}
			}
		},
	}, demoServer{name: "flood", extra: map[string]any{"env": map[string]string{floodEnv: "1"}}},
		demoServer{name: "calm"})
	tools := mustTools(t, m)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	peak := peakheap.During(func() {
		if err := m.Subscribe(ctx, "flood", "flood://x"); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the flood to be merged", func() bool { return state(t, m, "flood").Drops.Coalesced > 20000 })
		select {
		case <-changed: // OnChange of the first listing, maybe
		default:
		}
		if _, err := m.Call(ctx, toolNamed(t, tools, "calm", "notify"), nil); err != nil {
			t.Fatal(err)
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatal("the calm server's OnChange waited behind the flood")
		}
		waitFor(t, "more updates to be merged", func() bool { return state(t, m, "flood").Drops.Coalesced > 40000 })
	})
	d := state(t, m, "flood").Drops
	t.Logf("peak heap %d KiB; %d updates delivered; drops %+v", peak>>10, updates.Load(), d)
	if peak > 64<<20 {
		t.Errorf("the heap grew by %d MiB under the flood", peak>>20)
	}
	if d.Requests == 0 || d.Unanswered == 0 || d.Requests+d.Unanswered < 15000 {
		t.Errorf("server requests refused %d, unanswered %d: want most of the 20,000 pings", d.Requests, d.Unanswered)
	}
	if c := state(t, m, "calm").Drops; c != (Drops{}) {
		t.Errorf("the calm server has drops %+v", c)
	}
}

// TestDispatcherBoundsAndTurns: while a callback runs, a server posts 300
// distinct events and 100 of one key, another server posts one: the
// first server's queue keeps 256 (the rest dropped, the repeated key
// merged into the one waiting), and the other's event runs second, not
// behind the queue.
func TestDispatcherBoundsAndTurns(t *testing.T) {
	d := newDispatcher()
	defer d.close()
	release, running := make(chan struct{}), make(chan struct{})
	ran := make(chan string, 512)
	d.post("a", "", func() {
		close(running)
		<-release
	})
	<-running
	for i := range 300 {
		d.post("a", fmt.Sprintf("k%d", i), func() { ran <- "a" })
	}
	for range 100 {
		d.post("a", "k0", func() { ran <- "a0" })
	}
	d.post("b", "", func() { ran <- "b" })
	got := d.drops("a")
	if got.Callbacks != 300-maxQueuedEvents || got.Coalesced != 100 {
		t.Errorf("drops of a: %+v", got)
	}
	close(release)
	// The queues take turns: a's first (k0, merged), then b's.
	if first, second := <-ran, <-ran; first != "a0" || second != "b" {
		t.Errorf("after the running callback came %s and %s, want a0 and b", first, second)
	}
}
