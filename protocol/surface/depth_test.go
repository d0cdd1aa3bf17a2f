package surface

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/peakheap"
	"github.com/mcpwire/mcpwire/protocol"
)

// deepSchema is an object schema whose properties nest levels deep (each
// level two JSON levels: the schema and its "properties"), width
// properties per level, names of nameLen bytes, and desc as every
// level's description.
func deepSchema(levels, width, nameLen int, desc string) string {
	var b strings.Builder
	name := func(level, i int) string {
		n := strings.Repeat("n", nameLen)
		return n + "_" + string(rune('a'+level%26)) + string(rune('a'+i%26))
	}
	var build func(level int)
	build = func(level int) {
		b.WriteString(`{"type":"object"`)
		if desc != "" {
			b.WriteString(`,"description":`)
			d, _ := json.Marshal(desc)
			b.Write(d)
		}
		if level == levels {
			b.WriteString("}")
			return
		}
		b.WriteString(`,"properties":{`)
		for i := range width {
			if i > 0 {
				b.WriteString(",")
			}
			k, _ := json.Marshal(name(level, i))
			b.Write(k)
			b.WriteString(":")
			if i == 0 {
				build(level + 1)
			} else {
				b.WriteString(`{"type":"string"}`)
			}
		}
		b.WriteString("}}")
	}
	build(0)
	return b.String()
}

// deepSnap is a snapshot of one tool whose input schema is schema.
func deepSnap(schema string) *Snapshot {
	return &Snapshot{Schema: 1, Command: "snapshot", Capabilities: json.RawMessage(`{}`),
		Tools: []*Tool{{Name: "t", InputSchema: json.RawMessage(schema)}}}
}

// TestDiffDepthLimit: a schema nested deeper than MaxDepth is refused by
// Read, New and Diff with a *DepthError naming the tool; one at the
// limit is compared.
func TestDiffDepthLimit(t *testing.T) {
	levels := (MaxDepth - 1) / 2 // the root, then two JSON levels per level
	ok := deepSchema(levels, 1, 3, "")
	if d := jsonDepth(json.RawMessage(ok)); d > MaxDepth {
		t.Fatalf("fixture at the limit nests %d", d)
	}
	if _, err := Diff(deepSnap(ok), deepSnap(deepSchema(levels, 1, 3, "x"))); err != nil {
		t.Fatalf("a schema at the limit: %v", err)
	}
	deep := deepSchema(levels+1, 1, 3, "")
	var de *DepthError
	_, err := Diff(deepSnap(ok), deepSnap(deep))
	if !errors.As(err, &de) || de.Tool != "t" || !strings.Contains(err.Error(), `new: tool "t": inputSchema nests deeper than 128 levels`) {
		t.Fatalf("Diff of a schema past the limit: %v", err)
	}
	b, _ := json.Marshal(deepSnap(deep))
	if _, err := Read("deep.json", b); !errors.As(err, &de) || !strings.HasPrefix(err.Error(), "deep.json: ") {
		t.Fatalf("Read of a schema past the limit: %v", err)
	}
	_, err = New("s", &protocol.InitializeResult{}, &Listing{Tools: []*protocol.Tool{{Name: "t", InputSchema: json.RawMessage(deep)}}})
	if !errors.As(err, &de) {
		t.Fatalf("New of a schema past the limit: %v", err)
	}
	// Brackets inside strings do not count.
	if d := jsonDepth(json.RawMessage(`{"a":"[[[{{{\"[[["}`)); d != 1 {
		t.Fatalf("jsonDepth counted brackets in a string: %d", d)
	}
}

// FuzzDiffDeepWide diffs schemas as deep and as wide as the fuzzer
// likes: within the limit the diff works and a snapshot differs from
// itself in nothing; past it, the diff is a *DepthError, never a crash.
func FuzzDiffDeepWide(f *testing.F) {
	f.Add(uint8(3), uint8(2), uint8(1), "d", true)
	f.Add(uint8(63), uint8(1), uint8(40), "", false)
	f.Add(uint8(64), uint8(3), uint8(0), "x", true)
	f.Add(uint8(200), uint8(40), uint8(2), "", true)
	f.Fuzz(func(t *testing.T, levels, width, nameLen uint8, desc string, retype bool) {
		w := int(width%64) + 1
		old := deepSchema(int(levels), w, int(nameLen), "")
		newer := deepSchema(int(levels), w, int(nameLen), desc)
		if retype {
			newer = strings.Replace(newer, `{"type":"string"}`, `{"type":"integer"}`, 1)
		}
		changes, err := Diff(deepSnap(old), deepSnap(newer))
		var de *DepthError
		if tooDeep := jsonDepth(json.RawMessage(newer)) > MaxDepth; tooDeep {
			if !errors.As(err, &de) {
				t.Fatalf("a schema past the limit: %v", err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if desc != "" && len(changes) == 0 {
			t.Fatal("a changed description at every level gave no change")
		}
		if same := mustDiff(t, deepSnap(newer), deepSnap(newer)); len(same) != 0 {
			t.Fatalf("a schema differs from itself: %+v", same)
		}
	})
}

// BenchmarkDiffDeep reports the peak heap of a diff of two schemas at
// the depth limit, with long property names and a change at every level,
// per byte of the two snapshots ("peak/payload").
func BenchmarkDiffDeep(b *testing.B) {
	levels := (MaxDepth - 1) / 2
	old := deepSnap(deepSchema(levels, 4, 8<<10, ""))
	newer := deepSnap(deepSchema(levels, 4, 8<<10, "changed"))
	payload := len(old.Tools[0].InputSchema) + len(newer.Tools[0].InputSchema)
	for b.Loop() {
		if _, err := Diff(old, newer); err != nil {
			b.Fatal(err)
		}
	}
	peakheap.Report(b, payload, func() { _, _ = Diff(old, newer) })
}

// TestDiffLongPaths: a change deep in a schema of long names spells its
// path shortened in the middle, so the output stays proportional to the
// number of changes; short paths are spelled whole.
func TestDiffLongPaths(t *testing.T) {
	levels := (MaxDepth - 1) / 2
	changes := mustDiff(t, deepSnap(deepSchema(levels, 1, 500, "")), deepSnap(deepSchema(levels, 1, 500, "d")))
	if len(changes) != levels+1 {
		t.Fatalf("%d changes, want one per level (%d)", len(changes), levels+1)
	}
	for _, c := range changes {
		if len(c.Path) > maxPathBytes+len("…") || !strings.HasPrefix(c.Path, "input") {
			t.Fatalf("path of %d bytes: %.80q…", len(c.Path), c.Path)
		}
		if len(c.Message) > 2*maxPathBytes {
			t.Fatalf("message of %d bytes", len(c.Message))
		}
	}
	long := changes[0].Path
	if !strings.Contains(long, "…") || !strings.HasSuffix(long, "n_"+string(rune('a'+(levels-1)%26))+"a") {
		t.Fatalf("the deepest path is not shortened in the middle: %q", long)
	}
	short := mustDiff(t, toolSnap(t, `{"properties":{"a":{"properties":{"b":{"type":"string"}}}}}`, ""),
		toolSnap(t, `{"properties":{"a":{"properties":{"b":{"type":"number"}}}}}`, ""))
	if len(short) != 1 || short[0].Path != "input.a.b" {
		t.Fatalf("short path: %+v", short)
	}
}
