package transport

import (
	"bufio"
	"bytes"
	"io"
	"iter"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc/jsonscan"
)

// An Event is one dispatched server-sent event, as the WHATWG event-stream
// format defines it (https://html.spec.whatwg.org/multipage/server-sent-events.html).
type Event struct {
	// ID is the stream's last event ID as of this event: set by the event's
	// own id field, or kept from an earlier event.
	ID string
	// HasID reports whether this event had an id field of its own.
	HasID bool
	// Type is the event field; empty means "message".
	Type string
	// Data is the data fields joined by "\n".
	Data string
	// Retry is the reconnection time from this event's retry field, or 0
	// when it had none.
	Retry time.Duration
}

// maxRetryMillis bounds a retry field; larger values are ignored.
const maxRetryMillis = int64(1<<63-1) / int64(time.Millisecond)

// scanEvents yields the events of an event stream. A read error other than
// io.EOF is yielded once, last. An event cut off by the end of the input is
// not dispatched.
func scanEvents(r io.Reader) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		s := newEventScanner(r)
		for {
			ev, err := s.next()
			if err != nil {
				if err != io.EOF {
					yield(Event{}, err)
				}
				return
			}
			if !yield(Event{ID: ev.id, HasID: ev.hasID, Type: ev.typ, Data: string(ev.data), Retry: ev.retry}, nil) {
				return
			}
		}
	}
}

// rawEvent is an event whose data is handed over as bytes: the slice is the
// caller's from then on (the scanner never writes to it again).
type rawEvent struct {
	id    string
	hasID bool
	typ   string
	data  []byte
	retry time.Duration
}

// An eventScanner parses an event stream, line by line, with no limit on a
// line's length. Besides the events it keeps the stream's state: the last
// event ID and the reconnection time, which persist across events. As the
// format says, an id field sets the last event ID buffer, and the stream's
// last event ID takes the buffer's value only when an event is dispatched
// (at the blank line that ends it, data or not): an event cut off by the
// end of the stream does not count, so a resumption asks for what follows
// the last complete event. A retry field counts at once.
type eventScanner struct {
	r       *bufio.Reader
	started bool // the byte-order mark was looked for
	skipLF  bool // the last line ended with CR: a following LF belongs to it
	line    []byte
	chunks  [][]byte // the rest of a long line, joined once at its end
	total   int      // the bytes in chunks
	sized   bool     // line is a slice sized for a long line (see add)

	// lastLong is the length of the last long line: the next one is read
	// into one slice of about that size (see add).
	lastLong int

	// the event being built
	data    []byte
	nData   int
	typ     string
	hasID   bool
	evRetry time.Duration

	idBuf    string        // the last event ID buffer: set by id fields
	lastID   string        // the last event ID: idBuf as of the last dispatch
	retry    time.Duration // the reconnection time
	retrySet bool          // a retry field came

	max     int64 // the largest line and event data; more is a *TooLargeError
	lineLen int64 // the bytes of the line being read
}

func newEventScanner(r io.Reader) *eventScanner {
	return &eventScanner{r: bufio.NewReaderSize(r, sseBufSize), max: DefaultMaxMessageBytes}
}

// sseBufSize is the size of an eventScanner's read buffer.
const sseBufSize = 64 << 10

// A scannerPool keeps the eventScanners of finished answer streams (their
// 64 KiB buffers above all) for the next ones: a connection whose server
// answers every POST with a stream would otherwise make that much garbage
// per call.
// It also keeps the length of the last long line any of them read, so
// that a server sending big results has each read into one slice.
type scannerPool struct {
	p        sync.Pool
	lastLong atomic.Int64
}

// get returns a scanner reading r, in its initial state.
func (sp *scannerPool) get(r io.Reader) *eventScanner {
	s, _ := sp.p.Get().(*eventScanner)
	if s == nil {
		s = newEventScanner(r)
	} else {
		s.r.Reset(r)
	}
	s.lastLong = int(sp.lastLong.Load())
	return s
}

// put takes back a scanner done with, keeping its buffers but nothing of
// the stream it read.
func (sp *scannerPool) put(s *eventScanner) {
	if s.lastLong > 0 {
		sp.lastLong.Store(int64(s.lastLong))
	}
	r, line := s.r, s.line[:0]
	if cap(line) > lineChunk {
		line = nil // do not keep what one long line grew
	}
	r.Reset(nil)
	*s = eventScanner{r: r, line: line, max: DefaultMaxMessageBytes}
	sp.p.Put(s)
}

// tooLarge is the error of an event larger than the limit.
func (s *eventScanner) tooLarge() error {
	return &TooLargeError{What: "a message (an event of a stream)", Limit: s.max}
}

// resume sets the state a new connection of a stream starts from: the last
// event ID and the reconnection time of the one before.
func (s *eventScanner) resume(lastID string, retry time.Duration, retrySet bool) {
	s.idBuf, s.lastID = lastID, lastID
	s.retry, s.retrySet = retry, retrySet
}

// LastID returns the stream's last event ID, as of the last event
// dispatched ("" when none).
func (s *eventScanner) LastID() string { return s.lastID }

// Retry returns the stream's reconnection time, and whether a retry field
// set it.
func (s *eventScanner) Retry() (time.Duration, bool) { return s.retry, s.retrySet }

