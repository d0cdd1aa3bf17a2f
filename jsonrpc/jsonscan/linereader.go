package jsonscan

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/metrics"
)

// lineBufSize is the size of a LineReader's buffer: lines shorter than this
// are found in it and copied out; longer ones are read around it.
const lineBufSize = 64 << 10

// A long line's chunks are each a thirty-second of what the line has so
// far (a buffer's size at least): a line ends in a chunk with little of
// it used, so the waste is about 1/32 of the line at most (the peak of a
// first long line is about 2x: the chunks and the line joined from them,
// then the line and what is decoded from it; see collectAfter), and a
// line of 256 MiB takes about 270 chunks.

// maxEmptyReads is how many reads in a row may return nothing and no
// error before ReadLine gives up with io.ErrNoProgress.
const maxEmptyReads = 100

// A LineReader reads newline-terminated lines of any length from an
// io.Reader, for newline-delimited JSON-RPC.
//
// Each line comes back as a new slice that the LineReader never writes to
// again, so callers may keep it (and slices of it) for as long as they like.
// Short lines are found in an internal buffer and copied out once. A line
// longer than the buffer is read straight from the io.Reader, into one
// slice sized from the last long line (returned as it is when the line
// fits it, with no copy), else into chunks copied once into the slice
// returned: at most about twice the line in memory at peak, and no copy
// through the buffer.
//
// A LineReader is not safe for concurrent use.
type LineReader struct {
	rd      io.Reader
	buf     []byte // len(buf) is the size of the buffer
	r, w    int    // buf[r:w] is read and not yet returned
	scanned int    // buf[r:r+scanned] has no '\n'
	err     error  // an error from rd not yet returned (io.EOF stays)

	// chunks gather a line too long for buf while it is read: chunks[0]
	// is buf[r:w] (not written to meanwhile), the others are read into
	// up to their capacity. Kept across a read error, to go on with.
	chunks [][]byte
	total  int  // the bytes in chunks
	own0   bool // chunks[0] is a slice of its own, not buf

	// lastLong is the length of the last long line: the next one, likely
	// of about the same size (a server sending big results), is read
	// straight into one slice of that size and returned without a copy.
	lastLong int

	max     int   // the longest line accepted; 0: no limit
	tooLong error // sticky: a line was longer than max
}

// A TooLongError says that a line was longer than the most a LineReader
// accepts (SetMax). The line is not returned, and the LineReader returns
// the same error from then on: what follows cannot be told apart from the
// rest of that line.
type TooLongError struct {
	Max int // the limit, in bytes
}

func (e *TooLongError) Error() string {
	return fmt.Sprintf("jsonrpc: a line is longer than %d bytes", e.Max)
}

// SetMax sets the longest line accepted, in bytes (0: no limit). A longer
// line is never held whole: reading stops once it passed max, with a
// *TooLongError.
func (lr *LineReader) SetMax(max int) { lr.max = max }

// exceeds reports whether n bytes of one line are more than the limit,
// and makes the LineReader fail from then on when they are.
func (lr *LineReader) exceeds(n int) bool {
	if lr.max <= 0 || n <= lr.max {
		return false
	}
	lr.tooLong = &TooLongError{Max: lr.max}
	lr.chunks, lr.total, lr.own0 = nil, 0, false
	lr.r, lr.w, lr.scanned = 0, 0, 0
	return true
}

// NewLineReader returns a LineReader that reads from r.
func NewLineReader(r io.Reader) *LineReader { return newLineReaderSize(r, lineBufSize) }

func newLineReaderSize(r io.Reader, size int) *LineReader {
	return &LineReader{rd: r, buf: make([]byte, size)}
}

// ReadLine reads one line, without its line end ("\n" or "\r\n") and
// without leading spaces, tabs and carriage returns, of any length. Blank
// lines come back empty. At the end of input it returns the last
// unterminated line (if any, as it is but for leading white space) with
// io.EOF, and io.EOF again after that. Other errors of the io.Reader are
// returned as they are, with nothing of the line they cut; the next
// ReadLine goes on with that line where it was. A line longer than the
// limit of SetMax gives a *TooLongError, then and ever after.
func (lr *LineReader) ReadLine() ([]byte, error) {
	if lr.tooLong != nil {
		return nil, lr.tooLong
	}
	if lr.chunks != nil {
		return lr.readLong()
	}
	empty := 0
	for {
		if i := bytes.IndexByte(lr.buf[lr.r+lr.scanned:lr.w], '\n'); i >= 0 {
			end := lr.r + lr.scanned + i
			if lr.exceeds(end - lr.r) {
				return nil, lr.tooLong
			}
			line := clone(trimLine(lr.buf[lr.r:end], true))
			lr.r, lr.scanned = end+1, 0
			if lr.r == lr.w {
				lr.r, lr.w = 0, 0
			}
			return line, nil
		}
		lr.scanned = lr.w - lr.r
		if lr.exceeds(lr.scanned) {
			return nil, lr.tooLong
		}
		if lr.err != nil {
			return lr.readErr(func() []byte {
				line := clone(trimLine(lr.buf[lr.r:lr.w], false))
				lr.r, lr.w, lr.scanned = 0, 0, 0
				return line
			})
		}
		if lr.r > 0 {
			copy(lr.buf, lr.buf[lr.r:lr.w])
			lr.w -= lr.r
			lr.r = 0
		}
		if lr.w == len(lr.buf) {
			if size := lr.lastLong + lr.lastLong/16; size > lr.w {
				c := make([]byte, lr.w, size)
				copy(c, lr.buf[:lr.w])
				lr.chunks, lr.own0 = append(lr.chunks, c), true
			} else {
				lr.chunks = append(lr.chunks, lr.buf[:lr.w:lr.w])
			}
			lr.r, lr.w, lr.scanned = 0, 0, 0
			lr.total = len(lr.chunks[0])
			return lr.readLong()
		}
		n, err := lr.read(lr.buf[lr.w:])
		lr.w += n
		if n == 0 && err == nil {
			if empty++; empty == maxEmptyReads {
				lr.err = io.ErrNoProgress
			}
			continue
		}
		empty = 0
		lr.err = err
	}
}

