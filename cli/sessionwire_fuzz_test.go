package cli

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
)

// FuzzWireLine: a line of the session socket (a request or an answer)
// never crashes the reader; what it accepts is one object that writes
// back as it decoded.
func FuzzWireLine(f *testing.F) {
	f.Add([]byte(`{"op":"mcp","name":"d","dir":"/w","digest":"ab"}` + "\n"))
	f.Add([]byte(`{"op":"connect","environ":["A=1"],"idle":1000000000}` + "\n"))
	f.Add([]byte(`{"op":"list"} {"op":"list"}` + "\n"))
	f.Add([]byte(`{"op":"list","extra":1}` + "\n"))
	f.Add([]byte(`{"op":`))
	f.Add([]byte(strings.Repeat(" ", 5000) + "{}\n"))
	f.Add([]byte(`{"ok":true,"protocol":"2026-07-28","tools":{"tools":[]},"discover":{"supportedVersions":["2026-07-28"]},` +
		`"surface":{"pin":"enforce","newTools":"offer","changed":["echo"],"error":"x"}}` + "\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var a wireAnswer
		if readWireLine(bufio.NewReader(bytes.NewReader(b)), &a) == nil {
			var out bytes.Buffer
			if err := writeWireLine(&out, &a); err != nil {
				t.Fatal(err)
			}
			var again wireAnswer
			if err := readWireLine(bufio.NewReader(&out), &again); err != nil {
				t.Fatalf("an answer read does not read back: %v\n%s", err, out.Bytes())
			}
		}
		var req wireRequest
		if err := readWireLine(bufio.NewReader(bytes.NewReader(b)), &req); err != nil {
			return
		}
		var out bytes.Buffer
		if err := writeWireLine(&out, &req); err != nil {
			t.Fatal(err)
		}
		var again wireRequest
		if err := readWireLine(bufio.NewReader(&out), &again); err != nil {
			t.Fatalf("what was read does not read back: %v\n%s", err, out.Bytes())
		}
	})
}

// TestWireLineBound: a line past the bound is refused, not buffered whole.
func TestWireLineBound(t *testing.T) {
	long := `{"op":"` + strings.Repeat("x", maxWireLine) + `"}` + "\n"
	var req wireRequest
	if err := readWireLine(bufio.NewReader(strings.NewReader(long)), &req); err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Fatalf("a line past the bound: %v", err)
	}
}
