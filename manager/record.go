package manager

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// MaxRecording bounds what a Recorder holds: past it, messages are
// counted but not kept, and the recording says so in its last line.
const MaxRecording = 64 << 20

// A Recorder keeps a session as JSON Lines (`--record FILE`): a header,
// every message in both directions with its time offset, the session's
// era, revision and transport once known. Each line is redacted with
// the Redactor given plus the secrets of the servers recorded (their
// environment and header values) before it is kept, in every form the
// redactor knows. Lines are kept in memory (no lock is held across I/O)
// and written by Bytes' caller (0600, through internal/safe).
type Recorder struct {
	start time.Time

	mu       sync.Mutex
	red      *safe.Redactor
	lines    [][]byte
	size     int
	dropped  int
	sessions map[string]int // HTTP session ids → their markers
}

// A RecordLine is one line of a recording.
type RecordLine struct {
	// T is the time since the recording began, in milliseconds.
	T float64 `json:"t"`
	// Server names the server the line is of ("" in the header).
	Server string `json:"server,omitempty"`
	// Dir is "send" (mcpwire to the server) or "recv"; "" on a line that
	// is not a message.
	Dir string `json:"dir,omitempty"`
	// Msg is the JSON-RPC message, as encoded on the wire.
	Msg json.RawMessage `json:"msg,omitempty"`
	// Recording (the header) is the format's version: 1 (lines with
	// http came in the same version: a reader skips members it does not
	// know).
	Recording int `json:"recording,omitempty"`
	// Session, once a session is up: its transport, era and revision.
	Session *RecordSession `json:"session,omitempty"`
	// HTTP is an HTTP exchange of the session (streamable HTTP only).
	HTTP *RecordHTTP `json:"http,omitempty"`
	// Dropped, on the last line, counts the messages not kept past
	// MaxRecording.
	Dropped int `json:"dropped,omitempty"`
}

// RecordSession says what a recorded session spoke.
type RecordSession struct {
	Transport string `json:"transport"`
	Era       string `json:"era"`
	Protocol  string `json:"protocol"`
}

// NewRecorder starts a recording whose lines are redacted with red.
func NewRecorder(red *safe.Redactor) *Recorder {
	r := &Recorder{start: time.Now(), red: red}
	r.add(&RecordLine{Recording: 1})
	return r
}

// addSecrets redacts more secrets from the lines kept from now on.
func (r *Recorder) addSecrets(spec *Spec) {
	var more []string
	for _, v := range spec.Env {
		more = append(more, v)
	}
	for _, v := range spec.Header {
		more = append(more, v)
	}
	r.mu.Lock()
	r.red = r.red.With(more...)
	r.mu.Unlock()
}

// add keeps one line, redacted.
func (r *Recorder) add(l *RecordLine) {
	l.T = float64(time.Since(r.start).Microseconds()) / 1000
	b, err := json.Marshal(l)
	if err != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	b = r.red.RedactJSON(b)
	if r.size+len(b) > MaxRecording {
		r.dropped++
		return
	}
	r.size += len(b) + 1
	r.lines = append(r.lines, b)
}

// Bytes is the recording so far: one JSON document a line.
func (r *Recorder) Bytes() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []byte
	for _, l := range r.lines {
		out = append(append(out, l...), '\n')
	}
	if r.dropped > 0 {
		b, _ := json.Marshal(&RecordLine{T: float64(time.Since(r.start).Microseconds()) / 1000, Dropped: r.dropped})
		out = append(append(out, b...), '\n')
	}
	return out
}

// session notes what a session of server speaks.
func (r *Recorder) session(server string, c *Conn) {
	r.add(&RecordLine{Server: server, Session: &RecordSession{Transport: c.Transport(), Era: string(c.Era()), Protocol: c.ProtocolVersion()}})
}

// message keeps one message of server, as encoded on the wire.
func (r *Recorder) message(server, dir string, msg []byte) {
	r.add(&RecordLine{Server: server, Dir: dir, Msg: msg})
}
