package protocol_test

// The bounds of multi round-trip requests, against a server process of
// our own (this test binary, re-executed when MCPWIRE_PROTOCOL_TEST_MRTR
// is set) that speaks the 2026-07-28 era over stdio and asks for as much
// input as a hostile server would.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/transport"
)

const mrtrServerEnv = "MCPWIRE_PROTOCOL_TEST_MRTR"

// mrtrServerMain serves the tools of the hostile server: "flood" asks for
// 20,000 samplings in one answer, "rounds" asks for arguments.per
// samplings in every answer, forever, "state" gives a requestState of
// arguments.size bytes and checks that it comes back, "stats" says how
// many tools/call requests came.
func mrtrServerMain(in io.Reader, out io.Writer) int {
	if os.Getenv(mrtrServerEnv) == "http" {
		return mrtrHTTPMain(out)
	}
	r := bufio.NewReaderSize(in, 1<<20)
	w := bufio.NewWriter(out)
	calls := 0
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return 0
		}
		if answer := mrtrAnswer(line, &calls); answer != nil {
			w.Write(answer)
			w.WriteByte('\n')
			w.Flush()
		}
	}
}

// mrtrHTTPMain serves the same over streamable HTTP on loopback (JSON
// answers), after printing its URL on out.
func mrtrHTTPMain(out io.Writer) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 1
	}
	fmt.Fprintf(out, "http://%s/mcp\n", ln.Addr())
	var mu sync.Mutex
	calls := 0
	http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		answer := mrtrAnswer(body, &calls)
		mu.Unlock()
		if answer == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(answer)))
		w.Write(answer)
	}))
	return 0
}

// mrtrAnswer answers one request of the hostile server (nil for a
// notification).
func mrtrAnswer(line []byte, calls *int) []byte {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name      string `json:"name"`
			Arguments struct {
				Per    int `json:"per"`
				Size   int `json:"size"`
				Rounds int `json:"rounds"`
			} `json:"arguments"`
			InputResponses map[string]json.RawMessage `json:"inputResponses"`
			RequestState   *string                    `json:"requestState"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &req) != nil || req.ID == nil {
		return nil
	}
	var result any
	p := req.Params
	switch req.Method {
	case "server/discover":
		result = map[string]any{"resultType": "complete", "supportedVersions": []string{protocol.ModernVersion},
			"capabilities": map[string]any{"tools": map[string]any{}},
			"_meta":        map[string]any{"io.modelcontextprotocol/serverInfo": map[string]string{"name": "mrtr-hostile", "version": "1"}}}
	case "tools/call":
		*calls++
		if p.Name == "echo-state" {
			result = echoStateTool(p.Arguments.Size, p.Arguments.Rounds, p.RequestState)
			break
		}
		result = mrtrTool(p.Name, p.Arguments.Per, p.Arguments.Size, p.InputResponses, p.RequestState, *calls)
	default:
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}`, req.ID)
	}
	b, _ := json.Marshal(result)
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, b)
}

// mrtrTool answers one tools/call of the hostile server.
func mrtrTool(name string, per, size int, responses map[string]json.RawMessage, state *string, calls int) any {
	done := func(text string) any {
		return map[string]any{"resultType": "complete", "content": []any{map[string]string{"type": "text", "text": text}}}
	}
	sampling := func(prefix string, n int) map[string]any {
		reqs := make(map[string]any, n)
		for i := range n {
			reqs[fmt.Sprintf("%s%d", prefix, i)] = map[string]any{"method": "sampling/createMessage",
				"params": map[string]any{"messages": []any{}, "maxTokens": 1}}
		}
		return reqs
	}
	switch name {
	case "flood":
		if responses != nil {
			return done(fmt.Sprintf("answered %d", len(responses)))
		}
		return map[string]any{"resultType": "input_required", "inputRequests": sampling("k", 20000), "requestState": "flood"}
	case "rounds":
		round := 0
		if state != nil {
			round, _ = strconv.Atoi(strings.TrimPrefix(*state, "r"))
		}
		return map[string]any{"resultType": "input_required", "inputRequests": sampling(fmt.Sprintf("r%d-", round), per),
			"requestState": fmt.Sprintf("r%d", round+1)}
	case "state":
		if state == nil {
			return map[string]any{"resultType": "input_required", "requestState": strings.Repeat("s", size)}
		}
		return done(fmt.Sprintf("echoed %d", len(*state)))
	case "stats":
		return done(strconv.Itoa(calls))
	}
	return done("unknown tool")
}

