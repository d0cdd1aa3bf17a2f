package demo

// The modern era's fixtures of the conformance suite: the multi
// round-trip tools (test_input_required_result_…, SEP-2322), whose input
// requests, keys and requestState the scenarios name, and the diagnostic
// tools of server-stateless (SEP-2575). Each returns the server package's
// InputRequired itself and reads the client's retry from Modern(ctx).

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/mcpwire/mcpwire/jsonrpc"
	mcpserver "github.com/mcpwire/mcpwire/protocol/server"
)

// mrtrTools are the modern fixtures' tools.
func mrtrTools() []any {
	var out []any
	for _, n := range []string{"elicitation", "sampling", "list_roots", "request_state", "multiple_inputs", "multi_round",
		"tampered_state", "capabilities"} {
		out = append(out, fixtureTool("test_input_required_result_"+n, "A multi round-trip request ("+strings.ReplaceAll(n, "_", " ")+").", nil))
	}
	return append(out,
		fixtureTool("test_missing_capability", "Needs the sampling capability (-32021 without it).", nil),
		fixtureTool("test_streaming_elicitation", "Asks the user, as an input request of its answer.", nil),
		fixtureTool("test_logging_tool", "Logs a message at info (only when the request asked for logs).", nil))
}

func elicitRequest(msg, prop, typ string) map[string]any {
	return map[string]any{"method": "elicitation/create", "params": map[string]any{"message": msg,
		"requestedSchema": json.RawMessage(`{"type":"object","properties":{"` + prop + `":{"type":"` + typ + `"}},"required":["` + prop + `"]}`)}}
}

func samplingRequest(prompt string, max int) map[string]any {
	return map[string]any{"method": "sampling/createMessage", "params": map[string]any{
		"messages": []any{map[string]any{"role": "user", "content": text(prompt)}}, "maxTokens": max}}
}

var rootsRequest = map[string]any{"method": "roots/list", "params": map[string]any{}}

// answered returns the client's answers to keys, when all came as objects.
func answered(ctx context.Context, keys ...string) (map[string]map[string]any, bool) {
	mr := mcpserver.Modern(ctx)
	if mr == nil {
		return nil, false
	}
	out := map[string]map[string]any{}
	for _, k := range keys {
		var v map[string]any
		if json.Unmarshal(mr.Responses[k], &v) != nil || v == nil {
			return nil, false
		}
		out[k] = v
	}
	return out, true
}

// stateOf opens the retry's requestState; "" when absent, ok false when
// it is not one this server sealed.
func (f *fixture) stateOf(ctx context.Context) (string, bool) {
	mr := mcpserver.Modern(ctx)
	if mr == nil || mr.State == nil {
		return "", true
	}
	return f.sess.Server().OpenState(*mr.State)
}

func (f *fixture) need(requests map[string]any, state string) error {
	if state != "" {
		state = f.sess.Server().SealState(state)
	}
	return &mcpserver.InputRequired{Requests: requests, State: state}
}

var errTampered = mcpserver.InvalidParams("requestState failed its integrity check")

