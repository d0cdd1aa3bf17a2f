//go:build unix

package transport

import "syscall"

// quickWriter writes to the server's stdin without waiting: the pipe is
// non-blocking (os.Pipe registers it with the runtime's poller), so one
// write(2) either takes bytes or says the pipe is full. A Write that fits
// the pipe then needs no deadline bound to its ctx, which costs several
// allocations and a timer registration per call.
type quickWriter struct {
	raw  syscall.RawConn
	try  func(fd uintptr) bool // try, made once: no allocation per write
	b    []byte
	n    int
	fail bool
}

func (q *quickWriter) init(c *StdioConn) {
	raw, err := c.stdin.SyscallConn()
	if err != nil {
		return
	}
	q.raw = raw
	q.try = func(fd uintptr) bool {
		n, err := syscall.Write(int(fd), q.b)
		q.n, q.fail = max(n, 0), err != nil
		return true // never wait here: the caller does, bound to its ctx
	}
}

// write writes what of b the pipe takes at once, and returns how much;
// any error (a full pipe, a closed one) is left for the caller's ordinary
// write of the rest to meet and report.
func (q *quickWriter) write(b []byte) int {
	if q.raw == nil {
		return 0
	}
	q.b, q.n = b, 0
	err := q.raw.Write(q.try)
	q.b = nil
	if err != nil {
		return 0
	}
	return q.n
}
