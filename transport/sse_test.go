package transport

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

func collectEvents(r io.Reader) ([]Event, error) {
	var out []Event
	for ev, err := range scanEvents(r) {
		if err != nil {
			return out, err
		}
		out = append(out, ev)
	}
	return out, nil
}

func TestScanEvents(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	tests := []struct {
		name string
		in   string
		want []Event
	}{
		{"empty", "", nil},
		{"one", "data: hello\n\n", []Event{{Data: "hello"}}},
		{"no space", "data:hello\n\n", []Event{{Data: "hello"}}},
		{"two spaces keep one", "data:  hello\n\n", []Event{{Data: " hello"}}},
		{"multi-line data", "data: a\ndata: b\ndata\n\n", []Event{{Data: "a\nb\n"}}},
		{"empty data dispatched", "id: 7\ndata:\n\n", []Event{{ID: "7", HasID: true}}},
		{"no data not dispatched", "id: 1\nevent: x\n\ndata: y\n\n", []Event{{ID: "1", Data: "y"}}},
		{"event type reset", "event: endpoint\ndata: /m\n\ndata: z\n\n", []Event{{Type: "endpoint", Data: "/m"}, {Data: "z"}}},
		{"comments", ": hi\ndata: a\n: there\n\n:\n", []Event{{Data: "a"}}},
		{"CR", "data: a\rdata: b\r\r", []Event{{Data: "a\nb"}}},
		{"CRLF", "data: a\r\ndata: b\r\n\r\n", []Event{{Data: "a\nb"}}},
		{"mixed", "data: a\r\n\rdata: b\n\r\ndata: c\r\r\ndata: d\n\r", []Event{{Data: "a"}, {Data: "b"}, {Data: "c"}, {Data: "d"}}},
		{"BOM", "\ufeffdata: a\n\n", []Event{{Data: "a"}}},
		{"second BOM is a field", "\ufeff\ufeffdata: a\n\ndata: b\n\n", []Event{{Data: "b"}}},
		{"id persists", "id: 5\ndata: a\n\ndata: b\n\n", []Event{{ID: "5", HasID: true, Data: "a"}, {ID: "5", Data: "b"}}},
		{"id reset", "id: 5\ndata: a\n\nid\ndata: b\n\n", []Event{{ID: "5", HasID: true, Data: "a"}, {HasID: true, Data: "b"}}},
		{"id with NUL ignored", "id: 5\ndata: a\n\nid: 6\x007\ndata: b\n\n", []Event{{ID: "5", HasID: true, Data: "a"}, {ID: "5", Data: "b"}}},
		{"retry", "retry: 500\ndata: a\n\n", []Event{{Data: "a", Retry: 500 * time.Millisecond}}},
		{"retry not digits", "retry: 5s\ndata: a\n\nretry: -1\ndata: b\n\nretry:\ndata: c\n\nretry: 99999999999999999999\ndata: d\n\n",
			[]Event{{Data: "a"}, {Data: "b"}, {Data: "c"}, {Data: "d"}}},
		{"unknown field", "foo: bar\ndata: a\nData: b\n\n", []Event{{Data: "a"}}},
		{"field without colon", "data\ndata\n\n", []Event{{Data: "\n"}}},
		{"value with colon", "data: a: b\n\n", []Event{{Data: "a: b"}}},
		{"unterminated event dropped", "data: a\n\ndata: b\n", []Event{{Data: "a"}}},
		{"unterminated line dropped", "data: a\n\ndata: b", []Event{{Data: "a"}}},
		{"long line", "data: " + big + "\n\n", []Event{{Data: big}}},
		{"long lines joined", "data: " + big + "\ndata: " + big + "\n\n", []Event{{Data: big + "\n" + big}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, mode := range []string{"whole", "one byte"} {
				var r io.Reader = strings.NewReader(tt.in)
				if mode == "one byte" {
					if len(tt.in) > 1<<16 {
						continue
					}
					r = iotest.OneByteReader(r)
				}
				got, err := collectEvents(r)
				if err != nil {
					t.Fatalf("%s: %v", mode, err)
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("%s:\n got %.300v\nwant %.300v", mode, got, tt.want)
				}
			}
		})
	}
}

func TestScannerState(t *testing.T) {
	// A block without data is not dispatched but still sets the stream's
	// last event ID and reconnection time.
	s := newEventScanner(strings.NewReader("id: p1\nretry: 0\n\n"))
	if _, err := s.next(); err != io.EOF {
		t.Fatalf("next = %v, want io.EOF", err)
	}
	if s.LastID() != "p1" {
		t.Errorf("LastID = %q", s.LastID())
	}
	if d, ok := s.Retry(); !ok || d != 0 {
		t.Errorf("Retry = %v, %v; want 0, true", d, ok)
	}
}

func TestScanEventsReadError(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("data: a\n\ndata: b"), iotest.ErrReader(boom))
	got, err := collectEvents(r)
	if !errors.Is(err, boom) || len(got) != 1 {
		t.Fatalf("got %v, %v", got, err)
	}
}

func FuzzSSE(f *testing.F) {
	for _, s := range []string{
		"data: hello\n\n",
		"\ufeffid: 1\r\nretry: 100\r\nevent: message\r\ndata: {}\r\n\r\n",
		"data: a\rdata: b\r\r: c\n\n",
		"id: a\x00b\ndata\n\n",
		"retry: 9999999999999999999999\ndata: x\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		whole, err := collectEvents(bytes.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		bytewise, err := collectEvents(iotest.OneByteReader(bytes.NewReader(in)))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(whole, bytewise) {
			t.Fatalf("whole %v != one byte at a time %v", whole, bytewise)
		}
		for _, ev := range whole {
			if strings.ContainsAny(ev.Data, "\r") || strings.ContainsAny(ev.ID, "\r\n\x00") || strings.ContainsAny(ev.Type, "\r\n") {
				t.Fatalf("line end or NUL leaked into %+v", ev)
			}
			if ev.Retry < 0 {
				t.Fatalf("negative retry %v", ev.Retry)
			}
		}
	})
}

// TestLongLinesSizedFromTheLast reads events whose data lines are longer
// than the buffer, each of about, above or below the size of the one
// before (read into one slice sized from it, or in chunks), through small
// reads and through one scanner pool, as answer streams are.
func TestLongLinesSizedFromTheLast(t *testing.T) {
	var sp scannerPool
	for i, n := range []int{200 << 10, 1 << 20, 1<<20 + 10, 300 << 10, 3 << 20, 70 << 10, 100, 5 << 20} {
		data := strings.Repeat(string(rune('a'+i)), n)
		in := "event: message\ndata: " + data + "\r\n: comment " + strings.Repeat("c", 100<<10) + "\n\n"
		s := sp.get(iotest.HalfReader(strings.NewReader(in)))
		ev, err := s.next()
		if err != nil || string(ev.data) != data {
			t.Fatalf("event %d (%d bytes): %d bytes, %v", i, n, len(ev.data), err)
		}
		if _, err := s.next(); err != io.EOF {
			t.Fatalf("after event %d: %v", i, err)
		}
		sp.put(s)
	}
}