// mrtrTool runs a modern fixture tool; ok false when name is none.
func (f *fixture) mrtrTool(ctx context.Context, p mcpserver.Peer, name string) (any, bool, error) {
	if mcpserver.Modern(ctx) == nil && strings.HasPrefix(name, "test_input_required_result_") {
		return nil, true, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "%s needs the modern era (%s)", name, mcpserver.ModernVersion)
	}
	state, stateOK := f.stateOf(ctx)
	switch name {
	case "test_input_required_result_elicitation", "test_streaming_elicitation":
		if a, ok := answered(ctx, "user_name"); ok {
			c, _ := a["user_name"]["content"].(map[string]any)
			n, _ := c["name"].(string)
			return content(text("Hello, " + n + "!")), true, nil
		}
		return nil, true, f.need(map[string]any{"user_name": elicitRequest("What is your name?", "name", "string")}, "")
	case "test_input_required_result_sampling":
		if a, ok := answered(ctx, "capital_question"); ok {
			c, _ := a["capital_question"]["content"].(map[string]any)
			t, _ := c["text"].(string)
			return content(text("The model said: " + t)), true, nil
		}
		return nil, true, f.need(map[string]any{"capital_question": samplingRequest("What is the capital of France?", 100)}, "")
	case "test_input_required_result_list_roots":
		if a, ok := answered(ctx, "client_roots"); ok {
			b, _ := json.Marshal(a["client_roots"]["roots"])
			return content(text("Roots: " + string(b))), true, nil
		}
		return nil, true, f.need(map[string]any{"client_roots": rootsRequest}, "")
	case "test_input_required_result_request_state", "test_input_required_result_tampered_state":
		if !stateOK {
			return nil, true, errTampered
		}
		if _, ok := answered(ctx, "confirm"); ok && state == name {
			return content(text("Confirmed: state-ok")), true, nil
		}
		return nil, true, f.need(map[string]any{"confirm": elicitRequest("Please confirm", "ok", "boolean")}, name)
	case "test_input_required_result_multiple_inputs":
		if !stateOK {
			return nil, true, errTampered
		}
		if _, ok := answered(ctx, "user_name", "greeting", "client_roots"); ok && state == name {
			return content(text("All three inputs received: state-ok")), true, nil
		}
		return nil, true, f.need(map[string]any{"user_name": elicitRequest("What is your name?", "name", "string"),
			"greeting": samplingRequest("Generate a greeting", 50), "client_roots": rootsRequest}, name)
	case "test_input_required_result_multi_round":
		if !stateOK {
			return nil, true, errTampered
		}
		if _, ok := answered(ctx, "step2"); ok && state == "round2" {
			return content(text("Both steps done: state-ok")), true, nil
		}
		if _, ok := answered(ctx, "step1"); ok && state == "round1" {
			return nil, true, f.need(map[string]any{"step2": elicitRequest("Step 2: What is your favorite color?", "color", "string")}, "round2")
		}
		return nil, true, f.need(map[string]any{"step1": elicitRequest("Step 1: What is your name?", "name", "string")}, "round1")
	case "test_input_required_result_capabilities":
		reqs := map[string]any{}
		if f.sess.Declared(ctx, func(c clientCaps) bool { return c.Elicitation != nil }) {
			reqs["user_name"] = elicitRequest("What is your name?", "name", "string")
		}
		if f.sess.Declared(ctx, func(c clientCaps) bool { return c.Sampling != nil }) {
			reqs["greeting"] = samplingRequest("Generate a greeting", 50)
		}
		if f.sess.Declared(ctx, func(c clientCaps) bool { return c.Roots != nil }) {
			reqs["client_roots"] = rootsRequest
		}
		if len(reqs) == 0 {
			return content(text("The client declared nothing to ask.")), true, nil
		}
		keys := make([]string, 0, len(reqs))
		for k := range reqs {
			keys = append(keys, k)
		}
		if _, ok := answered(ctx, keys...); ok {
			return content(text("Inputs received.")), true, nil
		}
		return nil, true, f.need(reqs, "")
	case "test_missing_capability":
		if !f.sess.Declared(ctx, func(c clientCaps) bool { return c.Sampling != nil }) {
			e := jsonrpc.NewError(mcpserver.CodeMissingCapability, "Missing required client capability: sampling")
			e.Data = json.RawMessage(`{"requiredCapabilities":{"sampling":{}}}`)
			return nil, true, e
		}
		return content(text("The client declared sampling.")), true, nil
	case "test_logging_tool":
		f.sess.Log(ctx, p, "conformance", "info", "the logging tool ran")
		return content(text("Logged (if asked).")), true, nil
	}
	return nil, false, nil
}

// mrtrPrompt is the prompt test_input_required_result_prompt.
func (f *fixture) mrtrPrompt(ctx context.Context) (any, error) {
	if a, ok := answered(ctx, "user_context"); ok {
		c, _ := a["user_context"]["content"].(map[string]any)
		s, _ := c["context"].(string)
		return map[string]any{"description": "A prompt with the user's context", "messages": []any{
			map[string]any{"role": "user", "content": text("Use this context: " + s)}}}, nil
	}
	if mcpserver.Modern(ctx) == nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "test_input_required_result_prompt needs the modern era")
	}
	return nil, f.need(map[string]any{"user_context": elicitRequest("What context should the prompt use?", "context", "string")}, "")
}
