package protocol

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// TestToolsPage fetches a listing one page at a time, each at the cursor
// the page before gave, as an agent that pages lazily does.
func TestToolsPage(t *testing.T) {
	s, _ := startFake(t, allCaps, pagedTools(3, 0), nil)
	ctx := context.Background()
	var names []string
	var cursor *string
	for pages := 0; ; pages++ {
		if pages == 3 {
			t.Fatal("more pages than the server has")
		}
		p, err := s.ToolsPage(ctx, cursor)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range p.Items {
			names = append(names, tool.Name)
		}
		if p.Next == nil {
			break
		}
		cursor = p.Next
	}
	if fmt.Sprint(names) != "[t1-a t1-b t2-a t2-b t3-a t3-b]" {
		t.Errorf("tools %v", names)
	}
	// Any page at once, by its cursor.
	c2 := "c2"
	p, err := s.ToolsPage(ctx, &c2)
	if err != nil || len(p.Items) != 2 || p.Items[0].Name != "t2-a" || p.Next == nil || *p.Next != "c3" {
		t.Fatalf("page c2: %+v, %v", p, err)
	}
	// The server's error for a cursor it does not know is the call's.
	bad := "nope"
	var me *MethodError
	if _, err := s.ToolsPage(ctx, &bad); !errors.As(err, &me) || me.Method != "tools/list" {
		t.Fatalf("bad cursor: %v", err)
	}
}

// TestPagesOfEachList fetches the first page of resources, resource
// templates and prompts; a legacy server's empty nextCursor ends a list.
func TestPagesOfEachList(t *testing.T) {
	var cursors []string
	s, _ := startFake(t, allCaps, func(f *fakeServer, m *wire) (any, error) {
		cursors = append(cursors, m.Method+" "+string(m.Params))
		switch m.Method {
		case "resources/list":
			return json.RawMessage(`{"resources":[{"uri":"file:///a.txt","name":"a"},null],"nextCursor":"r2"}`), nil
		case "resources/templates/list":
			return json.RawMessage(`{"resourceTemplates":[{"uriTemplate":"file:///{path}","name":"files"}],"nextCursor":""}`), nil
		case "prompts/list":
			return json.RawMessage(`{"prompts":[{"name":"greet"}]}`), nil
		}
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "no")
	}, nil)
	ctx := context.Background()
	r, err := s.ResourcesPage(ctx, nil)
	if err != nil || len(r.Items) != 1 || r.Items[0].URI != "file:///a.txt" || r.Next == nil || *r.Next != "r2" {
		t.Fatalf("resources: %+v, %v", r, err)
	}
	tp, err := s.ResourceTemplatesPage(ctx, r.Next)
	if err != nil || len(tp.Items) != 1 || tp.Next != nil {
		t.Fatalf("templates: %+v, %v", tp, err)
	}
	pp, err := s.PromptsPage(ctx, nil)
	if err != nil || len(pp.Items) != 1 || pp.Items[0].Name != "greet" || pp.Next != nil {
		t.Fatalf("prompts: %+v, %v", pp, err)
	}
	want := []string{"resources/list ", `resources/templates/list {"cursor":"r2"}`, "prompts/list "}
	if fmt.Sprintf("%q", cursors) != fmt.Sprintf("%q", want) {
		t.Errorf("requests %q, want %q", cursors, want)
	}
}

// TestPageNeedsCapability refuses a page of a list the server did not
// declare, before sending anything.
func TestPageNeedsCapability(t *testing.T) {
	s, _ := startFake(t, `{"tools":{}}`, pagedTools(1, 0), nil)
	var ce *CapabilityError
	if _, err := s.PromptsPage(context.Background(), nil); !errors.As(err, &ce) {
		t.Fatalf("got %v, want a CapabilityError", err)
	}
}

// TestModernToolsPage: a modern server's empty nextCursor is a cursor,
// given back as such; each page carries its caching hint.
func TestModernToolsPage(t *testing.T) {
	s, _ := startModern(t, allCaps, func(f *fakeServer, m *wire) (any, error) {
		var p struct {
			Cursor *string `json:"cursor"`
		}
		json.Unmarshal(m.Params, &p)
		switch {
		case p.Cursor == nil:
			return json.RawMessage(`{"resultType":"complete","tools":[{"name":"a"}],"nextCursor":"","ttlMs":60000,"cacheScope":"public"}`), nil
		case *p.Cursor == "":
			return json.RawMessage(`{"resultType":"complete","tools":[{"name":"b"}]}`), nil
		}
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "bad cursor")
	}, nil)
	ctx := context.Background()
	p, err := s.ToolsPage(ctx, nil)
	if err != nil || len(p.Items) != 1 || p.Next == nil || *p.Next != "" {
		t.Fatalf("first page: %+v, %v", p, err)
	}
	if !p.Hint.Given || p.Hint.TTL != time.Minute || p.Hint.Scope != "public" {
		t.Errorf("hint %+v", p.Hint)
	}
	p, err = s.ToolsPage(ctx, p.Next)
	if err != nil || len(p.Items) != 1 || p.Items[0].Name != "b" || p.Next != nil || p.Hint.Given {
		t.Fatalf("second page: %+v, %v", p, err)
	}
}
