package protocol_test

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// The first modern-era call over streamable HTTP of a fresh session (a
// fresh process, an empty cache): connect, one tools/call, close. A tool's
// x-mcp-header parameters are learned only when the server asks (-32020),
// so a server of 5,000 tools should cost what one of 5 does; before, the
// first call listed every tool (50 pages of 100).

// BenchmarkHTTPFirstCallFloor is the first call to a server of 5 tools.
func BenchmarkHTTPFirstCallFloor(b *testing.B) { benchFirstCall(b, 5) }

// BenchmarkHTTPFirstCall5000Tools is the first call to a server of 5,000
// tools, in pages of 100.
func BenchmarkHTTPFirstCall5000Tools(b *testing.B) { benchFirstCall(b, 5000) }

func benchFirstCall(b *testing.B, tools int) {
	pages := modernToolPages(tools, 100)
	const info = `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"bench","version":"1"}}`
	url := cannedHTTPServer(b, false, func(body []byte) []byte {
		switch {
		case bytes.Contains(body, []byte(`"method":"server/discover"`)):
			return []byte(`,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"resultType":"complete",` + info + `}}`)
		case bytes.Contains(body, []byte(`"method":"tools/list"`)):
			page := 0
			if i := bytes.Index(body, []byte(`"cursor":"c`)); i >= 0 {
				if j := bytes.IndexByte(body[i+11:], '"'); j >= 0 {
					page, _ = strconv.Atoi(string(body[i+11 : i+11+j]))
				}
			}
			return pages[min(page, len(pages)-1)]
		case bytes.Contains(body, []byte(`"method":"tools/call"`)):
			return []byte(`,"result":{"content":[{"type":"text","text":"hello"}],"resultType":"complete",` + info + `}}`)
		}
		return nil
	})
	ctx := context.Background()
	args := map[string]string{"text": "hello"}
	b.ReportAllocs()
	for b.Loop() {
		s := dialCanned(b, url)
		if _, err := s.CallTool(ctx, "tool_0_1", args, nil); err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// modernToolPages are the answers (after the id) of a modern tools/list
// of n tools in pages of size.
func modernToolPages(n, size int) [][]byte {
	var pages [][]byte
	for p := 0; p*size < n; p++ {
		var sb strings.Builder
		sb.WriteString(`,"result":{"resultType":"complete","tools":[`)
		for i := 0; i < size && p*size+i < n; i++ {
			if i > 0 {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, `{"name":"tool_%d_%d","description":"does thing %d","inputSchema":{"type":"object","properties":{"text":{"type":"string","description":"the text"},"n":{"type":"integer"}},"required":["text"]}}`, p, i, i)
		}
		sb.WriteString(`]`)
		if (p+1)*size < n {
			fmt.Fprintf(&sb, `,"nextCursor":"c%d"`, p+1)
		}
		sb.WriteString("}}")
		pages = append(pages, []byte(sb.String()))
	}
	return pages
}