// readLine returns the next line without its end (CR, LF or CRLF). The
// slice is valid until the next call. At the end of the input an
// unterminated line is dropped and io.EOF returned.
func (s *eventScanner) readLine() ([]byte, error) {
	if !s.started {
		s.started = true
		if b, _ := s.r.Peek(3); len(b) == 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
			s.r.Discard(3)
		}
	}
	if cap(s.line) > lineChunk {
		s.line = nil // a long line's slice, not taken over: not kept
	}
	s.line = s.line[:0]
	s.chunks, s.total, s.sized = nil, 0, false
	s.lineLen = 0
	for {
		if _, err := s.r.Peek(1); err != nil {
			return nil, err
		}
		buf, _ := s.r.Peek(s.r.Buffered())
		if s.skipLF {
			s.skipLF = false
			if buf[0] == '\n' {
				s.r.Discard(1)
				continue
			}
		}
		i := bytes.IndexByte(buf, '\n')
		var j int
		if i >= 0 {
			j = bytes.IndexByte(buf[:i], '\r')
		} else {
			j = bytes.IndexByte(buf, '\r')
		}
		if j >= 0 {
			i = j
		}
		if i >= 0 {
			if s.lineLen+int64(i) > s.max {
				return nil, s.tooLarge()
			}
			s.add(buf[:i])
			s.skipLF = buf[i] == '\r'
			s.r.Discard(i + 1)
			return s.joined(), nil
		}
		if s.lineLen += int64(len(buf)); s.lineLen > s.max {
			return nil, s.tooLarge() // an endless line is never held whole
		}
		s.add(buf)
		s.r.Discard(len(buf))
	}
}

// lineChunk is the size beyond which a line is kept as a list of chunks
// and joined once at its end, so that a long line costs two copies of
// itself at most instead of the many copies of a growing buffer (see
// jsonscan.DropChunks).
const lineChunk = 64 << 10

func (s *eventScanner) add(b []byte) {
	if len(s.chunks) == 0 {
		n := len(s.line) + len(b)
		if n <= max(cap(s.line), lineChunk) {
			s.line = append(s.line, b...)
			return
		}
		// A long line. The next is likely of about the size of the last
		// (a server sending big results): read it into one slice of that
		// size, which is then the line itself, with no joining copy.
		if hint := s.lastLong + s.lastLong/16; hint >= n && !s.sized {
			line := make([]byte, len(s.line), hint)
			copy(line, s.line)
			s.line, s.sized = append(line, b...), true
			return
		}
		if s.sized && n <= cap(s.line) {
			s.line = append(s.line, b...)
			return
		}
	}
	s.total += len(b)
	if k := len(s.chunks) - 1; k >= 0 && len(s.chunks[k])+len(b) <= cap(s.chunks[k]) {
		s.chunks[k] = append(s.chunks[k], b...)
		return
	}
	// Each chunk an eighth of the line so far: the last one's waste is
	// about 1/8 of the line at most.
	size := max(len(b), lineChunk, (len(s.line)+s.total)/8)
	s.chunks = append(s.chunks, append(make([]byte, 0, size), b...))
}

// joined returns the line read, joining its chunks when it has some.
func (s *eventScanner) joined() []byte {
	if len(s.chunks) == 0 {
		if s.sized || len(s.line) > lineChunk {
			s.lastLong = len(s.line)
		}
		s.sized = false
		return s.line
	}
	n := len(s.line) + s.total
	out := make([]byte, 0, n)
	out = append(out, s.line...)
	for _, c := range s.chunks {
		out = append(out, c...)
	}
	clear(s.chunks)
	s.chunks, s.total, s.lastLong = nil, 0, n
	if s.sized {
		s.line, s.sized = nil, false // the hinted slice was too small
	}
	jsonscan.DropChunks(n)
	return out
}

// next returns the next dispatched event, or io.EOF at the end.
func (s *eventScanner) next() (rawEvent, error) {
	for {
		line, err := s.readLine()
		if err != nil {
			return rawEvent{}, err
		}
		if len(line) == 0 {
			s.lastID = s.idBuf // dispatched: its id counts now
			if s.nData > 0 {
				ev := rawEvent{id: s.lastID, hasID: s.hasID, typ: s.typ, data: s.data, retry: s.evRetry}
				s.data = nil // handed over
				s.reset()
				return ev, nil
			}
			s.reset()
			continue
		}
		if line[0] == ':' {
			continue // a comment
		}
		name, value := line, line[len(line):]
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			name, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(name) {
		case "event":
			s.typ = string(value)
		case "data":
			if s.nData == 0 && len(value) > 4<<10 {
				// A big line: take it over instead of copying it.
				s.data = value
				if cap(s.line) > 0 && &line[0] == &s.line[:1][0] {
					s.line = nil
				}
			} else {
				if int64(len(s.data))+int64(len(value))+1 > s.max {
					return rawEvent{}, s.tooLarge() // an endless event is never held whole
				}
				if s.nData > 0 {
					s.data = append(s.data, '\n')
				}
				s.data = append(s.data, value...)
			}
			s.nData++
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				s.idBuf = string(value)
				s.hasID = true
			}
		case "retry":
			if ms, ok := parseDigits(value); ok {
				s.retry = time.Duration(ms) * time.Millisecond
				s.retrySet = true
				s.evRetry = s.retry
			}
		}
	}
}

func (s *eventScanner) reset() {
	s.data = s.data[:0]
	s.nData = 0
	s.typ = ""
	s.hasID = false
	s.evRetry = 0
}

// parseDigits parses a non-empty string of ASCII digits that fits a
// retry value.
func parseDigits(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil || n > maxRetryMillis {
		return 0, false
	}
	return n, true
}
