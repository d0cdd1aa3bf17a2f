package manager

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/protocol"
)

// A masker masks the configured secrets in what the Manager hands an
// embedder that may reach a log or a model: Options.Logf, the states
// (and so the notices and instructions), the errors of its methods, the
// text blocks of tool results and progress messages, the words of the
// lists (tools, resources, templates, prompts), the text of a resource
// read and a prompt got, and the params of a sampling request.
// The secrets are those of every definition the Manager was given (the
// values ${VAR} references took, the env and header values of the user's
// own file: config.Server.SecretValues) and the OAuth tokens and client
// secrets of the token files its HTTP servers started with. A server that
// echoes the bearer token it was sent in an error gets it masked. It only
// learns secrets: a definition an Update removed may still have errors
// around.
type masker struct {
	mu      sync.Mutex
	secrets []string
	r       atomic.Pointer[safe.Redactor]
}

// learn adds secrets, and builds the redactor again when any is new.
func (mk *masker) learn(secrets ...string) {
	mk.mu.Lock()
	defer mk.mu.Unlock()
	n := len(mk.secrets)
	for _, s := range secrets {
		if s != "" && !slices.Contains(mk.secrets, s) {
			mk.secrets = append(mk.secrets, s)
		}
	}
	if len(mk.secrets) != n {
		mk.r.Store(safe.NewRedactor(mk.secrets...))
	}
}

// learnConfig adds the secrets of every definition of cfg.
func (mk *masker) learnConfig(cfg *config.Config) {
	if cfg == nil {
		return
	}
	for _, s := range cfg.Servers {
		mk.learn(s.Secrets()...)
	}
}

// learnTokens adds the secrets of the token file of the HTTP server def
// (Home.Secrets), when the Manager has a home.
func (m *Manager) learnTokens(def *config.Server) {
	if m.opts.Home == nil || def.Type == config.TypeStdio {
		return
	}
	m.masks.learn(m.opts.Home.Secrets(def.Name)...)
}

// text masks the secrets in s.
func (mk *masker) text(s string) string { return mk.r.Load().Redact(s) }

// state masks the secrets in what st says in words.
func (mk *masker) state(st ServerState) ServerState {
	if mk.r.Load().Empty() {
		return st
	}
	st.Err, st.RefreshErr, st.ReloadErr = mk.err(st.Err), mk.err(st.RefreshErr), mk.err(st.ReloadErr)
	st.Instructions = mk.text(st.Instructions)
	return st
}

// result masks the secrets in the text blocks of r (what a model reads;
// r.Raw stays as the server sent it).
func (mk *masker) result(r *Result) *Result {
	if r == nil || mk.r.Load().Empty() {
		return r
	}
	for i := range r.Blocks {
		r.Blocks[i].Text = mk.text(r.Blocks[i].Text)
	}
	return r
}

// json masks the secrets in the values of a JSON document (never its
// keys), such as a sampling request's params, which go to a model.
func (mk *masker) json(doc json.RawMessage) json.RawMessage {
	return mk.r.Load().RedactJSON(doc)
}

// tool masks the secrets in the words of t that a model reads: its
// title and description (a server may write there what it was sent).
func (mk *masker) tool(t Tool) Tool {
	t.Title, t.Description = mk.text(t.Title), mk.text(t.Description)
	return t
}

// resource masks the secrets in the words of a listed resource.
func (mk *masker) resource(r protocol.Resource) protocol.Resource {
	r.Title, r.Description = mk.text(r.Title), mk.text(r.Description)
	return r
}

// template masks the secrets in the words of a listed resource template.
func (mk *masker) template(t protocol.ResourceTemplate) protocol.ResourceTemplate {
	t.Title, t.Description = mk.text(t.Title), mk.text(t.Description)
	return t
}

// prompt masks the secrets in the words of a listed prompt.
func (mk *masker) prompt(p protocol.Prompt) protocol.Prompt {
	p.Title, p.Description = mk.text(p.Title), mk.text(p.Description)
	return p
}

// read masks the secrets in the text contents of a resource read (a
// blob stays as sent); r itself is left as it is.
func (mk *masker) read(r *protocol.ReadResourceResult) *protocol.ReadResourceResult {
	if r == nil || mk.r.Load().Empty() {
		return r
	}
	c := *r
	c.Contents = slices.Clone(r.Contents)
	for i := range c.Contents {
		c.Contents[i].Text = mk.text(c.Contents[i].Text)
	}
	return &c
}

// gotPrompt masks the secrets in a prompt's description and the text of
// its messages (what a model reads); r itself is left as it is.
func (mk *masker) gotPrompt(r *protocol.GetPromptResult) *protocol.GetPromptResult {
	if r == nil || mk.r.Load().Empty() {
		return r
	}
	c := *r
	c.Description = mk.text(r.Description)
	c.Messages = slices.Clone(r.Messages)
	for i := range c.Messages {
		m := &c.Messages[i].Content
		m.Text, m.Title, m.Description = mk.text(m.Text), mk.text(m.Title), mk.text(m.Description)
		if m.Resource != nil {
			rc := *m.Resource
			rc.Text = mk.text(rc.Text)
			m.Resource = &rc
		}
	}
	return &c
}

// err returns err with the secrets masked in its text. An error whose
// text holds none is returned as it is; a *ServerError or *protocol.Error
// is copied with its fields masked, so that errors.As still finds it;
// any other error holding a secret becomes one whose text is masked and
// whose wrapped errors are masked in turn (errors.Is still finds a
// sentinel: its text holds no secret).
func (mk *masker) err(err error) error {
	r := mk.r.Load()
	if err == nil || r.Empty() {
		return err
	}
	switch e := err.(type) {
	case *ServerError:
		c := *e
		c.Err, c.Stderr = mk.err(e.Err), r.Redact(e.Stderr)
		return &c
	case *protocol.Error:
		if r.Redact(e.Error()) == e.Error() && r.Redact(string(e.Data)) == string(e.Data) {
			return err
		}
		c := *e
		c.Message, c.Data = r.Redact(e.Message), r.RedactJSON(e.Data)
		return &c
	}
	msg := err.Error()
	if r.Redact(msg) == msg {
		return err
	}
	me := &maskedError{msg: r.Redact(msg)}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		if in := u.Unwrap(); in != nil {
			me.errs = []error{mk.err(in)}
		}
	case interface{ Unwrap() []error }:
		for _, in := range u.Unwrap() {
			me.errs = append(me.errs, mk.err(in))
		}
	}
	return me
}

// A maskedError is an error whose text held a configured secret: the
// text masked, and the errors it wrapped, masked too.
type maskedError struct {
	msg  string
	errs []error
}

func (e *maskedError) Error() string   { return e.msg }
func (e *maskedError) Unwrap() []error { return e.errs }

// logf gives Options.Logf the message of an event of server, its
// secrets masked, through the dispatcher: never under a lock, never on a
// goroutine Close waits for, so that a Logf may call any method of the
// Manager.
func (m *Manager) logf(server, format string, args ...any) {
	if f := m.opts.Logf; f != nil {
		msg := m.masks.text(fmt.Sprintf(format, args...))
		m.events.post(server, "", func() { f("%s", msg) })
	}
}
