package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/mcpwire/mcpwire/jsonrpc/jsonscan"
)

// MaxIDLen is the longest ID, in bytes of its JSON form, that is accepted.
const MaxIDLen = 256

// An ID identifies a request. It holds the JSON token exactly as it was sent
// (an integer or a string); the zero ID is absent (a notification) or null.
// IDs are comparable and may be used as map keys.
type ID struct {
	// An integer in its shortest form that fits an int64 is held as a
	// number (num, with isNum), so that the IDs of calls cost no string;
	// any other token is held as sent, in raw.
	raw   string
	num   int64
	isNum bool
}

// Int64ID returns the integer ID n.
func Int64ID(n int64) ID { return ID{num: n, isNum: true} }

// StringID returns the string ID s.
func StringID(s string) ID {
	b, _ := marshalNoEscape(s)
	return ID{raw: string(b)}
}

// IsValid reports whether the ID is present (not absent or null).
func (id ID) IsValid() bool { return id.isNum || id.raw != "" }

// Raw returns the ID's JSON token exactly as sent.
func (id ID) Raw() string {
	if id.isNum {
		return strconv.FormatInt(id.num, 10)
	}
	return id.raw
}

// String returns the ID for people: the integer or the quoted string.
func (id ID) String() string {
	if !id.IsValid() {
		return "null"
	}
	return id.Raw()
}

// MarshalJSON returns the ID's token, or null.
func (id ID) MarshalJSON() ([]byte, error) { return id.appendTo(nil), nil }

// appendTo appends the ID's token, or null.
func (id ID) appendTo(dst []byte) []byte {
	switch {
	case id.isNum:
		return strconv.AppendInt(dst, id.num, 10)
	case id.raw == "":
		return append(dst, "null"...)
	}
	return append(dst, id.raw...)
}

// UnmarshalJSON accepts an integer, a string or null, as parseID does.
func (id *ID) UnmarshalJSON(b []byte) error {
	v, err := parseID(b)
	if err != nil {
		return err
	}
	*id = v
	return nil
}

// parseID checks a JSON token (already known to be valid JSON) as an ID.
func parseID(tok []byte) (ID, error) {
	tok = bytes.TrimSpace(tok)
	if len(tok) == 0 || string(tok) == "null" {
		return ID{}, nil
	}
	if len(tok) > MaxIDLen {
		return ID{}, fmt.Errorf("id is %d bytes, more than %d", len(tok), MaxIDLen)
	}
	switch c := tok[0]; {
	case c == '"':
		return ID{raw: string(tok)}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		if bytes.ContainsAny(tok, ".eE") {
			return ID{}, fmt.Errorf("id %s is not an integer", tok)
		}
		if n, ok := shortestInt(tok); ok {
			return Int64ID(n), nil
		}
		return ID{raw: string(tok)}, nil
	default:
		return ID{}, errors.New("id is neither an integer nor a string")
	}
}

// shortestInt parses a JSON integer that is exactly the shortest decimal
// form of an int64 (the form Int64ID gives back): not "-0", and in range.
func shortestInt(tok []byte) (int64, bool) {
	digits := tok
	neg := len(tok) > 0 && tok[0] == '-'
	if neg {
		digits = tok[1:]
	}
	if len(digits) == 0 || len(digits) > 19 || (digits[0] == '0' && (len(digits) > 1 || neg)) {
		return 0, false
	}
	var n uint64 // 19 digits fit in a uint64
	for _, d := range digits {
		if d < '0' || d > '9' {
			return 0, false
		}
		n = n*10 + uint64(d-'0')
	}
	switch {
	case !neg && n <= math.MaxInt64:
		return int64(n), true
	case neg && n <= -math.MinInt64:
		return -int64(n), true // n == 1<<63 wraps to MinInt64
	}
	return 0, false
}

// A Message is a [*Request] or a [*Response]; the set is closed.
type Message interface {
	isMessage()
}

// A Request is a call (with an ID) or a notification (without one).
type Request struct {
	ID     ID
	Method string
	Params json.RawMessage // an object or an array, or nil
	// Parts, when set (a request to send), are the params in pieces,
	// sent joined in place of Params: a big value goes out as it stands,
	// never copied into one slice with the rest (Conn.StartParts). A
	// Stream's Write may clear its elements once the request is sent
	// (HTTP's, before a JSON answer is read), so that a big one is not
	// held with the answer.
	Parts [][]byte
}

// IsNotification reports whether the request expects no response.
func (r *Request) IsNotification() bool { return !r.ID.IsValid() }

// A Response answers a request: Result or Error, never both.
type Response struct {
	ID     ID
	Result json.RawMessage
	Error  *Error

	// index lists Result's large values, when the Response was decoded:
	// see Cursor.
	index jsonscan.Index
}

