package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// garble is msg made invalid JSON at the same length (a Content-Length
// said holds): its second half replaced by '#', a final newline kept.
func garble(msg []byte) []byte {
	out := bytes.Clone(msg)
	end := len(out)
	if end > 0 && out[end-1] == '\n' {
		end--
	}
	for i := end / 2; i < end; i++ {
		out[i] = '#'
	}
	return out
}

// isMessage reports whether a write is a JSON-RPC message (or its
// start): what the wire faults act on.
func isMessage(b []byte) bool {
	return len(b) > 0 && b[0] == '{' && bytes.Contains(b, []byte(`"jsonrpc"`))
}

// isAnswer reports whether a message is an answer (no method).
func isAnswer(b []byte) bool {
	var m struct {
		Method *string `json:"method"`
	}
	return json.Unmarshal(b, &m) == nil && m.Method == nil
}

// A garbleWriter is the stdout of a replay over stdio: each message
// written may be garbled (--inject garble=P%).
type garbleWriter struct {
	_ [0]func() // not comparable: no equality function in the binary

	w      io.Writer
	faults *replayFaults
}

func (g garbleWriter) Write(b []byte) (int, error) {
	if isMessage(b) && g.faults.wire("garble") {
		if _, err := g.w.Write(garble(b)); err != nil {
			return 0, err
		}
		return len(b), nil
	}
	return g.w.Write(b)
}

// faultHandler puts the wire faults in front of a replay's HTTP handler.
func faultHandler(next http.Handler, faults *replayFaults) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A POST's answer stream may be cut, not the GET that resumes it.
		fw := &faultWriter{ResponseWriter: w, faults: faults, uncut: r.Method != http.MethodPost}
		if r.Body != nil && r.Method == http.MethodPost {
			// The handshake's answer is not cut: a client that cannot
			// start tests nothing of its reconnects.
			head, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
			r.Body = struct {
				io.Reader
				io.Closer
			}{io.MultiReader(bytes.NewReader(head), r.Body), r.Body}
			var m struct{ Method string }
			fw.uncut = json.Unmarshal(head, &m) == nil && (m.Method == "initialize" || m.Method == "server/discover")
		}
		next.ServeHTTP(fw, r)
	})
}

// A faultWriter writes an HTTP answer with the wire faults: a message
// garbled (a JSON body, an SSE event's data); on an SSE stream, an event
// in small writes each flushed (slow-stream), or the stream cut in the
// middle of an answer's event (close-stream).
type faultWriter struct {
	_ [0]func() // not comparable: no equality function in the binary

	http.ResponseWriter
	faults *replayFaults
	slow   bool // this stream's events go out in small writes
	drawn  bool // slow drawn for this stream
	uncut  bool // initialize's, server/discover's or a GET's: never cut
}

// Unwrap is for http.ResponseController (Flush).
func (fw *faultWriter) Unwrap() http.ResponseWriter { return fw.ResponseWriter }

// Flush flushes what was written.
func (fw *faultWriter) Flush() { _ = http.NewResponseController(fw.ResponseWriter).Flush() }

func (fw *faultWriter) sse() bool {
	return strings.HasPrefix(fw.Header().Get("Content-Type"), "text/event-stream")
}

func (fw *faultWriter) Write(b []byte) (int, error) {
	sse := fw.sse()
	if sse && !fw.drawn {
		fw.drawn, fw.slow = true, fw.faults.wire("slow-stream")
	}
	if isMessage(b) {
		if sse && !fw.uncut && isAnswer(b) && fw.faults.wire("close-stream") {
			// Half the answer's event, then the connection closes: the
			// client sees the stream end mid-event, and may resume.
			fw.ResponseWriter.Write(b[:len(b)/2])
			fw.Flush()
			panic(http.ErrAbortHandler)
		}
		if fw.faults.wire("garble") {
			b2 := garble(b)
			if _, err := fw.write(b2, sse); err != nil {
				return 0, err
			}
			return len(b), nil
		}
	}
	return fw.write(b, sse)
}

// slowChunk is the size of the writes of slow-stream.
const slowChunk = 7

// write writes b, in small flushed writes on a slow stream.
func (fw *faultWriter) write(b []byte, sse bool) (int, error) {
	if !sse || !fw.slow {
		return fw.ResponseWriter.Write(b)
	}
	n := 0
	for len(b) > 0 {
		k := min(slowChunk, len(b))
		m, err := fw.ResponseWriter.Write(b[:k])
		n += m
		if err != nil {
			return n, err
		}
		fw.Flush()
		b = b[k:]
	}
	return n, nil
}
