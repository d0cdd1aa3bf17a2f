package protocol_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/transport"
)

// TestHTTPListingGivenUpEarly stops a listing over streamable HTTP while
// the next page, asked for from a goroutine as this page is read, is still
// being answered: the listing ends at once, that request is given up (its
// POST closed; in the legacy era also notifications/cancelled), and the
// session goes on.
func TestHTTPListingGivenUpEarly(t *testing.T) {
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			modern := era == "modern"
			pages := modernToolPages(4, 2)
			if !modern {
				pages = benchToolPages(4, 2)
				for i, p := range pages {
					pages[i] = bytes.TrimSuffix(p, []byte("\n"))
				}
			}
			asked := make(chan string, 1)     // page 2 request id, when it came
			closed := make(chan struct{}, 1)  // page 2's POST ended by the client
			cancelled := make(chan []byte, 1) // notifications/cancelled
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				var id []byte
				if i := bytes.Index(body, []byte(`"id":`)); i >= 0 {
					if j := bytes.IndexAny(body[i+5:], ",}"); j >= 0 {
						id = body[i+5 : i+5+j]
					}
				}
				var rest []byte
				switch {
				case bytes.Contains(body, []byte(`"method":"notifications/cancelled"`)):
					select {
					case cancelled <- body:
					default:
					}
					w.WriteHeader(http.StatusAccepted)
					return
				case bytes.Contains(body, []byte(`"method":"notifications/`)):
					w.WriteHeader(http.StatusAccepted)
					return
				case modern && bytes.Contains(body, []byte(`"method":"server/discover"`)):
					rest = []byte(`,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}}}}`)
				case bytes.Contains(body, []byte(`"method":"initialize"`)):
					rest = []byte(`,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"t","version":"1"}}}`)
				case bytes.Contains(body, []byte(`"cursor":"c1"`)):
					asked <- string(id)
					<-r.Context().Done() // answered only when given up
					closed <- struct{}{}
					return
				case bytes.Contains(body, []byte(`"method":"tools/list"`)):
					rest = pages[0]
				case bytes.Contains(body, []byte(`"method":"ping"`)):
					rest = []byte(`,"result":{}}`)
				default:
					rest = []byte(`,"error":{"code":-32601,"message":"method not found"}}`)
				}
				w.Header().Set("Content-Type", "application/json")
				w.Write(append(append([]byte(`{"jsonrpc":"2.0","id":`), id...), rest...))
			}))
			defer srv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			hc, err := (&transport.HTTP{URL: srv.URL}).Connect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			s, err := protocol.Connect(ctx, hc, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var id string
			for _, err := range s.Tools(ctx) {
				if err != nil {
					t.Fatal(err)
				}
				select { // page 2 is being answered
				case id = <-asked:
				case <-ctx.Done():
					t.Fatal("page 2 was not asked for")
				}
				break
			}
			select {
			case <-closed:
			case <-ctx.Done():
				t.Fatal("the next page's POST was not given up")
			}
			if !modern {
				select {
				case n := <-cancelled:
					if !bytes.Contains(n, []byte(`"requestId":`+id)) {
						t.Errorf("cancelled %s, want request %s (page 2)", n, id)
					}
				case <-ctx.Done():
					t.Fatal("no notifications/cancelled")
				}
			}
			if err := s.Ping(ctx); err != nil {
				t.Fatalf("the session does not go on: %v", err)
			}
		})
	}
}
