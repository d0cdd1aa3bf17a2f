package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
)

// wireCases pair a message with its exact bytes; each must round-trip.
var wireCases = []struct {
	name string
	msg  Message
	wire string
}{
	{"request int id", &Request{ID: Int64ID(1), Method: "tools/list", Params: json.RawMessage(`{}`)}, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`},
	{"request string id", &Request{ID: StringID("a-1"), Method: "ping"}, `{"jsonrpc":"2.0","id":"a-1","method":"ping"}`},
	{"request negative id", &Request{ID: Int64ID(-7), Method: "ping"}, `{"jsonrpc":"2.0","id":-7,"method":"ping"}`},
	{"notification", &Request{Method: "notifications/initialized"}, `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
	{"notification with params", &Request{Method: "notifications/cancelled", Params: json.RawMessage(`{"requestId":3,"reason":"timeout"}`)}, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"timeout"}}`},
	{"array params", &Request{ID: Int64ID(2), Method: "m", Params: json.RawMessage(`[1,2]`)}, `{"jsonrpc":"2.0","id":2,"method":"m","params":[1,2]}`},
	{"result", &Response{ID: Int64ID(1), Result: json.RawMessage(`{"tools":[]}`)}, `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`},
	{"result string id", &Response{ID: StringID("x"), Result: json.RawMessage(`{}`)}, `{"jsonrpc":"2.0","id":"x","result":{}}`},
	{"error", &Response{ID: Int64ID(5), Error: &Error{Code: -32601, Message: "method not found"}}, `{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"method not found"}}`},
	{"error with data", &Response{ID: Int64ID(5), Error: &Error{Code: -32602, Message: "bad", Data: json.RawMessage(`{"k":1}`)}}, `{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"bad","data":{"k":1}}}`},
	{"error null id", &Response{Error: &Error{Code: -32700, Message: "parse error"}}, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`},
	{"html not escaped", &Request{ID: Int64ID(1), Method: "a<b>&c"}, `{"jsonrpc":"2.0","id":1,"method":"a<b>&c"}`},
}

func TestWire(t *testing.T) {
	for _, tc := range wireCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := EncodeMessage(tc.msg)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.wire {
				t.Fatalf("encode:\n got %s\nwant %s", got, tc.wire)
			}
			msgs, err := DecodeMessage([]byte(tc.wire))
			if err != nil {
				t.Fatal(err)
			}
			if len(msgs) != 1 {
				t.Fatalf("decoded %d messages", len(msgs))
			}
			again, err := EncodeMessage(msgs[0])
			if err != nil {
				t.Fatal(err)
			}
			if string(again) != tc.wire {
				t.Fatalf("round trip:\n got %s\nwant %s", again, tc.wire)
			}
		})
	}
}

func TestIDKeptExactly(t *testing.T) {
	for _, wire := range []string{
		`{"jsonrpc":"2.0","id":"01","result":{}}`,
		`{"jsonrpc":"2.0","id":12345678901234567890,"result":{}}`,
		`{"jsonrpc":"2.0","id":"\u00e9","result":{}}`,
	} {
		msgs, err := DecodeMessage([]byte(wire))
		if err != nil {
			t.Fatalf("%s: %v", wire, err)
		}
		got, _ := EncodeMessage(msgs[0])
		if string(got) != wire {
			t.Errorf("id changed:\n got %s\nwant %s", got, wire)
		}
	}
}

