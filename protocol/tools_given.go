package protocol

import (
	"encoding/json"

	"github.com/mcpwire/mcpwire/jsonrpc/jsonscan"
)

// GivenTools takes a tools/list result obtained outside this session's
// requests (a session daemon hands the list it holds over with its
// answer, saving a round trip) as if the session had listed it: the
// tools are decoded, screened and their output schemas remembered as
// by ListTools, their icons kept or dropped as a listing's are. raw is
// the result object, {"tools":[…]}, the whole list in one page.
func (s *Session) GivenTools(raw json.RawMessage) ([]*Tool, error) {
	if err := s.require("tools/list", "tools"); err != nil {
		return nil, err
	}
	tools, err := decodeToolsPage(jsonscan.NewCursor(raw), len(raw))
	if err != nil {
		return nil, err
	}
	tools = s.screenTools(tools)
	s.rememberSchemas(tools)
	out := make([]*Tool, 0, len(tools))
	for _, t := range tools {
		s.keepItemIcons(t)
		out = append(out, t)
	}
	return out, nil
}
