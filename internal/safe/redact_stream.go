package safe

import (
	"io"
	"sync"
)

// A Writer masks secrets in a stream written in pieces (a server's stderr
// relayed as it comes): a secret split across two writes is still masked.
// It holds back the end of a write that may be the start of a secret until
// the next write tells, or until Flush or Close. It is safe for concurrent
// use.
type Writer struct {
	_ [0]func() // not comparable: no equality function in the binary

	mu   sync.Mutex
	w    io.Writer
	r    *Redactor
	held string
}

// NewWriter returns a Writer that writes to w what r leaves of the stream.
func NewWriter(w io.Writer, r *Redactor) *Writer { return &Writer{w: w, r: r} }

// Write masks p (with what was held back before it) and writes what is
// decided. It returns len(p) unless the underlying write fails.
func (sw *Writer) Write(p []byte) (int, error) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if sw.r.Empty() {
		_, err := sw.w.Write(p)
		return len(p), err
	}
	t := sw.held + string(p)
	out, used := sw.r.scan(t, nil, false)
	sw.held = t[used:]
	if out != "" {
		if _, err := io.WriteString(sw.w, out); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush writes what is held back, masked as if the stream ended there.
func (sw *Writer) Flush() error {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if sw.held == "" {
		return nil
	}
	out := sw.r.Redact(sw.held)
	sw.held = ""
	_, err := io.WriteString(sw.w, out)
	return err
}

// Close flushes; it does not close the underlying writer.
func (sw *Writer) Close() error { return sw.Flush() }
