package protocol

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// GetPrompt gets the prompt name with args (prompts/get).
func (s *Session) GetPrompt(ctx context.Context, name string, args map[string]string) (*GetPromptResult, error) {
	if err := s.require("prompts/get", "prompts"); err != nil {
		return nil, err
	}
	params := struct {
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments,omitempty"`
	}{name, args}
	var res GetPromptResult
	err := s.rounds(ctx, &request{method: "prompts/get", params: params, name: name}, func(resp *jsonrpc.Response) (*resultHead, error) {
		return decodeComplete(resp, "prompts/get", &res)
	})
	if err != nil {
		return nil, err
	}
	return &res, nil
}

// Complete asks for completions of the argument argName, typed so far as
// value, of a prompt or resource template (completion/complete). contextArgs
// gives the values of arguments already chosen; nil sends none.
func (s *Session) Complete(ctx context.Context, ref Reference, argName, value string, contextArgs map[string]string) (*CompleteResult, error) {
	if err := s.require("completion/complete", "completions"); err != nil {
		return nil, err
	}
	if ref.Type != "ref/prompt" && ref.Type != "ref/resource" {
		return nil, fmt.Errorf("completion/complete: reference type %q is neither ref/prompt nor ref/resource", ref.Type)
	}
	type argument struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	type completeContext struct {
		Arguments map[string]string `json:"arguments,omitempty"`
	}
	params := struct {
		Ref      Reference        `json:"ref"`
		Argument argument         `json:"argument"`
		Context  *completeContext `json:"context,omitempty"`
	}{Ref: ref, Argument: argument{argName, value}}
	if len(contextArgs) > 0 {
		params.Context = &completeContext{Arguments: contextArgs}
	}
	var res CompleteResult
	if err := s.callInto(ctx, "completion/complete", params, nil, &res); err != nil {
		return nil, err
	}
	if res.Completion.Values == nil {
		res.Completion.Values = []string{}
	}
	return &res, nil
}

// SetLogLevel asks the server to send log messages of level and above;
// they reach Options.OnLog. Legacy servers are asked with
// logging/setLevel; in the modern era every later request carries the
// level in _meta (io.modelcontextprotocol/logLevel), and the server sends
// the messages of each request on its answer stream.
func (s *Session) SetLogLevel(ctx context.Context, level string) error {
	if err := s.require("logging/setLevel", "logging"); err != nil {
		return err
	}
	if !slices.Contains(logLevels[:], level) {
		return fmt.Errorf("logging/setLevel: unknown level %q (want one of %s)", level, strings.Join(logLevels[:], ", "))
	}
	if s.era == EraModern {
		s.mu.Lock()
		s.mod.level = level
		s.mu.Unlock()
		return nil
	}
	_, err := s.call(ctx, "logging/setLevel", struct {
		Level string `json:"level"`
	}{level}, nil)
	return err
}
