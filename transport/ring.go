package transport

import (
	"bytes"
	"sync"
	"unicode/utf8"
)

// A ring keeps the last bytes written to it, up to a fixed size. It is safe
// for concurrent use.
type ring struct {
	mu    sync.Mutex
	buf   []byte // len(buf) == size once full
	size  int
	next  int   // where the next byte goes once full
	total int64 // bytes ever written
}

func newRing(size int) *ring { return &ring{size: size} }

// Write keeps the tail of p; it never fails.
func (r *ring) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(p)
	r.total += int64(n)
	if n >= r.size {
		r.buf = append(r.buf[:0], p[n-r.size:]...)
		r.next = 0
		return n, nil
	}
	if len(r.buf) < r.size {
		room := r.size - len(r.buf)
		if len(p) <= room {
			r.buf = append(r.buf, p...)
			return n, nil
		}
		r.buf = append(r.buf, p[:room]...)
		p = p[room:]
		r.next = 0
	}
	for len(p) > 0 {
		c := copy(r.buf[r.next:], p)
		p = p[c:]
		r.next = (r.next + c) % r.size
	}
	return n, nil
}

// Bytes returns a copy of what is kept, oldest first. When bytes were
// dropped, it starts at the start of a line (a character boundary when
// what is kept holds no line end), so that no line is shown in part.
func (r *ring) Bytes() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]byte, 0, len(r.buf))
	out = append(out, r.buf[r.next:]...)
	out = append(out, r.buf[:r.next]...)
	if r.total > int64(len(out)) {
		for i := 0; i < len(out) && i < utf8.UTFMax; i++ {
			if utf8.RuneStart(out[0]) {
				break
			}
			out = out[1:]
		}
		if i := bytes.IndexByte(out, '\n'); i >= 0 && i < len(out)-1 {
			out = out[i+1:]
		}
	}
	return out
}
