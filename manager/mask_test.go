package manager

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/oauth"
	"github.com/mcpwire/mcpwire/protocol"
)

// echoAuthServer is a legacy streamable HTTP server (JSON answers) that
// puts the Authorization header it was sent into its errors: under
// /init it fails initialize with it, elsewhere tools/call fails with it
// (in the message and in the data).
func echoAuthServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		if json.Unmarshal(body, &req) != nil || req.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		auth := r.Header.Get("Authorization")
		fail := func(msg string) string {
			m, _ := json.Marshal(msg + auth)
			a, _ := json.Marshal(auth)
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32001,"message":%s,"data":{"got":%s}}}`, req.ID, m, a)
		}
		var out string
		switch {
		case req.Method == "initialize" && strings.HasSuffix(r.URL.Path, "/init"):
			out = fail("this credential is not welcome here: ")
		case req.Method == "initialize":
			out = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":%q,"capabilities":{"tools":{},"resources":{},"prompts":{}},"serverInfo":{"name":"echo","version":"1"}}}`, req.ID, req.Params.ProtocolVersion)
		case echoedLists[req.Method] != "":
			out = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, strings.ReplaceAll(echoedLists[req.Method], "AUTH", jsonInner(auth)))
		case req.Method == "tools/call" && strings.Contains(string(body), `"name":"says"`):
			text, _ := json.Marshal("you are " + auth)
			out = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"isError":true,"content":[{"type":"text","text":%s}]}}`, req.ID, text)
		default:
			out = fail("refused, you sent ")
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, out)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// echoedLists are echoAuthServer's answers (AUTH: the Authorization
// header it was sent) to the requests whose results a model reads: the
// lists' words, a resource's text, a prompt's description and messages.
var echoedLists = map[string]string{
	"tools/list":               `{"tools":[{"name":"t","title":"t for AUTH","description":"sent AUTH","inputSchema":{"type":"object"}},{"name":"says","inputSchema":{"type":"object"}}]}`,
	"resources/list":           `{"resources":[{"uri":"echo://r","name":"r","title":"r of AUTH","description":"sent AUTH"}]}`,
	"resources/templates/list": `{"resourceTemplates":[{"uriTemplate":"echo://{x}","name":"x","description":"sent AUTH"}]}`,
	"resources/read":           `{"contents":[{"uri":"echo://r","mimeType":"text/plain","text":"you sent AUTH"}]}`,
	"prompts/list":             `{"prompts":[{"name":"p","description":"sent AUTH"}]}`,
	"prompts/get": `{"description":"sent AUTH","messages":[{"role":"user","content":{"type":"text","text":"you sent AUTH"}},` +
		`{"role":"user","content":{"type":"resource","resource":{"uri":"echo://r","text":"embedded AUTH"}}}]}`,
}

// jsonInner is s as the inside of a JSON string.
func jsonInner(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// TestSecretsMaskedForTheEmbedder: a server that echoes the bearer token
// it was sent (from ${VAR}, or from the home's token file) in its errors
// reaches the embedder only masked: in Logf, the state, the notices, the
// errors of Call (which errors.As still takes apart) and a tool's answer.
func TestSecretsMaskedForTheEmbedder(t *testing.T) {
	const varToken = "var-token-5f1d9c2e7a"
	const fileToken = "file-token-8b3e6a0c4d"
	srv := echoAuthServer(t)
	home := t.TempDir()
	cfgText := fmt.Sprintf(`{"mcpServers": {
		"init": {"url": %[1]q, "headers": {"Authorization": "Bearer ${MY_TOKEN}"}, "protocolVersion": "2025-11-25"},
		"call": {"url": %[2]q, "headers": {"Authorization": "Bearer ${MY_TOKEN}"}, "protocolVersion": "2025-11-25"},
		"stored": {"url": %[2]q, "protocolVersion": "2025-11-25"}
	}}`, srv.URL+"/init", srv.URL+"/mcp")
	if err := os.WriteFile(filepath.Join(home, config.FileName), []byte(cfgText), 0o600); err != nil {
		t.Fatal(err)
	}
	resource, err := oauth.CanonicalResource(srv.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	if err := oauth.NewStore(home).Save("stored", &oauth.Record{Resource: resource,
		Token: &oauth.Token{AccessToken: fileToken, TokenType: "Bearer", Expiry: time.Now().Add(time.Hour)}}); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.LoadOptions{Home: home, Dir: t.TempDir(),
		Getenv: func(k string) string {
			if k == "MY_TOKEN" {
				return varToken
			}
			return ""
		}})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []string // everything the Manager handed out, as text
	keep := func(s string) {
		mu.Lock()
		seen = append(seen, s)
		mu.Unlock()
	}
	h, err := OpenHome(home)
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(Options{Config: cfg, Home: h, TrustAll: true, StartupTimeout: 20 * time.Second,
		Logf:     func(format string, args ...any) { keep(fmt.Sprintf(format, args...)) },
		OnNotice: func(n Notice) { keep(fmt.Sprintf("%v %v", n.State.Err, n.State)) },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	tools := mustTools(t, m)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, server := range []string{"call", "stored"} {
		_, err := m.Call(ctx, toolNamed(t, tools, server, "t"), nil)
		if err == nil {
			t.Fatalf("%s: the call succeeded", server)
		}
		keep(err.Error())
		var se *ServerError
		var je *protocol.Error
		if !errors.As(err, &se) || !errors.As(err, &je) || je.Code != -32001 {
			t.Errorf("%s: the error %v (%T) lost its types", server, err, err)
		} else {
			keep(je.Message + string(je.Data) + se.Stderr)
			if !strings.Contains(je.Message, "refused, you sent ") || !strings.Contains(je.Message, "***") {
				t.Errorf("%s: the message says %q", server, je.Message)
			}
		}
	}
	res, err := m.Call(ctx, toolNamed(t, tools, "stored", "says"), nil)
	if err != nil || !res.IsError || len(res.Blocks) != 1 || res.Blocks[0].Text != "you are Bearer ***" {
		t.Errorf("the tool's answer: %+v %v", res, err)
	} else {
		keep(res.Blocks[0].Text)
	}
	for _, st := range m.States() {
		keep(fmt.Sprintf("%v %v %v %+v", st.Err, st.RefreshErr, st.ReloadErr, st))
		if st.Name == "init" && (st.Err == nil || !strings.Contains(st.Err.Error(), "not welcome here: ***")) {
			t.Errorf("init's state: %v", st.Err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) < 5 {
		t.Fatalf("only %d texts seen: %q", len(seen), seen)
	}
	for _, s := range seen {
		if strings.Contains(s, varToken) || strings.Contains(s, fileToken) {
			t.Errorf("a secret reached the embedder: %q", s)
		}
	}
}

// TestSecretsMaskedInWhatAModelReads: a server that echoes the bearer
// token it was sent (from ${VAR}, or from the home's token file) in the
// words of its tools, resources and prompts, in a resource's text and in
// a prompt's messages reaches the embedder only masked: through Tools,
// the pages, Resources, ResourceTemplates, Prompts, ReadResource,
// GetPrompt and the Manager's own read_mcp_resource and
// list_mcp_resources tools, which hand them to a model (issue 20 item 12).
func TestSecretsMaskedInWhatAModelReads(t *testing.T) {
	const varToken = "var-token-71c0e4b9a2"
	const fileToken = "file-token-3d8f2a6c1e"
	srv := echoAuthServer(t)
	home := t.TempDir()
	cfgText := fmt.Sprintf(`{"mcpServers": {
		"call": {"url": %[1]q, "headers": {"Authorization": "Bearer ${MY_TOKEN}"}, "protocolVersion": "2025-11-25"},
		"stored": {"url": %[1]q, "protocolVersion": "2025-11-25"}
	}}`, srv.URL+"/mcp")
	if err := os.WriteFile(filepath.Join(home, config.FileName), []byte(cfgText), 0o600); err != nil {
		t.Fatal(err)
	}
	resource, err := oauth.CanonicalResource(srv.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	if err := oauth.NewStore(home).Save("stored", &oauth.Record{Resource: resource,
		Token: &oauth.Token{AccessToken: fileToken, TokenType: "Bearer", Expiry: time.Now().Add(time.Hour)}}); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.LoadOptions{Home: home, Dir: t.TempDir(),
		Getenv: func(k string) string {
			if k == "MY_TOKEN" {
				return varToken
			}
			return ""
		}})
	if err != nil {
		t.Fatal(err)
	}
	h, err := OpenHome(home)
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(Options{Config: cfg, Home: h, TrustAll: true, ResourceTools: true, StartupTimeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	tools := mustTools(t, m)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var seen []string // everything the Manager handed out, as JSON
	keep := func(what string, v any, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		b, _ := json.Marshal(v)
		seen = append(seen, what+": "+string(b))
	}
	keep("Tools", tools, nil)
	rs, err := m.Resources(ctx)
	keep("Resources", rs, err)
	ts, err := m.ResourceTemplates(ctx)
	keep("ResourceTemplates", ts, err)
	ps, err := m.Prompts(ctx)
	keep("Prompts", ps, err)
	for _, server := range []string{"call", "stored"} {
		tp, err := m.ToolsPage(ctx, server, nil)
		keep("ToolsPage", tp, err)
		rp, err := m.ResourcesPage(ctx, server, nil)
		keep("ResourcesPage", rp, err)
		tpl, err := m.ResourceTemplatesPage(ctx, server, nil)
		keep("ResourceTemplatesPage", tpl, err)
		pp, err := m.PromptsPage(ctx, server, nil)
		keep("PromptsPage", pp, err)
		r, err := m.ReadResource(ctx, server, "echo://r")
		keep("ReadResource", r, err)
		if len(r.Contents) != 1 || !strings.HasSuffix(r.Contents[0].Text, "***") {
			t.Errorf("%s: ReadResource gave %+v", server, r.Contents)
		}
		g, err := m.GetPrompt(ctx, server, "p", nil)
		keep("GetPrompt", g, err)
		if len(g.Messages) != 2 || !strings.HasSuffix(g.Messages[0].Content.Text, "***") {
			t.Errorf("%s: GetPrompt gave %+v", server, g.Messages)
		}
		res, err := m.Call(ctx, ReadResourceTool, map[string]string{"server": server, "uri": "echo://r"})
		keep(ReadResourceTool, res, err)
		if res.IsError || len(res.Blocks) != 1 || !strings.HasSuffix(res.Blocks[0].Text, "***") {
			t.Errorf("%s: %s gave %+v", server, ReadResourceTool, res)
		}
	}
	res, err := m.Call(ctx, ListResourcesTool, nil)
	keep(ListResourcesTool, res, err)
	for _, s := range seen {
		if strings.Contains(s, varToken) || strings.Contains(s, fileToken) {
			t.Errorf("a secret reached the embedder: %s", s)
		}
	}
	if !strings.Contains(strings.Join(seen, "\n"), `sent Bearer ***`) {
		t.Errorf("the server's words are not there, masked:\n%s", strings.Join(seen, "\n"))
	}
}

// TestSecretsMaskedInSampling: a server's sampling request goes to the
// agent's model; a configured secret in it (here an env value of the
// user's own file that the demo server puts in the request's message)
// reaches Options.Sample only masked, the request's keys as sent.
func TestSecretsMaskedInSampling(t *testing.T) {
	const secret = "user-env-secret-4c9a1f7e"
	var mu sync.Mutex
	var got []string
	m, _ := newManager(t, Options{
		Sample: func(ctx context.Context, server string, params json.RawMessage) (any, error) {
			mu.Lock()
			got = append(got, string(params))
			mu.Unlock()
			return map[string]any{"role": "assistant", "model": "m", "content": map[string]any{"type": "text", "text": "hello"}}, nil
		},
	}, demoServer{name: "demo", extra: map[string]any{"env": map[string]string{demoEnv: "1", "MY_KEY": secret}}})
	tools := mustTools(t, m)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := m.Call(ctx, toolNamed(t, tools, "demo", "sample"), map[string]string{"prompt": "my key is " + secret})
	if err != nil || res.IsError {
		t.Fatalf("sample: %+v %v", res, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 {
		t.Fatalf("Sample was called %d times", len(got))
	}
	if strings.Contains(got[0], secret) || !strings.Contains(got[0], `"my key is ***"`) || !strings.Contains(got[0], `"messages"`) {
		t.Errorf("the sampling request as the agent got it: %s", got[0])
	}
}
