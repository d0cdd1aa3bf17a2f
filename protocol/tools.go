package protocol

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// CallTool calls the tool name with args (marshaled to a JSON object; nil
// sends no arguments) and returns its result. A tool's own failure is a
// result with IsError set, not an error. When the tool was listed on this
// session with an outputSchema, the result's structuredContent is checked
// against it and any mismatch is reported in OutputProblem.
//
// In the modern era a result asking for input is answered (see
// [Options.MaxInputRounds]) and the call sent again until it completes;
// over streamable HTTP the parameters the tool marks with x-mcp-header are
// mirrored into headers when the session knows the tool (listed, or
// Options.KnownTools); else the call goes without them, and when the server
// refuses it for that (-32020, before running it) the tools are listed and
// the call sent once more. A tool left out of the list for invalid
// annotations is not called (*ToolRejectedError).
func (s *Session) CallTool(ctx context.Context, name string, args any, opts *CallOptions) (*CallToolResult, error) {
	res, task, err := s.callToolAs(ctx, name, args, opts, s.era == EraLegacy && s.TaskSupport(name) == "required")
	if err != nil || task == nil {
		return res, err
	}
	// A task the caller did not ask for (the server chose it, or the tool
	// requires it): followed to its end, as a plain call would be.
	return s.followTask(ctx, task)
}

// followTask waits for a task that CallTool got, as long as a request
// whose progress extends it may last (Options.MaxTimeout); when that
// passes or ctx ends first, the server is told with tasks/cancel, in the
// background.
func (s *Session) followTask(ctx context.Context, task *Task) (*CallToolResult, error) {
	te := &TimeoutError{Method: "tools/call", Timeout: s.maxTimeout}
	wctx, cancel := context.WithTimeoutCause(ctx, s.maxTimeout, te)
	defer cancel()
	res, err := s.WaitTask(wctx, task, nil)
	if err == nil || wctx.Err() == nil {
		return res, err
	}
	s.cancelInBackground(task.ID)
	if ctx.Err() == nil {
		return nil, te
	}
	return nil, err
}

// cancelInBackground sends tasks/cancel for id without waiting for it;
// the session's Close waits for it (bounded by cancelNoticeTimeout).
func (s *Session) cancelInBackground(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.life.Err() != nil {
		return
	}
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		ctx, cancel := context.WithTimeout(s.life, cancelNoticeTimeout)
		defer cancel()
		_ = s.CancelTask(ctx, id)
	}()
}

// CallToolTask is CallTool asking for a task: in the legacy era params.task
// is sent when the server and the tool allow it (TaskSupport optional or
// required); in the modern era the server decides. It returns the result
// when the server answered at once, else the task it created (follow it
// with WaitTask, GetTask, CancelTask).
func (s *Session) CallToolTask(ctx context.Context, name string, args any, opts *CallOptions) (*CallToolResult, *Task, error) {
	asTask := false
	if s.era == EraLegacy {
		if err := s.knowTools(ctx); err != nil {
			return nil, nil, err
		}
		ts := s.TaskSupport(name)
		asTask = ts == "optional" || ts == "required"
	}
	return s.callToolAs(ctx, name, args, opts, asTask)
}

// knowTools lists the tools when none were listed on this session yet,
// so that their execution.taskSupport is known.
func (s *Session) knowTools(ctx context.Context) error {
	s.mu.Lock()
	known := s.taskSupport != nil
	s.mu.Unlock()
	if known || !s.tasksOffered() {
		return nil
	}
	_, err := s.ListTools(ctx)
	return err
}

// callToolAs sends tools/call, with params.task when asTask (legacy era).
func (s *Session) callToolAs(ctx context.Context, name string, args any, opts *CallOptions, asTask bool) (*CallToolResult, *Task, error) {
	if err := s.require("tools/call", "tools"); err != nil {
		return nil, nil, err
	}
	var a json.RawMessage
	if args != nil {
		var err error
		if a, err = jsonrpc.MarshalParams(args); err != nil {
			return nil, nil, &MethodError{Method: "tools/call", Err: fmt.Errorf("marshaling tools/call params: %v", err)}
		}
	}
	// The request stays on this stack, with no closure around its send:
	// either would cost the plain call an allocation (16 -> 17 per call).
	var rq request
	if err := s.toolCallRequest(ctx, &rq, name, a, opts, asTask); err != nil {
		return nil, nil, err
	}
	res, task, err := s.callTool(ctx, &rq, asTask)
	if s.resendWithHeaders(ctx, &rq, a, err) {
		res, task, err = s.callTool(ctx, &rq, asTask)
	}
	if err != nil || task != nil {
		return nil, task, err
	}
	if res.Content == nil {
		res.Content = []Content{}
	}
	if !res.IsError {
		s.mu.Lock()
		schema := s.outSchemas[name]
		s.mu.Unlock()
		if schema != nil {
			res.OutputProblem = CheckOutput(schema, res.StructuredContent)
		}
	}
	return res, nil, nil
}

// sendToolCall sends the tools/call of name with a (JSON text; none when
// nil), and params.task when asTask, through send, sent once more with the
// tool's headers when the server refused it for them (resendWithHeaders).
func (s *Session) sendToolCall(ctx context.Context, name string, a json.RawMessage, opts *CallOptions, asTask bool, send func(*request) error) error {
	rq := new(request)
	if err := s.toolCallRequest(ctx, rq, name, a, opts, asTask); err != nil {
		return err
	}
	err := send(rq)
	if s.resendWithHeaders(ctx, rq, a, err) {
		err = send(rq)
	}
	return err
}

