package transport

import (
	"bytes"
	"fmt"
	"io"
	"math"

	"github.com/mcpwire/mcpwire/jsonrpc/jsonscan"
)

// DefaultMaxMessageBytes is the largest message read from a server (a
// stdio line, an HTTP body, an SSE event) unless a Stdio or HTTP says
// otherwise.
const DefaultMaxMessageBytes = 256 << 20

// A TooLargeError says that a message from the server was larger than the
// limit: the connection cannot go on, since what follows cannot be told
// from the rest of it.
type TooLargeError struct {
	What  string // "a line on stdout", "an HTTP body", "an event"
	Limit int64  // bytes
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than the limit of %s (maxMessageBytes in the definition, or --max-message-bytes)", e.What, sizeText(e.Limit))
}

// sizeText shows n bytes for people: exact, in the largest binary unit
// that divides it.
func sizeText(n int64) string {
	for _, u := range []struct {
		shift int
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// newLimitedLineReader returns a LineReader of lines up to max bytes.
func newLimitedLineReader(r io.Reader, max int64) *jsonscan.LineReader {
	lr := jsonscan.NewLineReader(r)
	lr.SetMax(int(min(max, math.MaxInt)))
	return lr
}

// maxBytes is the limit of a Stdio's or HTTP's MaxMessageBytes.
func maxBytes(n int64) int64 {
	if n <= 0 {
		return DefaultMaxMessageBytes
	}
	return n
}

// readLimited reads all of r, up to limit bytes: more is a *TooLargeError.
// It reads into chunks that grow with what came (an eighth of it, at most
// 8 MiB each) and joins them once, so that a body of n bytes costs about
// 2n at peak, not the 3n or more of a buffer grown by doubling.
func readLimited(r io.Reader, limit int64, what string) ([]byte, error) {
	var chunks [][]byte
	var total int64
	size := int64(32 << 10)
	empty := 0
	for {
		c := make([]byte, 0, min(size, limit+1-total))
		for len(c) < cap(c) {
			n, err := r.Read(c[len(c):cap(c)])
			c = c[:len(c)+n]
			total += int64(n)
			if n == 0 && err == nil {
				if empty++; empty == 100 {
					return nil, io.ErrNoProgress
				}
				continue
			}
			empty = 0
			if total > limit {
				return nil, &TooLargeError{What: what, Limit: limit}
			}
			if err == io.EOF {
				chunks = append(chunks, c)
				if len(chunks) == 1 {
					return chunks[0], nil
				}
				return bytes.Join(chunks, nil), nil
			}
			if err != nil {
				return nil, err
			}
		}
		chunks = append(chunks, c)
		size = min(max(size, total/8), 8<<20)
	}
}
