package protocol_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"testing"
)

// Listing 5,000 tools in pages of 100 over streamable HTTP, in each era,
// against its floor: the same 50 POSTs of tools/list by a bare client to
// the same canned server, each answer read whole and nothing decoded.

// listPagesServer is a canned server of 5,000 tools (modern: it answers
// server/discover, and its pages carry resultType).
func listPagesServer(b *testing.B, modern bool) string {
	pages := modernToolPages(benchTools, benchPageSize)
	if !modern {
		pages = benchToolPages(benchTools, benchPageSize)
		for i, p := range pages {
			pages[i] = bytes.TrimSuffix(p, []byte("\n"))
		}
	}
	const info = `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"bench","version":"1"}}`
	return cannedHTTPServer(b, false, func(body []byte) []byte {
		switch {
		case modern && bytes.Contains(body, []byte(`"method":"server/discover"`)):
			return []byte(`,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"resultType":"complete",` + info + `}}`)
		case bytes.Contains(body, []byte(`"method":"tools/list"`)):
			page := 0
			if i := bytes.Index(body, []byte(`"cursor":"c`)); i >= 0 {
				if j := bytes.IndexByte(body[i+11:], '"'); j >= 0 {
					page, _ = strconv.Atoi(string(body[i+11 : i+11+j]))
				}
			}
			return pages[min(page, len(pages)-1)]
		}
		return nil
	})
}

func benchHTTPList(b *testing.B, modern bool) {
	s := dialCanned(b, listPagesServer(b, modern))
	b.Cleanup(func() { s.Close() })
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		tools, err := s.ListTools(ctx)
		if err != nil || len(tools) != benchTools {
			b.Fatal(len(tools), err)
		}
	}
}

// BenchmarkHTTPToolsList5000 lists 5,000 tools of a legacy server.
func BenchmarkHTTPToolsList5000(b *testing.B) { benchHTTPList(b, false) }

// BenchmarkHTTPModernToolsList5000 lists 5,000 tools of a modern server.
func BenchmarkHTTPModernToolsList5000(b *testing.B) { benchHTTPList(b, true) }

// BenchmarkHTTPFloorList5000 is the floor: the 50 tools/list POSTs,
// one at a time, each answer read whole.
func BenchmarkHTTPFloorList5000(b *testing.B) {
	url := listPagesServer(b, false)
	client := &http.Client{}
	var bodies [][]byte
	for p := 0; p*benchPageSize < benchTools; p++ {
		bodies = append(bodies, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":{"cursor":"c%d"}}`, p+2, p))
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, body := range bodies {
			req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			_, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK {
				b.Fatal(resp.Status, err)
			}
		}
	}
}
