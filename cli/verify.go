package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/manager"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/protocol/surface"
)

// verifyReport is `mcpwire verify --json`.
type verifyReport struct {
	docHeader
	Recording string `json:"recording"` // the file, as given
	// Server is the recorded server's name; Target the live side, as given.
	Server   string         `json:"server"`
	Target   string         `json:"target"`
	Protocol string         `json:"protocol"` // the revision spoken with the target
	Ignore   []string       `json:"ignore"`   // the --ignore paths
	Same     int            `json:"same"`
	Differ   int            `json:"different"`
	Skipped  int            `json:"skipped"`
	Requests []verifyResult `json:"requests"` // in the order of the recording
}

// A verifyResult is one recorded request sent again.
type verifyResult struct {
	// Line is the request's line in the recording (1-based).
	Line   int    `json:"line"`
	Method string `json:"method"`
	Name   string `json:"name"`   // the tool, prompt or URI; "" for others
	Status string `json:"status"` // "same", "different" or "skipped"
	Note   string `json:"note"`   // why skipped; "" otherwise
	// Changes are a list's changes, by the surface comparison of diff.
	Changes []change `json:"changes"`
	// Values are the differences of an answer's values (at most
	// maxValueDiffs; ValueCount counts them all).
	Values     []valueDiff `json:"values"`
	ValueCount int         `json:"valueCount"`
}

// maxValueDiffs bounds the differences kept for one answer.
const maxValueDiffs = 20

// A recordedRequest is a request of a recording and its answer.
type recordedRequest struct {
	line   int
	method string
	params json.RawMessage
	result json.RawMessage
	err    *protocol.Error
	// inputs are the input requests of a modern input_required answer,
	// by key; next is the retry that answered them (a new request with
	// inputResponses), retry says this request is one.
	inputs map[string]inputRequest
	next   *recordedRequest
	retry  bool
	// taskID is the task a CreateTaskResult answered the request with;
	// taskDone says the recording holds the task's end, whose result or
	// error (none: cancelled) stands for the request's answer. ofTask
	// marks the session's own requests about a task (tasks/get, update,
	// cancel), which verify does not send: the session follows the task.
	taskID     string
	taskDone   bool
	taskResult json.RawMessage
	taskErr    *protocol.Error
	ofTask     bool
}

// An inputRequest is a server's request inside a modern input_required
// answer, or a legacy server request.
type inputRequest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// final is the answer of r's last round: that of the last retry of a
// multi round-trip request, else r's own.
func (r *recordedRequest) final() *recordedRequest {
	last := r
	for n := 0; last.next != nil && n < 64; n++ {
		last = last.next
	}
	return last
}

// A verifyRecording is the part of a recording verify replays: one
// server's requests and its identity.
type verifyRecording struct {
	server   string
	protocol string // the revision recorded ("" when not said)
	init     *protocol.InitializeResult
	requests []*recordedRequest
	// answers are the recorded client's answers to the server's requests.
	answers recordedAnswers
	// asked are the legacy server requests not answered yet, by id.
	asked map[string]inputRequest
	// tasks are the requests answered with a task, by task id;
	// taskInputs the input requests of their input_required states, by
	// key, until a tasks/update answers them.
	tasks      map[string]*recordedRequest
	taskInputs map[string]inputRequest
}

// readVerifyRecording reads the requests mcpwire sent to server (any
// when "" and the recording holds one server) and their answers.
func readVerifyRecording(name string, data []byte, server string) (*verifyRecording, error) {
	type numbered struct {
		n int
		l manager.RecordLine
	}
	var lines []numbered
	var servers []string
	for i, raw := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		var l manager.RecordLine
		if err := json.Unmarshal(raw, &l); err != nil {
			return nil, fmt.Errorf("%s:%d: not a line of a recording (mcpwire … --record FILE): %v", name, i+1, err)
		}
		if l.Server == "" {
			continue
		}
		if !slices.Contains(servers, l.Server) {
			servers = append(servers, l.Server)
		}
		lines = append(lines, numbered{i + 1, l})
	}
	switch {
	case len(servers) == 0:
		return nil, fmt.Errorf("%s holds no session: record one with mcpwire … --record FILE", name)
	case server == "" && len(servers) > 1:
		return nil, fmt.Errorf("%s holds the sessions of %s: choose one with --server NAME", name, strings.Join(servers, ", "))
	case server == "":
		server = servers[0]
	case !slices.Contains(servers, server):
		return nil, fmt.Errorf("%s holds no session of %s; it holds %s", name, server, strings.Join(servers, ", "))
	}
	rec := &verifyRecording{server: server, asked: map[string]inputRequest{}, tasks: map[string]*recordedRequest{}, taskInputs: map[string]inputRequest{}}
	pending := map[string]*recordedRequest{}
	for _, nl := range lines {
		if nl.l.Server != server {
			continue
		}
		if nl.l.Session != nil && rec.protocol == "" {
			if p := nl.l.Session.Protocol; p != "" && !protocol.IsSupported(p) {
				return nil, fmt.Errorf("%s:%d: the recorded revision %q is none mcpwire speaks (%s): record the session again",
					name, nl.n, p, strings.Join(protocol.SupportedVersions(), ", "))
			}
			rec.protocol = nl.l.Session.Protocol
		}
		rec.message(nl.n, nl.l.Dir, nl.l.Msg, pending)
	}
	if rec.init == nil {
		return nil, fmt.Errorf("%s holds no answered initialize or server/discover of %s: record a whole session", name, server)
	}
	if rec.init.ProtocolVersion == "" {
		rec.init.ProtocolVersion = rec.protocol
	}
	return rec, nil
}

