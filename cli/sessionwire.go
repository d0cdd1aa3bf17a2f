package cli

// The session daemon's socket protocol. A connection starts with the
// daemon's hello line ({"daemon":PID}), then one request line of the
// client's and one answer line of the daemon's, each a JSON object;
// after an "mcp" answer that is ok, the connection is an MCP stream
// (newline-delimited JSON-RPC) with the session's server.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// maxWireLine bounds a line of the socket protocol (a request carries
// the client's environment).
const maxWireLine = 1 << 20

// sessionOps are the requests a daemon answers.
const (
	opMCP        = "mcp"        // speak MCP with the session's server
	opConnect    = "connect"    // start a session (or keep the live one)
	opList       = "list"       // the sessions
	opDisconnect = "disconnect" // end one session, or all
)

// A wireRequest is the client's request line.
type wireRequest struct {
	Op   string `json:"op"`
	Name string `json:"name,omitempty"`
	All  bool   `json:"all,omitempty"`
	// Dir is the working directory the name resolves in; Digest the
	// approval digest of the definition the client resolved there.
	Dir    string `json:"dir,omitempty"`
	Digest string `json:"digest,omitempty"`
	// Environ is the client's environment (connect): the server is
	// started with what a direct start would give it.
	Environ []string `json:"environ,omitempty"`
	// Idle ends the session after this long unused (connect).
	Idle time.Duration `json:"idle,omitempty"`
	// Startup bounds the server's start (connect); 0: its definition's.
	Startup time.Duration `json:"startup,omitempty"`
	// Pin and NewTools are the pin policy of the command's definition
	// (mcp): the answer then holds the tools and their check for it.
	Pin      string `json:"pin,omitempty"`
	NewTools string `json:"newTools,omitempty"`
}

// A wireAnswer is the daemon's answer line.
type wireAnswer struct {
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
	// Code is the exit code of a failed connect (ExitServer, ExitConfig, …).
	Code int `json:"code,omitempty"`
	// Phase and Hints are a failed connect's phase and what to do.
	Phase string   `json:"phase,omitempty"`
	Hints []string `json:"hints,omitempty"`
	// Ended says the session ended because its definition changed or
	// its approval was revoked.
	Ended bool `json:"ended,omitempty"`
	// Protocol is the revision the session's server speaks (mcp,
	// connect): the client pins it, so it sees what a direct start sees.
	Protocol string `json:"protocol,omitempty"`
	// Partial says the server declares what a session does not pass on
	// (tasks): a command then starts the server itself.
	Partial bool `json:"partial,omitempty"`
	// Tools is the session's tools/list result, {"tools":[…]}, and
	// Surface their check against the pinned surface for the request's
	// policy (mcp, when it gave one; Surface nil with pin off).
	Tools json.RawMessage `json:"tools,omitempty"`
	// Discover is the session's answer to server/discover (mcp, in the
	// modern era, when the request gave a policy): the command need not
	// ask.
	Discover json.RawMessage `json:"discover,omitempty"`
	Surface  *wireSurface    `json:"surface,omitempty"`
	Sessions []sessionInfo   `json:"sessions,omitempty"`
}

// A sessionInfo is one session, as sessions --json shows it.
type sessionInfo struct {
	_ [0]func() // not comparable: no equality function in the binary

	Name string `json:"name"`
	// Pid is the daemon's; ServerPid a stdio server's (0: none, or HTTP).
	Pid       int    `json:"pid"`
	ServerPid int    `json:"serverPid"`
	Since     string `json:"since"` // RFC 3339
	// IdleSeconds is how long since the last use; IdleLimitSeconds the
	// bound after which it ends.
	IdleSeconds      int64  `json:"idleSeconds"`
	IdleLimitSeconds int64  `json:"idleLimitSeconds"`
	Calls            int64  `json:"calls"`
	State            string `json:"state"` // connected, restarting, failed
	Transport        string `json:"transport"`
	Protocol         string `json:"protocol"`
	Restarts         int    `json:"restarts"`
	Error            string `json:"error,omitempty"`
}

// A wireHello is the daemon's first line.
type wireHello struct {
	Daemon int `json:"daemon"`
}

// errWireLine says a line was too long or not one JSON object.
var errWireLine = errors.New("session socket: not a protocol line")

// readWireLine reads one line of at most maxWireLine bytes and decodes
// it into v, strictly (no unknown members).
func readWireLine(r *bufio.Reader, v any) error {
	var line []byte
	for {
		part, err := r.ReadSlice('\n')
		line = append(line, part...)
		if len(line) > maxWireLine {
			return fmt.Errorf("%w: longer than %d bytes", errWireLine, maxWireLine)
		}
		if err == nil {
			break
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == io.EOF && len(line) > 0 {
			return fmt.Errorf("%w: cut short", errWireLine)
		}
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %v", errWireLine, err)
	}
	if dec.More() {
		return fmt.Errorf("%w: more than one value", errWireLine)
	}
	return nil
}

// writeWireLine writes v as one line.
func writeWireLine(w io.Writer, v any) error {
	b, err := encodeWireLine(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// encodeWireLine is v as one line.
func encodeWireLine(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// A wireConn is a socket with the reader its protocol lines were read
// through: after the handshake it is the MCP stream's connection.
type wireConn struct {
	_ [0]func() // not comparable: no equality function in the binary

	net.Conn
	r       *bufio.Reader
	path    string // the socket's, for errors
	greeted bool   // the hello was read
}

func newWireConn(c net.Conn) *wireConn { return &wireConn{Conn: c, r: bufio.NewReader(c)} }

func (c *wireConn) Read(p []byte) (int, error) { return c.r.Read(p) }
