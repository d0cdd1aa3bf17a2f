package manager

import (
	"context"
	"slices"
	"testing"
)

// TestToolsPage pages through a server's tools one page at a time, before
// Tools was ever asked: the pages hold what Tools gives (names included,
// disabledTools applied), and a tool of a page may be called by its name.
func TestToolsPage(t *testing.T) {
	m, _ := newManager(t, Options{}, demoServer{name: "d", args: []string{"--page-size", "5"},
		extra: map[string]any{"disabledTools": []string{"add"}}})
	ctx := context.Background()
	var paged []Tool
	var cursor *string
	pages := 0
	for {
		p, err := m.ToolsPage(ctx, "d", cursor)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		paged = append(paged, p.Items...)
		if p.Next == nil {
			break
		}
		if pages > demoTools {
			t.Fatal("more pages than tools")
		}
		cursor = p.Next
	}
	if pages != (demoTools+4)/5 {
		t.Errorf("%d pages of 5 for %d tools", pages, demoTools)
	}
	var echo string
	for _, tl := range paged {
		if tl.Original == "add" {
			t.Errorf("disabled tool %s in a page", tl.Name)
		}
		if tl.Original == "echo" {
			echo = tl.Name
		}
	}
	if echo == "" {
		t.Fatalf("no echo among %d paged tools", len(paged))
	}
	if res, err := m.Call(ctx, echo, map[string]any{"text": "paged"}); err != nil || res.Text() != "paged" {
		t.Fatalf("call of %s: %v, %v", echo, res, err)
	}
	tools := mustTools(t, m)
	names := func(ts []Tool) []string {
		var out []string
		for _, tl := range ts {
			out = append(out, tl.Name+" "+tl.Original+" "+string(tl.InputSchema))
		}
		slices.Sort(out)
		return out
	}
	if got, want := names(paged), names(tools); !slices.Equal(got, want) {
		t.Errorf("pages:\n%q\nTools:\n%q", got, want)
	}
	if _, err := m.ToolsPage(ctx, "nope", nil); err == nil {
		t.Error("a page of an unknown server")
	}
}

// TestPagesOfEachList takes the first page of resources, templates and
// prompts of one server.
func TestPagesOfEachList(t *testing.T) {
	m, _ := newManager(t, Options{}, demoServer{name: "d", args: []string{"--page-size", "1"}})
	ctx := context.Background()
	r, err := m.ResourcesPage(ctx, "d", nil)
	if err != nil || len(r.Items) != 1 || r.Items[0].Server != "d" || r.Next == nil {
		t.Fatalf("resources: %+v, %v", r, err)
	}
	r2, err := m.ResourcesPage(ctx, "d", r.Next)
	if err != nil || len(r2.Items) != 1 || r2.Items[0].URI == r.Items[0].URI {
		t.Fatalf("second resources page: %+v, %v", r2, err)
	}
	if tp, err := m.ResourceTemplatesPage(ctx, "d", nil); err != nil || len(tp.Items) == 0 || tp.Items[0].Server != "d" {
		t.Fatalf("templates: %+v, %v", tp, err)
	}
	if pp, err := m.PromptsPage(ctx, "d", nil); err != nil || len(pp.Items) != 1 || pp.Items[0].Server != "d" {
		t.Fatalf("prompts: %+v, %v", pp, err)
	}
}