// toolCallRequest makes rq the tools/call request of name with a (JSON
// text; none when nil), and params.task when asTask: in the modern era
// over HTTP with the tool's x-mcp-header parameters mirrored.
func (s *Session) toolCallRequest(ctx context.Context, rq *request, name string, a json.RawMessage, opts *CallOptions, asTask bool) error {
	// {"name":…,"arguments":…} by hand: the arguments are the only part
	// that needs encoding/json.
	params := jsonrpc.AppendString(append(make([]byte, 0, 64+len(a)), `{"name":`...), name)
	if a != nil {
		params = append(append(params, `,"arguments":`...), a...)
	}
	if asTask {
		params = append(params, `,"task":{}`...)
	}
	params = append(params, '}')
	*rq = request{method: "tools/call", raw: params, opts: opts, name: name}
	if s.mirrorsHeaders() {
		hp, err := s.toolHeaders(ctx, name, false)
		if err != nil {
			if tr := (*ToolRejectedError)(nil); errors.As(err, &tr) {
				return err
			}
		}
		rq.extra = headerValues(hp, a)
	}
	return nil
}

// mirrorsHeaders says whether tools/call mirrors x-mcp-header parameters
// (the modern era over HTTP).
func (s *Session) mirrorsHeaders() bool { return s.era == EraModern && s.headers }

// resendWithHeaders says whether rq, answered with err, is to be sent
// again, with the tool's headers as the server lists them now set on it.
// The server's idea of the tool's x-mcp-header parameters was not ours (or
// we had none): list the tools and retry once, as the transport page says;
// the server refused before running the call.
func (s *Session) resendWithHeaders(ctx context.Context, rq *request, a json.RawMessage, err error) bool {
	je, ok := isModernError(err)
	if !ok || !s.mirrorsHeaders() || je.Code != CodeHeaderMismatch {
		return false
	}
	hp, lerr := s.toolHeaders(ctx, rq.name, true)
	if lerr != nil {
		return false
	}
	rq.extra = headerValues(hp, a)
	return true
}

// callTool sends a tools/call until its result is complete, or is a task
// (resultType "task" in the modern era; the task member of a legacy answer
// to a call sent asTask).
func (s *Session) callTool(ctx context.Context, rq *request, asTask bool) (*CallToolResult, *Task, error) {
	var res *CallToolResult
	var task *Task
	err := s.rounds(ctx, rq, func(resp *jsonrpc.Response) (*resultHead, error) {
		r, h, err := decodeCallResult(resp.Cursor())
		if err != nil {
			return nil, &ResultError{Method: "tools/call", Err: err}
		}
		switch {
		case s.era == EraModern && h.resultType == "task":
			if task, err = decodeTask("tools/call", resp.Result); err != nil {
				return nil, err
			}
			h.resultType = "complete" // the rounds end here
		case asTask:
			var w struct {
				Task json.RawMessage `json:"task"`
			}
			if json.Unmarshal(resp.Result, &w) == nil && declared(w.Task) {
				if task, err = decodeTask("tools/call", w.Task); err != nil {
					return nil, err
				}
			}
		}
		res = r
		return h, nil
	})
	if err != nil {
		return nil, nil, err
	}
	return res, task, nil
}

// rememberSchemas keeps the output schemas of listed tools for CallTool.
func (s *Session) rememberSchemas(tools []*Tool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.taskSupport == nil {
		s.taskSupport = map[string]string{}
	}
	for _, t := range tools {
		if t.Execution != nil && t.Execution.TaskSupport != "" {
			s.taskSupport[t.Name] = t.Execution.TaskSupport
		} else {
			delete(s.taskSupport, t.Name)
		}
		if declared(t.OutputSchema) {
			s.outSchemas[t.Name] = t.OutputSchema
		} else {
			delete(s.outSchemas, t.Name)
		}
	}
}

// CheckOutput checks structured content against a tool's output schema,
// shallowly: the content must be an object, hold every required member,
// and each member the schema's properties give a "type" must be of it. It
// returns "" when the content passes, else what is wrong.
func CheckOutput(schema, content json.RawMessage) string {
	if !declared(content) {
		return "the tool has an outputSchema but the result has no structuredContent"
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(content, &obj) != nil {
		return "structuredContent is not a JSON object"
	}
	var sch struct {
		Required   []string `json:"required"`
		Properties map[string]struct {
			Type json.RawMessage `json:"type"`
		} `json:"properties"`
	}
	if json.Unmarshal(schema, &sch) != nil {
		return "" // a schema we cannot read constrains nothing we can check
	}
	var problems []string
	for _, r := range sch.Required {
		if _, ok := obj[r]; !ok {
			problems = append(problems, fmt.Sprintf("required member %q is missing", r))
		}
	}
	names := make([]string, 0, len(sch.Properties))
	for n := range sch.Properties {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		v, ok := obj[n]
		if !ok {
			continue
		}
		want := schemaTypes(sch.Properties[n].Type)
		if len(want) == 0 {
			continue
		}
		got := jsonType(v)
		if !slices.Contains(want, got) && !(got == "integer" && slices.Contains(want, "number")) {
			problems = append(problems, fmt.Sprintf("member %q is %s, not %s", n, got, strings.Join(want, " or ")))
		}
	}
	return strings.Join(problems, "; ")
}

// schemaTypes reads a JSON Schema "type": a string or a list of them.
func schemaTypes(raw json.RawMessage) []string {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}
	}
	var many []string
	_ = json.Unmarshal(raw, &many)
	return many
}

// jsonType names the JSON Schema type of a valid JSON value.
func jsonType(v json.RawMessage) string {
	t := strings.TrimSpace(string(v))
	if t == "" {
		return "null"
	}
	switch t[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	if strings.ContainsAny(t, ".eE") {
		var f float64
		if json.Unmarshal(v, &f) == nil && f == float64(int64(f)) {
			return "integer"
		}
		return "number"
	}
	return "integer"
}
