package protocol_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/proctest"
	"github.com/mcpwire/mcpwire/protocol"
)

// Skills against the demo's server side of the extension, in both eras:
// listing reads no file; loading reads SKILL.md first and verifies every
// file (digest, size, frontmatter); a dynamic skill is walked with
// resources/directory/read; a tampered SKILL.md is refused naming the
// file.
func TestDemoSkills(t *testing.T) {
	proctest.Check(t)
	for _, era := range []string{"modern", "legacy"} {
		t.Run(era, func(t *testing.T) {
			s, _ := demoSession(t, nil, "--skills=on", "--era", era)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if ok, dr := s.SkillsOffered(); !ok || !dr {
				t.Fatalf("offered %v, directoryRead %v", ok, dr)
			}
			skills, err := s.ListSkills(ctx)
			if err != nil || len(skills) != 2 || skills[0].Name() != "greeting" || skills[1].Name() != "notes" || !skills[1].Dynamic {
				t.Fatalf("ListSkills: %+v %v", skills, err)
			}
			if d := skills[0].Description(); d != "Greets people by name, politely" {
				t.Errorf("description %q", d)
			}
			sk, err := s.LoadSkill(ctx, skills[0])
			if err != nil || len(sk.Files) != 2 || sk.Files[0].Path != "SKILL.md" || sk.Files[1].Path != "references/phrases.md" {
				t.Fatalf("LoadSkill greeting: %+v %v", sk, err)
			}
			sk, err = s.LoadSkill(ctx, skills[1])
			if err != nil || len(sk.Files) != 2 || sk.Files[0].Path != "SKILL.md" {
				t.Fatalf("LoadSkill notes (dynamic): %+v %v", sk, err)
			}
			got, err := s.GetSkill(ctx, "skill://greeting/SKILL.md")
			if err != nil || got.Name() != "greeting" || len(got.Files) != 2 {
				t.Fatalf("GetSkill: %+v %v", got, err)
			}
			if _, err := s.GetSkill(ctx, "skill://nope/SKILL.md"); err == nil {
				t.Error("GetSkill of an unknown skill: no error")
			}
		})
	}
	// (That nothing after a failed SKILL.md is read, the conformance
	// scenarios sep-2640-client-verify-* check on the wire.)
	s, _ := demoSession(t, nil, "--skills=tampered")
	ctx := context.Background()
	skills, err := s.ListSkills(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.LoadSkill(ctx, skills[0])
	var ve *protocol.SkillVerifyError
	if !errors.As(err, &ve) || ve.File != "skill://greeting/SKILL.md" || !strings.Contains(err.Error(), "digest") {
		t.Fatalf("tampered: %v", err)
	}
}