// Cursor returns a Cursor at the start of the result. For a decoded
// response it skips the result's large values without scanning them, from
// what DecodeMessage learned while checking the JSON.
func (r *Response) Cursor() *jsonscan.Cursor { return jsonscan.NewIndexedCursor(r.Result, r.index) }

func (*Request) isMessage()  {}
func (*Response) isMessage() {}

// NewRequest returns a request whose params are params marshaled to JSON
// (without HTML escaping). A nil params leaves Params empty.
func NewRequest(id ID, method string, params any) (*Request, error) {
	raw, err := MarshalParams(params)
	if err != nil {
		return nil, err
	}
	return &Request{ID: id, Method: method, Params: raw}, nil
}

// NewResponse returns a response carrying result, or err when err is not
// nil. An err that is not an *Error becomes an internal error.
func NewResponse(id ID, result any, err error) (*Response, error) {
	if err != nil {
		var je *Error
		if !errors.As(err, &je) {
			je = &Error{Code: CodeInternalError, Message: err.Error()}
		}
		return &Response{ID: id, Error: je}, nil
	}
	raw, merr := MarshalParams(result)
	if merr != nil {
		return nil, merr
	}
	if raw == nil {
		raw = json.RawMessage("{}")
	}
	return &Response{ID: id, Result: raw}, nil
}

// MarshalParams marshals v without HTML escaping. It returns nil for a nil
// v, and v itself for a json.RawMessage.
func MarshalParams(v any) (json.RawMessage, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return v, nil
	}
	if b, ok := marshalSimple(v); ok {
		return b, nil
	}
	return marshalNoEscape(v)
}

func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	return b[:len(b)-1], nil // Encode appends a newline
}

