package demo

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpwire/mcpwire/jsonrpc"
	mcpserver "github.com/mcpwire/mcpwire/protocol/server"
)

const readmeText = "# mcpwire demo server\n\nThis server ships inside mcpwire so that you can try every part of MCP " +
	"with nothing installed: tools, resources, prompts, completion and logging.\n"

const itemPrefix = "demo://item/"

type resourceDef struct {
	_ [0]func() // not comparable: no equality function in the binary

	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mimeType,omitempty"`
}

func resourceDefs() []resourceDef {
	return []resourceDef{
		{URI: "demo://readme", Name: "readme", Title: "Read me", Description: "What this server is.", MimeType: "text/markdown"},
		{URI: "demo://config.json", Name: "config.json", Title: "Configuration", Description: "A small JSON document.", MimeType: "application/json"},
		{URI: "demo://status", Name: "status", Title: "Session status", Description: "This session's state: log level, subscriptions, cancelled requests.", MimeType: "application/json"},
		{URI: "demo://logo.png", Name: "logo.png", Title: "Logo", Description: "A small binary resource.", MimeType: "image/png"},
	}
}

func templateDefs() []map[string]any {
	return []map[string]any{{
		"uriTemplate": itemPrefix + "{id}", "name": "item", "title": "Demo item",
		"description": "An item by its id.", "mimeType": "text/plain",
	}}
}

func (s *server) listResources(params json.RawMessage) (any, error) {
	all := resourceDefs()
	if s.opts.Apps {
		all = append(all, appResource())
	}
	start, end, next, err := page(params, len(all), s.opts.PageSize)
	if err != nil {
		return nil, err
	}
	return listResult("resources", all[start:end], next), nil
}

func (s *server) listTemplates(params json.RawMessage) (any, error) {
	all := templateDefs()
	start, end, next, err := page(params, len(all), s.opts.PageSize)
	if err != nil {
		return nil, err
	}
	return listResult("resourceTemplates", all[start:end], next), nil
}

func (s *server) readResource(params json.RawMessage) (any, error) {
	var in struct {
		URI string `json:"uri"`
	}
	if err := decode(params, &in); err != nil {
		return nil, err
	}
	if res, ok := s.readSkillFile(in.URI); ok {
		return res, nil
	}
	textContent := func(mime, t string) (any, error) {
		return map[string]any{"contents": []any{map[string]any{"uri": in.URI, "mimeType": mime, "text": t}}}, nil
	}
	switch in.URI {
	case dashboardURI:
		if s.opts.Apps {
			return textContent(dashboardMime, dashboardHTML)
		}
	case "demo://readme":
		return textContent("text/markdown", readmeText)
	case "demo://config.json":
		return textContent("application/json", `{"greeting":"hello","answer":42}`)
	case "demo://status":
		b, _ := json.Marshal(s.status())
		return textContent("application/json", string(b))
	case "demo://logo.png":
		return map[string]any{"contents": []any{map[string]any{
			"uri": in.URI, "mimeType": "image/png", "blob": base64.StdEncoding.EncodeToString(demoPNG())}}}, nil
	}
	if id, ok := strings.CutPrefix(in.URI, itemPrefix); ok && id != "" && !strings.Contains(id, "/") {
		return textContent("text/plain", "item "+id)
	}
	return nil, &jsonrpc.Error{Code: codeResourceNotFound, Message: "resource not found",
		Data: mustJSON(map[string]string{"uri": in.URI})}
}

func knownResource(uri string) bool {
	for _, r := range resourceDefs() {
		if r.URI == uri {
			return true
		}
	}
	id, ok := strings.CutPrefix(uri, itemPrefix)
	return ok && id != "" && !strings.Contains(id, "/")
}