// echoStateTool gives a requestState of size bytes, rounds times, each
// carrying its round in its first bytes, and checks each comes back.
func echoStateTool(size, rounds int, state *string) any {
	round := 0
	if state != nil {
		if len(*state) != size || strings.Count((*state)[8:], "s") != size-8 {
			return map[string]any{"resultType": "complete", "isError": true,
				"content": []any{map[string]string{"type": "text", "text": "the state came back changed"}}}
		}
		round, _ = strconv.Atoi((*state)[:8])
	}
	if round == rounds {
		return map[string]any{"resultType": "complete", "content": []any{map[string]string{"type": "text", "text": "echoed"}}}
	}
	next := fmt.Sprintf("%08d", round+1) + strings.Repeat("s", size-8)
	return map[string]any{"resultType": "input_required", "requestState": next}
}

// mrtrSession starts the hostile server and connects a session that
// answers samplings, telling each on sampled.
func mrtrSession(t testing.TB, opts protocol.Options, sampled func()) *protocol.Session {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	st := &transport.Stdio{Command: exe, Args: []string{"-test.run=^$"},
		Env: transport.ChildEnv(os.Environ(), map[string]string{mrtrServerEnv: "1"})}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, err := st.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	opts.ProtocolVersion = protocol.ModernVersion
	opts.Sample = func(ctx context.Context, p json.RawMessage) (any, error) {
		sampled()
		return map[string]any{"role": "assistant", "model": "m", "content": map[string]string{"type": "text", "text": "ok"}}, nil
	}
	s, err := protocol.Connect(ctx, conn, &opts)
	if err != nil {
		conn.Close()
		t.Fatalf("connect: %v\nstderr: %s", err, conn.StderrTail())
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// mrtrHTTPSession starts the hostile server over HTTP, in a process of
// its own, and connects a session to it.
func mrtrHTTPSession(t testing.TB, opts protocol.Options) *protocol.Session {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), mrtrServerEnv+"=http")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	url, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	hc, err := (&transport.HTTP{URL: strings.TrimSpace(url), MaxMessageBytes: 512 << 20}).Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	opts.ProtocolVersion = protocol.ModernVersion
	s, err := protocol.Connect(ctx, hc, &opts)
	if err != nil {
		hc.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// refusals counts what OnRefused was told.
type refusals struct {
	mu sync.Mutex
	n  map[string]int // by "method why"
}

func (r *refusals) add(method string, why protocol.Refusal, n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n == nil {
		r.n = map[string]int{}
	}
	r.n[method+" "+string(why)] += n
}

func (r *refusals) get(key string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n[key]
}

// toolCalls asks the hostile server how many tools/call requests it got.
func toolCalls(t testing.TB, s *protocol.Session) string {
	t.Helper()
	res, err := s.CallTool(context.Background(), "stats", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Content[0].Text
}

// A server that asks for 20,000 samplings in one answer gets none: the
// call fails with an *InputLimitError, the sampling callback never runs,
// the request is not sent again, and OnRefused counts the 20,000.
func TestMRTRFloodOneRound(t *testing.T) {
	var sampled, refused refusals
	s := mrtrSession(t, protocol.Options{OnRefused: refused.add}, func() { sampled.add("sample", "", 1) })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := s.CallTool(ctx, "flood", nil, nil)
	var le *protocol.InputLimitError
	if !errors.As(err, &le) || le.Why != protocol.RefusedRound || le.Got != 20000 || le.Max != protocol.DefaultMaxInputRequests {
		t.Fatalf("got %v", err)
	}
	if !strings.Contains(err.Error(), "20000 input requests in one answer, more than the 64") {
		t.Errorf("the error says %q", err)
	}
	if n := sampled.get("sample "); n != 0 {
		t.Errorf("%d samplings ran", n)
	}
	if n := refused.get("sampling/createMessage " + string(protocol.RefusedRound)); n != 20000 {
		t.Errorf("OnRefused counted %d", n)
	}
	if got := toolCalls(t, s); got != "2" { // flood once, stats
		t.Errorf("the server got %s tools/call requests, want 2 (no retry)", got)
	}
}

// A server that asks for a few samplings in every round is answered at
// 32 a second, until the total over the rounds would pass MaxInputTotal.
func TestMRTRRoundsTotalAndRate(t *testing.T) {
	var refused refusals
	var mu sync.Mutex
	var at []time.Time
	s := mrtrSession(t, protocol.Options{OnRefused: refused.add, MaxInputTotal: 50, MaxInputRounds: 20}, func() {
		mu.Lock()
		at = append(at, time.Now())
		mu.Unlock()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	began := time.Now()
	_, err := s.CallTool(ctx, "rounds", map[string]int{"per": 20}, nil)
	var le *protocol.InputLimitError
	if !errors.As(err, &le) || le.Why != protocol.RefusedTotal || le.Got != 60 || le.Max != 50 {
		t.Fatalf("got %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(at) != 40 {
		t.Fatalf("%d samplings ran, want 40 (two rounds)", len(at))
	}
	// The rate is a bound: the 33rd answer waits for a second after the
	// first could go, which was no sooner than the call began (a slow
	// machine only makes it later).
	if d := at[32].Sub(began); d < time.Second {
		t.Errorf("the 33rd answer came %v after the call began: more than 32 a second", d)
	}
	if n := refused.get("sampling/createMessage " + string(protocol.RefusedTotal)); n != 20 {
		t.Errorf("OnRefused counted %d", n)
	}
	if got := toolCalls(t, s); got != "4" { // three rounds, stats
		t.Errorf("the server got %s tools/call requests, want 4", got)
	}
}

// A requestState longer than MaxRequestState is not echoed; one within
// it is, unchanged.
func TestMRTRRequestStateBound(t *testing.T) {
	var refused refusals
	s := mrtrSession(t, protocol.Options{OnRefused: refused.add, MaxRequestState: 1 << 20}, func() {})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := s.CallTool(ctx, "state", map[string]int{"size": 1 << 20}, nil)
	if err != nil || res.Content[0].Text != fmt.Sprintf("echoed %d", 1<<20) {
		t.Fatalf("%v %v", res, err)
	}
	_, err = s.CallTool(ctx, "state", map[string]int{"size": 1<<20 + 1}, nil)
	var le *protocol.InputLimitError
	if !errors.As(err, &le) || le.Why != protocol.RefusedState || le.Got != 1<<20+1 {
		t.Fatalf("got %v", err)
	}
	if got := toolCalls(t, s); got != "4" { // two rounds, one, stats
		t.Errorf("the server got %s tools/call requests, want 4", got)
	}
}

// A big requestState is echoed unchanged, round after round (over
// stdio it goes out from the answer it came in).
func TestMRTRBigRequestStateEcho(t *testing.T) {
	s := mrtrSession(t, protocol.Options{MaxRequestState: 8 << 20}, func() {})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := s.CallTool(ctx, "echo-state", map[string]int{"size": 3 << 20, "rounds": 3}, nil)
	if err != nil || res.IsError || res.Content[0].Text != "echoed" {
		t.Fatalf("%+v %v", res, err)
	}
}