// AppendString appends s as a JSON string, escaped as encoding/json
// escapes it but with no HTML escaping.
func AppendString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			b, _ := marshalNoEscape(s) // a string always marshals
			return append(dst, b...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

// EncodeMessage returns the JSON form of msg, with no trailing newline.
func EncodeMessage(msg Message) ([]byte, error) {
	n := 64 // the envelope, an id
	switch m := msg.(type) {
	case *Request:
		n += len(m.Method) + len(m.Params)
	case *Response:
		n += len(m.Result)
	}
	return AppendMessage(make([]byte, 0, n), msg)
}

// AppendMessage appends the JSON form of msg to dst.
func AppendMessage(dst []byte, msg Message) ([]byte, error) {
	dst = append(dst, `{"jsonrpc":"2.0"`...)
	switch m := msg.(type) {
	case *Request:
		if m.ID.IsValid() {
			dst = append(dst, `,"id":`...)
			dst = m.ID.appendTo(dst)
		}
		dst = append(dst, `,"method":`...)
		dst = AppendString(dst, m.Method)
		if params := m.Params; len(params) > 0 || len(m.Parts) > 0 {
			if m.Parts != nil {
				params = bytes.Join(m.Parts, nil)
			}
			dst = append(dst, `,"params":`...)
			dst = appendRaw(dst, params)
		}
	case *Response:
		dst = append(dst, `,"id":`...)
		dst = m.ID.appendTo(dst)
		if m.Error != nil {
			e, err := marshalNoEscape(m.Error)
			if err != nil {
				return nil, err
			}
			dst = append(dst, `,"error":`...)
			dst = append(dst, e...)
		} else {
			dst = append(dst, `,"result":`...)
			if len(m.Result) == 0 {
				dst = append(dst, "null"...)
			} else {
				dst = appendRaw(dst, m.Result)
			}
		}
	default:
		return nil, fmt.Errorf("jsonrpc: cannot encode %T", msg)
	}
	return append(dst, '}'), nil
}

// SplitMessage is AppendMessage for a writer that sends a big request
// without copying its params: when msg is a request whose params (or
// parts) are at least 64 KiB and one line already, it returns the
// encoding up to them (appended to dst) and the params, in parts; the
// message is head, then the parts, then "}". Otherwise head is the whole
// message and body is nil.
func SplitMessage(dst []byte, msg Message) (head []byte, body [][]byte, err error) {
	m, ok := msg.(*Request)
	if ok {
		body = m.Parts
		if body == nil && len(m.Params) > 0 {
			body = [][]byte{m.Params}
		}
	}
	n, oneLine := 0, true
	for _, b := range body {
		n += len(b)
		oneLine = oneLine && bytes.IndexByte(b, '\n') < 0 && bytes.IndexByte(b, '\r') < 0
	}
	if n < 64<<10 || !oneLine {
		head, err = AppendMessage(dst, msg)
		return head, nil, err
	}
	head, err = AppendMessage(dst, &Request{ID: m.ID, Method: m.Method})
	if err != nil {
		return nil, nil, err
	}
	head = append(head[:len(head)-1], `,"params":`...)
	return head, body, nil
}

// appendRaw appends raw JSON, compacted when it spans lines, so that an
// encoded message is always one line (newline framing depends on it).
func appendRaw(dst []byte, raw json.RawMessage) []byte {
	if bytes.IndexByte(raw, '\n') < 0 && bytes.IndexByte(raw, '\r') < 0 {
		return append(dst, raw...)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return append(dst, raw...) // not JSON: the peer will say so
	}
	return append(dst, buf.Bytes()...)
}

// A DecodeError says why bytes from the peer are not a JSON-RPC message.
// ID is set when the message had a usable ID: for a request, so that an
// error response can be sent; for an answer (Response set: it has an id
// and no method), so that the call it answers fails at once. An answer is
// never replied to.
type DecodeError struct {
	ID       ID
	Code     int64 // CodeParseError or CodeInvalidRequest
	Reason   string
	Response bool
}

func (e *DecodeError) Error() string { return "jsonrpc: " + e.Reason }

// DecodeMessage decodes one message, or a batch of them (a JSON array).
// The messages' raw members (Params, Result, Error.Data) alias data.
//
// It checks the JSON and takes the envelope apart in the same pass, so a
// message's bytes are looked at once here; input that is not valid JSON
// is refused as a whole (CodeParseError) before any message in it is
// judged.
func DecodeMessage(data []byte) ([]Message, error) {
	return decodeMessage(nil, data, jsonscan.IndexMin)
}

// AppendDecoded is DecodeMessage appending the messages to dst, so that a
// reader may reuse one slice for every line it decodes.
func AppendDecoded(dst []Message, data []byte) ([]Message, error) {
	return decodeMessage(dst, data, jsonscan.IndexMin)
}

// decodeMessage is AppendDecoded, indexing the values of minSize bytes or
// more.
func decodeMessage(out []Message, data []byte, minSize int) ([]Message, error) {
	s := jsonscan.NewScanner(data, minSize)
	s.SkipSpace()
	var envs []envelope
	var one [1]envelope
	batch := s.Peek() == '['
	if batch {
		s.Advance()
		s.SkipSpace()
		if s.Peek() == ']' {
			s.Advance()
		} else {
			for {
				s.SkipSpace()
				envs = append(envs, envelope{})
				if !envs[len(envs)-1].scan(s, 1) {
					return out, notJSON(s, data, false)
				}
				s.SkipSpace()
				if c := s.Peek(); c == ']' {
					s.Advance()
					break
				} else if c != ',' {
					return out, notJSON(s, data, false)
				}
				s.Advance()
			}
		}
	} else {
		envs = one[:]
		if !envs[0].scan(s, 0) {
			return out, notJSON(s, data, true)
		}
	}
	s.SkipSpace()
	if s.Pos() != len(data) {
		return out, notJSON(s, data, !batch)
	}
	if batch && len(envs) == 0 {
		return out, &DecodeError{Code: CodeInvalidRequest, Reason: "empty batch"}
	}
	if out == nil {
		out = make([]Message, 0, len(envs))
	}
	for i := range envs {
		m, err := envs[i].message()
		if err != nil {
			return out, err
		}
		out = append(out, m)
	}
	return out, nil
}

// notJSON is the error of input that is not valid JSON. When it is one
// message (not a batch) that looks like an answer with a usable id, the
// error says so, so that the call it answers fails at once.
func notJSON(s *jsonscan.Scanner, data []byte, single bool) error {
	e := &DecodeError{Code: CodeParseError, Reason: "not valid JSON"}
	if s.TooDeep() {
		e.Reason = fmt.Sprintf("not valid JSON: nested more than %d deep", jsonscan.MaxDepth)
	}
	if single {
		e.ID, e.Response = answerID(data)
	}
	return e
}

// answerID looks at the top-level members of bad input, as far as they
// go, for an answer's id: an id that parses, a result or an error, and no
// method. Nested values are skipped without looking into them (no depth
// limit), so an answer nested too deeply still names its call.
func answerID(data []byte) (ID, bool) {
	var id ID
	hasID, answer, method, badID := false, false, false, false
	jsonscan.Members(data, func(key, val []byte) bool {
		switch string(key) {
		case "method":
			method = true
			return false
		case "id":
			if !jsonscan.Valid(val) {
				badID = true
				return false
			}
			parsed, err := parseID(val)
			if err != nil || !parsed.IsValid() {
				badID = true
				return false
			}
			id, hasID = parsed, true
		case "result", "error":
			answer = true
		}
		return true
	})
	if method || badID || !hasID || !answer {
		return ID{}, false
	}
	return id, true
}

// An envelope is a message's members as found by the scanner: each
// member's value bytes, before any judgement of them.
type envelope struct {
	notObject                               bool
	version, id, method, params, result, ev []byte
	dup                                     string         // a member given twice
	badKey                                  bool           // a member name that does not decode
	index                                   jsonscan.Index // the result's
}

// scan checks the value at the scanner, at nesting depth, and when it is
// an object records its members in e. It reports whether the value is
// valid JSON.
func (e *envelope) scan(s *jsonscan.Scanner, depth int) bool {
	if s.Peek() != '{' {
		e.notObject = true
		return s.Value(depth)
	}
	return s.Object(depth, func(key, tok, val []byte, ix jsonscan.Index) {
		if e.set(key, tok, val) == &e.result {
			e.index = ix
		}
	})
}

// set records one member (its name as sent, in tok, when it has escapes),
// and returns where it went (nil for a member of no interest).
func (e *envelope) set(key, tok, val []byte) *[]byte {
	if bytes.IndexByte(key, '\\') >= 0 {
		k, err := jsonscan.Unquote(tok)
		if err != nil {
			e.badKey = true
			return nil
		}
		key = []byte(k)
	}
	var slot *[]byte
	switch string(key) {
	case "jsonrpc":
		slot = &e.version
	case "id":
		slot = &e.id
	case "method":
		slot = &e.method
	case "params":
		slot = &e.params
	case "result":
		slot = &e.result
	case "error":
		slot = &e.ev
	default:
		return nil
	}
	if *slot != nil && e.dup == "" {
		e.dup = string(key)
	}
	*slot = val
	return slot
}

// message judges an envelope of valid JSON.
func (e *envelope) message() (Message, error) {
	if e.notObject {
		return nil, &DecodeError{Code: CodeInvalidRequest, Reason: "message is not a JSON object"}
	}
	if e.badKey {
		return nil, &DecodeError{Code: CodeInvalidRequest, Reason: "bad member name"}
	}
	if e.dup != "" {
		return nil, &DecodeError{Code: CodeInvalidRequest, Reason: fmt.Sprintf("member %q given twice", e.dup)}
	}
	var msgID ID
	var idErr error
	if e.id != nil {
		msgID, idErr = parseID(e.id)
	}
	// An answer (an id, no method) is never replied to: its ID says which
	// call it fails.
	isAnswer := e.method == nil && msgID.IsValid()
	bad := func(reason string) error {
		return &DecodeError{ID: msgID, Code: CodeInvalidRequest, Reason: reason, Response: isAnswer}
	}
	if idErr != nil {
		return nil, &DecodeError{Code: CodeInvalidRequest, Reason: idErr.Error()}
	}
	if string(e.version) != `"2.0"` {
		return nil, bad(`"jsonrpc" must be "2.0"`)
	}
	if method := e.method; method != nil {
		if e.result != nil || e.ev != nil {
			return nil, bad("a request has no result or error")
		}
		if method[0] != '"' {
			return nil, bad(`"method" must be a string`)
		}
		name, err := jsonscan.UnquoteValid(method)
		if err != nil {
			return nil, bad(`"method" must be a string`)
		}
		if e.id != nil && !msgID.IsValid() {
			return nil, bad("request id must not be null")
		}
		params := e.params
		if params != nil && params[0] != '{' && params[0] != '[' {
			if string(params) != "null" {
				return nil, bad(`"params" must be an object or an array`)
			}
			params = nil
		}
		return &Request{ID: msgID, Method: name, Params: params}, nil
	}
	if e.id == nil {
		return nil, bad(`a message needs "method" or "id"`)
	}
	if (e.result == nil) == (e.ev == nil) {
		return nil, bad(`a response has exactly one of "result" and "error"`)
	}
	resp := &Response{ID: msgID, Result: e.result, index: e.index}
	if ev := e.ev; ev != nil {
		var eo struct {
			Code    *int64          `json:"code"`
			Message *string         `json:"message"`
			Data    json.RawMessage `json:"data"`
		}
		if ev[0] != '{' || json.Unmarshal(ev, &eo) != nil || eo.Code == nil || eo.Message == nil {
			return nil, bad(`"error" must be an object with an integer "code" and a string "message"`)
		}
		resp.Error = &Error{Code: *eo.Code, Message: *eo.Message, Data: eo.Data}
	} else if !msgID.IsValid() {
		return nil, bad("a result needs an id")
	}
	return resp, nil
}
