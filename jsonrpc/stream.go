package jsonrpc

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/jsonrpc/jsonscan"
)

// NewLineStream returns a [Stream] of newline-delimited messages over rwc:
// one message (or batch) a line, with no limit on a line's length. Blank
// lines are skipped. Close closes rwc.
func NewLineStream(r io.Reader, w io.Writer, closer io.Closer) Stream {
	return &lineStream{r: jsonscan.NewLineReader(r), w: w, closer: closer}
}

type lineStream struct {
	r      *jsonscan.LineReader
	queue  []Message // the line's messages; queue[next:] are still to read
	next   int
	wmu    sync.Mutex
	w      io.Writer
	wbuf   []byte
	closer io.Closer
	once   sync.Once
}

var _ Stream = (*lineStream)(nil)

func (s *lineStream) Read(ctx context.Context) (Message, error) {
	for {
		if s.next < len(s.queue) {
			m := s.queue[s.next]
			s.queue[s.next] = nil
			s.next++
			return m, nil
		}
		line, err := s.r.ReadLine()
		if len(line) == 0 {
			if err != nil {
				return nil, err
			}
			continue
		}
		var derr error
		s.queue, derr = AppendDecoded(s.queue[:0], line)
		s.next = 0
		if derr != nil {
			var de *DecodeError
			if errors.As(derr, &de) && len(line) > 0 {
				de.Reason += ": " + quoteStart(line)
			}
			return nil, derr
		}
	}
}

// quoteStart gives the start of a bad line, for diagnostics.
func quoteStart(line []byte) string {
	const n = 80
	if len(line) > n {
		line = append(line[:n:n], "…"...)
	}
	return safe.Sanitize(string(line))
}

func (s *lineStream) Write(ctx context.Context, msg Message) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	var err error
	s.wbuf, err = AppendMessage(s.wbuf[:0], msg)
	if err != nil {
		return err
	}
	s.wbuf = append(s.wbuf, '\n')
	_, err = s.w.Write(s.wbuf)
	if cap(s.wbuf) > 1<<20 {
		s.wbuf = nil // do not pin a huge buffer
	}
	return err
}

func (s *lineStream) Close() error {
	var err error
	s.once.Do(func() {
		if s.closer != nil {
			err = s.closer.Close()
		}
	})
	return err
}
