package manager

import (
	"context"
	"fmt"

	"github.com/mcpwire/mcpwire/protocol"
)

// A ServerSkill is one skill a server offers (the Skills extension), as
// listed: nothing of it was read.
type ServerSkill struct {
	Server string
	Entry  *protocol.SkillEntry
}

// Skills lists the skills of every connected server that declared the
// Skills extension (skills/list, asked each time). A server whose
// listing fails is left out; the error of the last such failure is
// returned beside the others' skills.
func (m *Manager) Skills(ctx context.Context) ([]ServerSkill, error) {
	servers, err := m.list()
	if err != nil {
		return nil, err
	}
	var out []ServerSkill
	var last error
	for _, s := range servers {
		s.mu.Lock()
		conn := s.conn
		s.mu.Unlock()
		if conn == nil {
			continue
		}
		if ok, _ := conn.SkillsOffered(); !ok {
			continue
		}
		err := s.use(ctx, PhaseList, func(conn *Conn) error {
			skills, err := conn.ListSkills(ctx)
			for _, e := range skills {
				out = append(out, ServerSkill{Server: s.def.Name, Entry: e})
			}
			return err
		})
		if err != nil {
			last = err
		}
	}
	return out, last
}

// GetSkill loads the skill name (or skill:// URI) of server: every file
// read and verified (see protocol.Session.LoadSkill); a file that fails
// is an error naming it (a *ServerError wrapping a
// *protocol.SkillVerifyError), and nothing of the skill is returned.
func (m *Manager) GetSkill(ctx context.Context, server, name string) (*protocol.Skill, error) {
	s, err := m.server(server)
	if err != nil {
		return nil, err
	}
	var sk *protocol.Skill
	err = s.use(ctx, PhaseCall, func(conn *Conn) error {
		skills, err := conn.ListSkills(ctx)
		if err != nil {
			return err
		}
		for _, e := range skills {
			if e.Name() == name || e.URI == name {
				sk, err = conn.LoadSkill(ctx, e)
				return err
			}
		}
		return fmt.Errorf("no skill %q", name)
	})
	return sk, err
}