// TestIntegerIDsMatch checks that an integer ID read from the wire is the
// same map key as the Int64ID that was sent, over the whole int64 range,
// and that integers of any other form stay as sent.
func TestIntegerIDsMatch(t *testing.T) {
	for _, n := range []int64{0, 1, -1, 99, 100, 1 << 40, math.MaxInt64, math.MinInt64, math.MinInt64 + 1} {
		id := Int64ID(n)
		got, err := parseID([]byte(id.Raw()))
		if err != nil || got != id {
			t.Errorf("parseID(%s) = %#v, %v; want %#v", id.Raw(), got, err, id)
		}
		if id.Raw() != strconv.FormatInt(n, 10) {
			t.Errorf("Int64ID(%d).Raw() = %s", n, id.Raw())
		}
	}
	for _, tok := range []string{"-0", "9223372036854775808", "-9223372036854775809", "123456789012345678901"} {
		id, err := parseID([]byte(tok))
		if err != nil || id.Raw() != tok || !id.IsValid() {
			t.Errorf("parseID(%s) = %#v (raw %s), %v", tok, id, id.Raw(), err)
		}
	}
	if Int64ID(0) == (ID{}) || !Int64ID(0).IsValid() {
		t.Error("Int64ID(0) is not a valid ID")
	}
}

func TestDecodeStrict(t *testing.T) {
	bad := map[string]string{
		"not json":             `{"jsonrpc":"2.0",`,
		"no version":           `{"id":1,"method":"x"}`,
		"wrong version":        `{"jsonrpc":"1.0","id":1,"method":"x"}`,
		"version as number":    `{"jsonrpc":2.0,"id":1,"method":"x"}`,
		"capitalized member":   `{"jsonrpc":"2.0","ID":1,"Method":"x"}`,
		"float id":             `{"jsonrpc":"2.0","id":1.5,"method":"x"}`,
		"exponent id":          `{"jsonrpc":"2.0","id":1e3,"method":"x"}`,
		"bool id":              `{"jsonrpc":"2.0","id":true,"method":"x"}`,
		"object id":            `{"jsonrpc":"2.0","id":{},"method":"x"}`,
		"null request id":      `{"jsonrpc":"2.0","id":null,"method":"x"}`,
		"method number":        `{"jsonrpc":"2.0","id":1,"method":3}`,
		"params string":        `{"jsonrpc":"2.0","id":1,"method":"x","params":"a"}`,
		"result and error":     `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}`,
		"neither":              `{"jsonrpc":"2.0","id":1}`,
		"result null id":       `{"jsonrpc":"2.0","id":null,"result":{}}`,
		"error without code":   `{"jsonrpc":"2.0","id":1,"error":{"message":"m"}}`,
		"error float code":     `{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}`,
		"duplicate member":     `{"jsonrpc":"2.0","id":1,"id":2,"method":"x"}`,
		"array of non-objects": `[1,2]`,
		"empty batch":          `[]`,
		"bare string":          `"hello"`,
		"long id":              `{"jsonrpc":"2.0","id":"` + string(bytes.Repeat([]byte("a"), 300)) + `","method":"x"}`,
	}
	for name, wire := range bad {
		if _, err := DecodeMessage([]byte(wire)); err == nil {
			t.Errorf("%s: decoded %s", name, wire)
		} else {
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Errorf("%s: error %T is not a *DecodeError", name, err)
			}
		}
	}
}

func TestDecodeErrorKeepsID(t *testing.T) {
	_, err := DecodeMessage([]byte(`{"jsonrpc":"2.0","id":9,"method":"x","params":"bad"}`))
	var de *DecodeError
	if !errors.As(err, &de) || de.ID != Int64ID(9) || de.Code != CodeInvalidRequest {
		t.Fatalf("got %#v", err)
	}
}

func TestBatch(t *testing.T) {
	msgs, err := DecodeMessage([]byte(` [ {"jsonrpc":"2.0","id":1,"result":{}} , {"jsonrpc":"2.0","method":"n","params":{"a":"]}"}} ] `))
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 {
		t.Fatalf("got %d messages", len(msgs))
	}
	if r, ok := msgs[1].(*Request); !ok || r.Method != "n" || string(r.Params) != `{"a":"]}"}` {
		t.Fatalf("second message %#v", msgs[1])
	}
}

