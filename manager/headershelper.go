package manager

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/internal/safe"
)

// Bounds of a definition's headersHelper.
const (
	helperTimeout   = 10 * time.Second
	helperMaxOutput = 64 << 10
)

// WithHeadersHelper returns c with the headers of s's headersHelper
// added to every request (c itself when s has none): the helper runs
// before the first request and again, once, after a 401, whose request
// is then sent again when its body can be.
func WithHeadersHelper(c *http.Client, s *config.Server) *http.Client {
	if s == nil || s.HeadersHelper == "" {
		return c
	}
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	out := *c
	out.Transport = &helperTransport{server: s.Name, command: s.HeadersHelper, dir: filepath.Dir(s.Source), next: next}
	return &out
}

// helperTransport adds the helper's headers.
type helperTransport struct {
	server, command, dir string
	next                 http.RoundTripper
	mu                   sync.Mutex
	headers              http.Header // nil until the helper ran
}

func (t *helperTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.mu.Lock()
	h := t.headers
	t.mu.Unlock()
	if h == nil {
		var err error
		if h, err = t.refresh(req.Context()); err != nil {
			return nil, err
		}
	}
	resp, err := t.next.RoundTrip(withHeaders(req, h))
	if err != nil || resp.StatusCode != http.StatusUnauthorized || (req.Body != nil && req.GetBody == nil) {
		return resp, err
	}
	// A 401: the token may have expired; ask the helper again, once.
	h2, herr := t.refresh(req.Context())
	if herr != nil {
		return resp, nil
	}
	retry := withHeaders(req, h2)
	if req.GetBody != nil {
		body, berr := req.GetBody()
		if berr != nil {
			return resp, nil
		}
		retry.Body = body
	}
	resp.Body.Close()
	return t.next.RoundTrip(retry)
}

// withHeaders is a copy of req with h set on it.
func withHeaders(req *http.Request, h http.Header) *http.Request {
	r := req.Clone(req.Context())
	for k, vs := range h {
		r.Header[k] = vs
	}
	return r
}

// refresh runs the helper and keeps its headers. The lock is not held
// while it runs.
func (t *helperTransport) refresh(ctx context.Context) (http.Header, error) {
	h, err := runHeadersHelper(ctx, t.command, t.dir)
	if err != nil {
		return nil, fmt.Errorf("server %q: headersHelper: %v", t.server, err)
	}
	t.mu.Lock()
	t.headers = h
	t.mu.Unlock()
	return h, nil
}

// runHeadersHelper runs command by the shell in dir and reads the headers
// it prints: one JSON object of strings, or "Name: value" lines. Its
// output is never quoted in an error (it holds secrets).
func runHeadersHelper(ctx context.Context, command, dir string) (http.Header, error) {
	ctx, cancel := context.WithTimeout(ctx, helperTimeout)
	defer cancel()
	var cmd *exec.Cmd
	if runtime.GOOS == "windows" {
		cmd = exec.CommandContext(ctx, "cmd", "/C", command)
	} else {
		cmd = exec.CommandContext(ctx, "/bin/sh", "-c", command)
	}
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		cmd.Dir = dir
	}
	var out, stderr limitedBuffer
	out.max, stderr.max = helperMaxOutput, 4<<10
	cmd.Stdout, cmd.Stderr = &out, &stderr
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		msg := safe.Sanitize(oneLine(strings.TrimSpace(stderr.String())))
		if ctx.Err() != nil {
			return nil, fmt.Errorf("no answer within %s", helperTimeout)
		}
		if msg != "" {
			return nil, fmt.Errorf("%v: %s", err, msg)
		}
		return nil, err
	}
	if out.over {
		return nil, fmt.Errorf("it printed more than %d bytes", helperMaxOutput)
	}
	return parseHelperHeaders(out.Bytes())
}

func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	return s
}

// parseHelperHeaders reads a helper's output.
func parseHelperHeaders(b []byte) (http.Header, error) {
	h := http.Header{}
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '{' {
		var m map[string]string
		if err := json.Unmarshal(t, &m); err != nil {
			return nil, errors.New("its output starts with { but is not a JSON object of strings")
		}
		for k, v := range m {
			if err := checkHeader(k, v); err != nil {
				return nil, err
			}
			h.Set(k, v)
		}
		return h, nil
	}
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok {
			return nil, fmt.Errorf("line %d of its output is not \"Name: value\"", i+1)
		}
		if err := checkHeader(k, v); err != nil {
			return nil, err
		}
		h.Add(k, v)
	}
	return h, nil
}

// checkHeader refuses a header name or value that is not one.
func checkHeader(k, v string) error {
	if k == "" || strings.ContainsAny(k, " \t\r\n:()<>@,;\\\"/[]?={}") {
		return fmt.Errorf("it printed a header name that is not one (%q)", safe.Sanitize(k))
	}
	if strings.ContainsAny(v, "\r\n\x00") {
		return fmt.Errorf("the value of its header %s holds a line break", k)
	}
	return nil
}

// limitedBuffer keeps at most max bytes and says when more came.
type limitedBuffer struct {
	bytes.Buffer
	max  int
	over bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); len(p) > room {
		b.over = true
		if room > 0 {
			b.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return b.Buffer.Write(p)
}