// message takes one recorded message: a request mcpwire sent, or the
// server's answer to one.
func (rec *verifyRecording) message(line int, dir string, raw json.RawMessage, pending map[string]*recordedRequest) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
		Error  *protocol.Error `json:"error"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return // not a message
	}
	if len(m.ID) == 0 || string(m.ID) == "null" {
		if dir == "recv" && m.Method == "notifications/tasks" {
			rec.taskState(m.Params)
		}
		return // a notification
	}
	switch {
	case dir == "send" && m.Method != "":
		r := &recordedRequest{line: line, method: m.Method, params: m.Params}
		r.ofTask = m.Method == "tasks/get" || m.Method == "tasks/update" || m.Method == "tasks/cancel"
		if m.Method == "tasks/update" {
			rec.taskAnswers(m.Params)
		}
		pending[string(m.ID)] = r
		rec.answers.declare(m.Method, m.Params)
		rec.continues(r)
		rec.requests = append(rec.requests, r)
	case dir == "recv" && m.Method == "":
		r := pending[string(m.ID)]
		if r == nil {
			return
		}
		delete(pending, string(m.ID))
		r.result, r.err = m.Result, m.Error
		if r.result != nil && rec.init == nil && (r.method == "initialize" || r.method == "server/discover") {
			rec.init = recordedInit(r.method, r.result)
		}
		var ir struct {
			InputRequests map[string]inputRequest `json:"inputRequests"`
		}
		if json.Unmarshal(r.result, &ir) == nil && len(ir.InputRequests) > 0 {
			r.inputs = ir.InputRequests
		}
		var task struct {
			ResultType string `json:"resultType"`
			TaskID     string `json:"taskId"`
		}
		switch {
		case r.method == "tasks/get":
			rec.taskState(r.result)
		case json.Unmarshal(r.result, &task) == nil && task.ResultType == "task" && task.TaskID != "" && len(rec.tasks) < maxAsked:
			r.taskID = task.TaskID
			rec.tasks[task.TaskID] = r
		}
	case dir == "recv" && len(rec.asked) < maxAsked:
		rec.asked[string(m.ID)] = inputRequest{Method: m.Method, Params: m.Params}
	case dir == "send" && m.Method == "":
		if q, ok := rec.asked[string(m.ID)]; ok {
			delete(rec.asked, string(m.ID))
			rec.answers.add(q.Method, q.Params, m.Result, m.Error)
		}
	}
}

// taskState takes a task's state (a tasks/get answer, a notifications/tasks):
// a terminal one is the end of the request that made the task.
func (rec *verifyRecording) taskState(raw json.RawMessage) {
	var t struct {
		TaskID        string                  `json:"taskId"`
		Status        string                  `json:"status"`
		Result        json.RawMessage         `json:"result"`
		Error         *protocol.Error         `json:"error"`
		InputRequests map[string]inputRequest `json:"inputRequests"`
	}
	if json.Unmarshal(raw, &t) != nil {
		return
	}
	r := rec.tasks[t.TaskID]
	if r == nil || r.taskDone {
		return
	}
	switch t.Status {
	case "input_required":
		for k, q := range t.InputRequests {
			if len(rec.taskInputs) < maxAsked {
				rec.taskInputs[k] = q
			}
		}
	case "completed":
		r.taskDone, r.taskResult = true, t.Result
	case "failed":
		r.taskDone, r.taskErr = true, t.Error
		if r.taskErr == nil {
			r.taskErr = &protocol.Error{Code: -32603, Message: "the task failed without an error"}
		}
	case "cancelled":
		r.taskDone = true
	}
}

// taskAnswers keeps the answers a tasks/update gave to a task's input
// requests.
func (rec *verifyRecording) taskAnswers(params json.RawMessage) {
	var p struct {
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	for k, resp := range p.InputResponses {
		if q, ok := rec.taskInputs[k]; ok {
			delete(rec.taskInputs, k)
			rec.answers.add(q.Method, q.Params, resp, nil)
		}
	}
}

// maxAsked bounds the legacy server requests a recording leaves
// unanswered that verify keeps track of.
const maxAsked = 1024

// continues links r to the request it is a retry of: a modern request
// with inputResponses answers the input requests of the last
// input_required answer of the same method not answered yet, whose
// answers are kept.
func (rec *verifyRecording) continues(r *recordedRequest) {
	var p struct {
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
		RequestState   *string                    `json:"requestState"`
	}
	if json.Unmarshal(r.params, &p) != nil || p.InputResponses == nil && p.RequestState == nil {
		return
	}
	for i := len(rec.requests) - 1; i >= 0; i-- {
		prev := rec.requests[i]
		if prev.method != r.method || prev.inputs == nil || prev.next != nil {
			continue
		}
		prev.next, r.retry = r, true
		for key, resp := range p.InputResponses {
			if q, ok := prev.inputs[key]; ok {
				rec.answers.add(q.Method, q.Params, resp, nil)
			}
		}
		return
	}
}

// recordedInit is the server's identity from its initialize or
// server/discover answer.
func recordedInit(method string, result json.RawMessage) *protocol.InitializeResult {
	var init protocol.InitializeResult
	_ = json.Unmarshal(result, &init)
	if method == "server/discover" {
		var d struct {
			Meta struct {
				ServerInfo protocol.Implementation `json:"io.modelcontextprotocol/serverInfo"`
			} `json:"_meta"`
		}
		_ = json.Unmarshal(result, &d)
		init.ServerInfo = d.Meta.ServerInfo
		init.ProtocolVersion = ""
	}
	init.Meta = nil
	return &init
}

func runVerify(ctx context.Context, inv *invocation, args []string) error {
	fs := newFlagSet("verify")
	var tf targetFlags
	tf.register(fs)
	var ignore listFlag
	var server, acceptFile string
	fs.StringVar(&acceptFile, "accept", "", "list changes that are known and differ nothing: `FILE` of lines KIND NAME, as diff --accept (tool echo, server mcpwire-demo, …)")
	fs.Var(&ignore, "ignore", "leave the value at `PATH` out of the comparison: result.content[0].text, _meta, error.message, [*] for any item (repeatable)")
	fs.StringVar(&server, "server", "", "verify the session of the server `NAME` of the recording (default: its first)")
	pos, tail, hasTail, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	inv.json = tf.json
	if len(pos) == 0 {
		return usageErr("verify takes FILE (a recording of --record) and a TARGET")
	}
	paths, err := parseIgnorePaths(ignore)
	if err != nil {
		return err
	}
	path := pos[0]
	if !filepath.IsAbs(path) {
		path = filepath.Join(inv.env.Dir, path)
	}
	data, err := safe.ReadFile(path, safe.KindRecording)
	if err != nil {
		return usageErr("reading %s: %v", pos[0], err)
	}
	rec, err := readVerifyRecording(pos[0], data, server)
	if err != nil {
		return fail(ExitUsage, phaseUsage, err)
	}
	var accept []acceptRule
	if acceptFile != "" {
		if accept, err = readAccept(inv.env.Dir, acceptFile); err != nil {
			return err
		}
	}
	if tf.protocol == "" {
		tf.protocol = rec.protocol // the same revision, so the same envelope
	}
	t, rest, err := inv.resolveTarget(ctx, &tf, pos[1:], tail, hasTail)
	if err != nil {
		return err
	}
	defer t.stop()
	if err := noMoreArgs(rest); err != nil {
		return err
	}
	// The server's own requests are answered as the recorded client
	// answered them, which declares what it declared.
	conn, err := inv.connect(ctx, t, &tf, rec.answers.options())
	if err != nil {
		return err
	}
	defer conn.Close()
	rep := &verifyReport{docHeader: inv.header(true), Recording: pos[0], Server: rec.server, Target: t.spec.Name,
		Protocol: conn.ProtocolVersion(), Ignore: nonNil([]string(ignore)), Requests: []verifyResult{}}
	v := &verifier{conn: conn, rec: rec, ignore: paths, accept: accept}
	if err := v.run(ctx, rep); err != nil {
		return inv.serverFailure(t, err)
	}
	rep.OK = rep.Differ == 0
	if !rep.OK {
		inv.exit = ExitServer
	}
	if inv.json {
		inv.writeJSON(rep)
		return nil
	}
	inv.printVerify(rep)
	if !rep.OK {
		inv.say("error: %d of %s were answered otherwise than in the recording\n", rep.Differ, plural(rep.Same+rep.Differ, "request"))
	}
	return nil
}

// A verifier sends a recording's requests to a live server.
type verifier struct {
	conn   *manager.Conn
	rec    *verifyRecording
	ignore []ignorePath
	accept []acceptRule    // --accept: list changes that differ nothing
	listed map[string]bool // the list methods compared
}

// listMethods are the requests compared as surfaces.
var listMethods = []string{"tools/list", "resources/list", "resources/templates/list", "prompts/list"}

// run sends each request of the recording, in order, and compares.
func (v *verifier) run(ctx context.Context, rep *verifyReport) error {
	v.listed = map[string]bool{}
	for _, r := range v.rec.requests {
		res := verifyResult{Line: r.line, Method: r.method, Name: requestName(r.params), Changes: []change{}, Values: []valueDiff{}}
		var err error
		switch {
		case r.method == "initialize" || r.method == "server/discover":
			continue // the connection did its own
		case slices.Contains(listMethods, r.method):
			if v.listed[r.method] {
				continue // a later page, or a list again: compared once, whole
			}
			v.listed[r.method] = true
			err = v.compareList(ctx, r.method, &res)
		case r.retry || r.ofTask || r.method == "subscriptions/listen":
			continue // the session's own: a retry, a task followed, its stream
		case r.taskID != "" && !r.taskDone:
			res.Status, res.Note = "skipped", "the recording does not hold the end of its task"
		case r.taskID != "" && r.taskResult == nil && r.taskErr == nil:
			res.Status, res.Note = "skipped", "its recorded task was cancelled"
		case r.taskID != "":
			// A task is compared by its end: the session follows the live
			// one to its end (tasks/get or notifications/tasks).
			last := *r
			last.result, last.err = r.taskResult, r.taskErr
			err = v.compareCall(ctx, &last, &res)
		case r.final().result == nil && r.final().err == nil:
			res.Status, res.Note = "skipped", "the recording holds no answer"
		default:
			// A multi round-trip request is compared by its last answer:
			// the session answers the rounds, from the recording.
			last := *r
			last.result, last.err = r.final().result, r.final().err
			err = v.compareCall(ctx, &last, &res)
		}
		if err != nil {
			return err
		}
		switch res.Status {
		case "same":
			rep.Same++
		case "different":
			rep.Differ++
		default:
			rep.Skipped++
		}
		rep.Requests = append(rep.Requests, res)
	}
	return nil
}

// compareList compares a list of the recording (every page of it) with
// the live server's whole list, by the surface comparison of diff.
func (v *verifier) compareList(ctx context.Context, method string, res *verifyResult) error {
	var old, now surface.Listing
	for _, r := range v.rec.requests {
		if r.method == method && r.result != nil {
			if err := addPage(&old, method, r.result); err != nil {
				return fmt.Errorf("the recording's %s (line %d): %v", method, r.line, err)
			}
		}
	}
	var err error
	switch method {
	case "tools/list":
		now.Tools, err = v.conn.ListTools(ctx)
	case "resources/list":
		now.Resources, err = v.conn.ListResources(ctx)
	case "resources/templates/list":
		now.ResourceTemplates, err = v.conn.ListResourceTemplates(ctx)
	case "prompts/list":
		now.Prompts, err = v.conn.ListPrompts(ctx)
	}
	if err != nil {
		return v.conn.Explain(manager.PhaseList, err)
	}
	init := *v.conn.Init()
	init.ProtocolVersion = v.conn.ProtocolVersion()
	a, err := surface.New(v.rec.server, v.rec.init, &old)
	if err != nil {
		return fmt.Errorf("the recording: %v", err)
	}
	b, err := surface.New(v.rec.server, &init, &now)
	if err != nil {
		return err
	}
	changes, err := surface.Diff(a, b)
	if err != nil {
		return err
	}
	for _, c := range changes {
		// The server's identity and capabilities are compared with the
		// first list only.
		if (c.Item == "server" || c.Item == "capability") && len(v.listed) > 1 {
			continue
		}
		c.Accepted = accepted(v.accept, &c)
		res.Changes = append(res.Changes, c)
		if !c.Accepted {
			res.Status = "different"
		}
	}
	if res.Status == "" {
		res.Status = "same"
	}
	return nil
}

// addPage adds a recorded page of a list to l.
func addPage(l *surface.Listing, method string, result json.RawMessage) error {
	var p struct {
		Tools             []*protocol.Tool             `json:"tools"`
		Resources         []*protocol.Resource         `json:"resources"`
		ResourceTemplates []*protocol.ResourceTemplate `json:"resourceTemplates"`
		Prompts           []*protocol.Prompt           `json:"prompts"`
	}
	if err := json.Unmarshal(result, &p); err != nil {
		return err
	}
	l.Tools = append(l.Tools, p.Tools...)
	l.Resources = append(l.Resources, p.Resources...)
	l.ResourceTemplates = append(l.ResourceTemplates, p.ResourceTemplates...)
	l.Prompts = append(l.Prompts, p.Prompts...)
	return nil
}

// requestName is what a request is about: a tool's or prompt's name, a
// resource's URI.
func requestName(params json.RawMessage) string {
	var p struct {
		Name string `json:"name"`
		URI  string `json:"uri"`
		Ref  struct {
			Name string `json:"name"`
			URI  string `json:"uri"`
		} `json:"ref"`
	}
	_ = json.Unmarshal(params, &p)
	return cmpOr(p.Name, p.URI, p.Ref.Name, p.Ref.URI)
}

// cmpOr is the first of words that is not "".
func cmpOr(words ...string) string {
	for _, w := range words {
		if w != "" {
			return w
		}
	}
	return ""
}

// errDoc is a JSON-RPC error as compared: its code and message.
func errDoc(e *protocol.Error) map[string]any {
	return map[string]any{"code": json.Number(fmt.Sprint(e.Code)), "message": e.Message}
}

// liveError turns the live call's error into what is compared: a
// JSON-RPC error the server sent, or a failure of the session (nil,
// returned as is by the caller).
func liveError(err error) *protocol.Error {
	var je *protocol.Error
	if errors.As(err, &je) {
		return je
	}
	return nil
}

func (inv *invocation) printVerify(rep *verifyReport) {
	inv.printf("%s %s → %s (protocol %s)\n", inv.bold("verify"), safe.Sanitize(rep.Recording), safe.Sanitize(rep.Target), safe.Sanitize(rep.Protocol))
	for _, r := range rep.Requests {
		what := r.Method
		if r.Name != "" {
			what += " " + r.Name
		}
		what = safe.Sanitize(oneLine(what, 120))
		switch r.Status {
		case "same":
			inv.printf("  %s %s\n", inv.green("✓"), what)
			for _, c := range r.Changes {
				inv.printf("      ~ accepted: %s\n", safe.Sanitize(oneLine(acceptedLine(c), 300)))
			}
		case "skipped":
			inv.printf("  - %s: skipped: %s\n", what, safe.Sanitize(oneLine(r.Note, 200)))
		default:
			inv.printf("  %s %s (line %d)\n", inv.red("✗"), what, r.Line)
			if r.Note != "" {
				inv.printf("      %s\n", safe.Sanitize(oneLine(r.Note, 300)))
			}
			for _, c := range r.Changes {
				mark, line := "+", changeLine(c)
				switch {
				case c.Accepted:
					mark, line = "~", "accepted: "+acceptedLine(c)
				case c.Class == classBreaking:
					mark = "✗"
				}
				inv.printf("      %s %s\n", mark, safe.Sanitize(oneLine(line, 300)))
			}
			for _, d := range r.Values {
				inv.printf("      %s: %s\n", safe.Sanitize(oneLine(d.Path, 200)), safe.Sanitize(valueLine(d)))
			}
			if r.ValueCount > len(r.Values) {
				inv.printf("      … %d more\n", r.ValueCount-len(r.Values))
			}
		}
	}
	inv.printf("\n%d same, %d different, %d skipped\n", rep.Same, rep.Differ, rep.Skipped)
}

// valueLine says a value's change in one line: `"3" → "4"`.
func valueLine(d valueDiff) string {
	switch d.Change {
	case "missing":
		return oneLine(string(d.Recorded), 140) + " → (none)"
	case "added":
		return "(none) → " + oneLine(string(d.Live), 140)
	}
	return oneLine(string(d.Recorded), 140) + " → " + oneLine(string(d.Live), 140)
}