func TestUnknownMembersIgnored(t *testing.T) {
	msgs, err := DecodeMessage([]byte(`{"jsonrpc":"2.0","id":1,"method":"x","extra":{"id":5}}`))
	if err != nil {
		t.Fatal(err)
	}
	if r := msgs[0].(*Request); r.ID != Int64ID(1) {
		t.Fatalf("id %v", r.ID)
	}
}

func FuzzDecodeMessage(f *testing.F) {
	for _, tc := range wireCases {
		f.Add([]byte(tc.wire))
	}
	f.Add([]byte(`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","method":"n"}]`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":"\"\\","method":"a\"b"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		msgs, err := DecodeMessage(data)
		// Exactly what is not JSON is a parse error, found before any
		// message in it is judged.
		var de *DecodeError
		if parseErr := errors.As(err, &de) && de.Code == CodeParseError; parseErr == json.Valid(data) {
			t.Fatalf("DecodeMessage(%q): %v, but json.Valid says %v", data, err, json.Valid(data))
		}
		if err != nil {
			return
		}
		for _, m := range msgs {
			enc, err := EncodeMessage(m)
			if err != nil {
				t.Fatalf("encode %#v: %v", m, err)
			}
			again, err := DecodeMessage(enc)
			if err != nil || len(again) != 1 {
				t.Fatalf("re-decode of %s: %v", enc, err)
			}
			enc2, _ := EncodeMessage(again[0])
			if !bytes.Equal(enc, enc2) {
				t.Fatalf("not stable:\n%s\n%s", enc, enc2)
			}
		}
	})
}

func TestEncodeIsOneLine(t *testing.T) {
	msg := &Request{ID: Int64ID(1), Method: "m", Params: json.RawMessage("{\n  \"a\": \"x\\ny\"\r\n}")}
	got, err := EncodeMessage(msg)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":"x\ny"}}`; string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "tools/call", "a\"b\\c", "tab\there", "<html>&", "é\u2028\u2029", "\xff\xfe", "\x00\x1f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		want := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		if got := AppendString([]byte("x"), s); !bytes.Equal(got[1:], want) || got[0] != 'x' {
			t.Fatalf("AppendString(%q) = %s, want %s", s, got[1:], want)
		}
	})
}

// TestSplitMessage: a big request in parts is the bytes AppendMessage
// gives (for Params and for Parts alike); small ones and params of
// several lines come whole.
func TestSplitMessage(t *testing.T) {
	x := strings.Repeat("x", 64<<10)
	big := json.RawMessage(`{"s":"` + x + `"}`)
	for _, m := range []*Request{
		{ID: Int64ID(7), Method: "tools/call", Params: big},
		{ID: Int64ID(8), Method: "tools/call", Parts: [][]byte{[]byte(`{"s":`), []byte(`"` + x + `"`), []byte(`}`)}},
		{ID: StringID("a"), Method: "m", Params: json.RawMessage(`{"a":1}`)},
		{ID: StringID("b"), Method: "m", Parts: [][]byte{[]byte(`{"a":`), []byte(`1}`)}},
		{ID: Int64ID(1), Method: "m", Params: json.RawMessage("{\"s\":\n\"" + x + "\"}")},
	} {
		want, err := AppendMessage(nil, m)
		if err != nil {
			t.Fatal(err)
		}
		if m.Parts != nil && !bytes.Contains(want, bytes.Join(m.Parts, nil)) {
			t.Errorf("%v: AppendMessage left the parts out: %.80q", m.ID, want)
		}
		head, body, err := SplitMessage([]byte("junk"), m)
		if err != nil {
			t.Fatal(err)
		}
		got := append(head[4:], bytes.Join(body, nil)...)
		if body != nil {
			got = append(got, '}')
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%v: parts give %.80q, want %.80q", m.ID, got, want)
		}
		params := append(bytes.Join(m.Parts, nil), m.Params...)
		if split := len(params) >= 64<<10 && bytes.IndexByte(params, '\n') < 0; (body != nil) != split {
			t.Errorf("%v: split %v, want %v", m.ID, body != nil, split)
		}
	}
}