// readErr returns lr.err: io.EOF with the last line, which last gives and
// which stays for the next call; others with no line, only once.
func (lr *LineReader) readErr(last func() []byte) ([]byte, error) {
	err := lr.err
	if err == io.EOF {
		return last(), err
	}
	lr.err = nil
	return nil, err
}

// readLong goes on with a line longer than the buffer, reading it from
// lr.rd into chunks of its own.
func (lr *LineReader) readLong() ([]byte, error) {
	empty := 0
	for {
		if lr.err != nil {
			return lr.readErr(func() []byte {
				line := lr.joinChunks(false)
				lr.r, lr.w, lr.scanned = 0, 0, 0
				return line
			})
		}
		k := len(lr.chunks) - 1
		c := lr.chunks[k]
		if len(c) == cap(c) {
			c = make([]byte, 0, max(len(lr.buf), lr.total/32))
			lr.chunks = append(lr.chunks, c)
			k++
		}
		// At most a buffer's worth a read, so that what comes after the
		// line fits in the buffer.
		room := min(cap(c)-len(c), len(lr.buf))
		n, err := lr.read(c[len(c) : len(c)+room])
		fresh := c[len(c) : len(c)+n]
		lr.chunks[k] = c[:len(c)+n]
		lr.total += n
		lr.err = err
		if i := bytes.IndexByte(fresh, '\n'); i >= 0 {
			if lr.exceeds(lr.total - len(fresh) + i) {
				return nil, lr.tooLong
			}
			rest := fresh[i+1:]
			lr.chunks[k] = c[:len(c)+i]
			lr.lastLong = lr.total - len(rest) - 1
			line := lr.joinChunks(true)
			// chunks[0], if it is the buffer, is copied out, so the rest
			// of the read may go there now.
			lr.w = copy(lr.buf, rest)
			lr.r, lr.scanned = 0, 0
			return line, nil
		}
		if lr.exceeds(lr.total) {
			return nil, lr.tooLong
		}
		if n == 0 && err == nil {
			if empty++; empty == maxEmptyReads {
				lr.err = io.ErrNoProgress
			}
			continue
		}
		empty = 0
	}
}

// joinChunks returns the line in lr.chunks, trimmed as trimLine does, in a
// slice of its own, and ends the long line.
func (lr *LineReader) joinChunks(terminated bool) []byte {
	cs, own0 := lr.chunks, lr.own0
	lr.chunks, lr.total, lr.own0 = nil, 0, false
	if terminated {
		for k := len(cs) - 1; k >= 0; k-- {
			if c := cs[k]; len(c) > 0 {
				if c[len(c)-1] == '\r' {
					cs[k] = c[:len(c)-1]
				}
				break
			}
		}
	}
	if own0 && len(cs) == 1 {
		// The whole line is in the slice sized for it: it is the line,
		// unless much of it went unused.
		line := trimLine(cs[0], false)
		if len(line) < cap(line)/2 {
			return clone(line)
		}
		if len(line) == 0 {
			return nil
		}
		return line
	}
	for len(cs) > 0 {
		cs[0] = trimLine(cs[0], false)
		if len(cs[0]) > 0 {
			break
		}
		cs = cs[1:]
	}
	if len(cs) == 0 {
		return nil
	}
	// One copy into a slice of the exact size, which Join does not zero
	// first.
	line := bytes.Join(cs, nil)
	clear(cs)
	DropChunks(len(line))
	return line
}

// collectAfter is the length from which a line joined from chunks may be
// followed by a collection (see DropChunks).
const collectAfter = 1 << 20

// DropChunks is called after n bytes were joined from chunks that are now
// garbage. The collection that the join's allocation started saw them
// live, so without another they stay in the heap while the line is
// decoded: a third copy at peak. For a line of 1 MiB or more that is at
// least an eighth of the live heap, it runs one collection, so the peak
// is about 2x the line, not 3x. In a process whose heap is far larger
// than the line (an agent holding much else), the chunks are a small
// part of its peak and a forced collection of that heap would cost more
// than it saves, so none runs. It costs one collection per such line:
// the first long line of a stream, or one longer than the last.
func DropChunks(n int) {
	if n < collectAfter {
		return
	}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	if v := sample[0].Value; v.Kind() == metrics.KindUint64 && v.Uint64() > 8*uint64(n) {
		return
	}
	runtime.GC()
}

// read reads into p once, and turns an impossible count into an error.
func (lr *LineReader) read(p []byte) (int, error) {
	n, err := lr.rd.Read(p)
	if n < 0 || n > len(p) {
		return 0, errors.New("jsonrpc: reader returned an impossible count")
	}
	return n, err
}

// trimLine drops the leading spaces, tabs and carriage returns of line,
// and with terminated the carriage return of a "\r\n".
func trimLine(line []byte, terminated bool) []byte {
	if n := len(line); terminated && n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	for len(line) > 0 && (line[0] == ' ' || line[0] == '\t' || line[0] == '\r') {
		line = line[1:]
	}
	return line
}

// clone returns a copy of b in a slice of its own, or nil if b is empty.
func clone(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return append([]byte(nil), b...) // not zeroed first, unlike make
}