func (s *server) subscribe(ctx context.Context, p peer, params json.RawMessage) (any, error) {
	var in struct {
		URI string `json:"uri"`
	}
	if err := decode(params, &in); err != nil {
		return nil, err
	}
	if !knownResource(in.URI) {
		return nil, &jsonrpc.Error{Code: codeResourceNotFound, Message: "resource not found",
			Data: mustJSON(map[string]string{"uri": in.URI})}
	}
	s.mu.Lock()
	s.subs[in.URI] = true
	s.mu.Unlock()
	return &mcpserver.AfterReply{Result: struct{}{}, Then: func() {
		for range 1 + s.opts.UpdateFlood {
			_ = p.notify(context.WithoutCancel(ctx), "notifications/resources/updated", map[string]any{"uri": in.URI})
		}
	}}, nil
}

type promptArg struct {
	_ [0]func() // not comparable: no equality function in the binary

	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

type promptDef struct {
	Name        string      `json:"name"`
	Title       string      `json:"title,omitempty"`
	Description string      `json:"description,omitempty"`
	Arguments   []promptArg `json:"arguments,omitempty"`
}

func promptDefs() []promptDef {
	return []promptDef{
		{Name: "greet", Title: "Greet someone", Description: "A greeting for name, in a style.",
			Arguments: []promptArg{
				{Name: "name", Description: "who to greet", Required: true},
				{Name: "style", Description: "casual, formal, pirate, poetic or shakespearean"},
			}},
		{Name: "plain", Title: "Plain prompt", Description: "A prompt without arguments."},
	}
}

func styles() []string { return []string{"casual", "formal", "pirate", "poetic", "shakespearean"} }

func (s *server) listPrompts(params json.RawMessage) (any, error) {
	all := promptDefs()
	start, end, next, err := page(params, len(all), s.opts.PageSize)
	if err != nil {
		return nil, err
	}
	return listResult("prompts", all[start:end], next), nil
}

func (s *server) getPrompt(params json.RawMessage) (any, error) {
	var in struct {
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments"`
	}
	if err := decode(params, &in); err != nil {
		return nil, err
	}
	msg := func(t string) map[string]any { return map[string]any{"role": "user", "content": text(t)} }
	switch in.Name {
	case "greet":
		name := in.Arguments["name"]
		if name == "" {
			return nil, invalidParams("prompt greet: missing required argument name")
		}
		style := in.Arguments["style"]
		if style == "" {
			style = "casual"
		}
		return map[string]any{
			"description": "A " + style + " greeting",
			"messages":    []any{msg(fmt.Sprintf("Please greet %s in a %s style.", name, style))},
		}, nil
	case "plain":
		return map[string]any{"messages": []any{msg("Tell me something about MCP.")}}, nil
	}
	return nil, invalidParams("unknown prompt %q", in.Name)
}

func (s *server) complete(params json.RawMessage) (any, error) {
	var in struct {
		Ref struct {
			Type string `json:"type"`
			Name string `json:"name"`
			URI  string `json:"uri"`
		} `json:"ref"`
		Argument struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"argument"`
	}
	if err := decode(params, &in); err != nil {
		return nil, err
	}
	var candidates []string
	switch {
	case in.Ref.Type == "ref/prompt" && in.Ref.Name == "greet" && in.Argument.Name == "style":
		candidates = styles()
	case in.Ref.Type == "ref/prompt" && in.Ref.Name == "greet" && in.Argument.Name == "name":
		candidates = []string{"Ada", "Alan", "Grace", "Linus"}
	case in.Ref.Type == "ref/resource" && in.Ref.URI == itemPrefix+"{id}" && in.Argument.Name == "id":
		for i := 1; i <= 200; i++ {
			candidates = append(candidates, strconv.Itoa(i))
		}
	case in.Ref.Type == "ref/prompt" || in.Ref.Type == "ref/resource":
		candidates = nil
	default:
		return nil, invalidParams("unknown reference type %q", in.Ref.Type)
	}
	values := slices.DeleteFunc(candidates, func(c string) bool { return !strings.HasPrefix(c, in.Argument.Value) })
	total := len(values)
	if len(values) > 10 {
		values = values[:10]
	}
	if values == nil {
		values = []string{}
	}
	return map[string]any{"completion": map[string]any{"values": values, "total": total, "hasMore": total > len(values)}}, nil
}
