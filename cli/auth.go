package cli

import (
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/manager"
)

// authStatus is a server's login state for list: "-" for stdio, "not
// needed" for an HTTP server with no token file and no oauth section,
// else what its token file says.
func (inv *invocation) authStatus(home string, s *config.Server) string {
	st, warn := manager.AuthStatus(home, s, time.Now())
	if warn != "" {
		inv.say("warning: %s: %s\n", s.Name, safe.Sanitize(warn))
	}
	inv.tokenSecrets(home, s.Name)
	return st
}

// needsLogin says whether an HTTP server has no usable token when it is
// known to need one.
func (inv *invocation) needsLogin(home string) func(*config.Server) bool {
	return func(s *config.Server) bool {
		inv.tokenSecrets(home, s.Name)
		return manager.NeedsLogin(home, s)
	}
}

// tokenSecrets registers the secrets of a server's token file, so that
// no output of this run can show them.
func (inv *invocation) tokenSecrets(home, name string) {
	inv.addSecrets(manager.TokenSecrets(home, name)...)
}

// authHome is the home folder of the token files: the target's, else the
// one loadConfig would use.
func (inv *invocation) authHome(t *target) string {
	if t.home != "" {
		return t.home
	}
	home := inv.env.Home
	if home == "" {
		h, err := config.Home(inv.env.Getenv)
		if err != nil {
			return ""
		}
		return h
	}
	if !filepath.IsAbs(home) {
		home = filepath.Join(inv.env.Dir, home)
	}
	return home
}

// authClient is the HTTP client of a target: stored tokens are sent (to
// their server only) and refreshed; nil when there is no home folder.
func (inv *invocation) authClient(t *target) *http.Client {
	home := inv.authHome(t)
	if home == "" {
		return nil
	}
	inv.tokenSecrets(home, t.spec.Name)
	return manager.AuthClient(home, t.spec.Name, t.spec.URL)
}

// authFailure fills f for a run that needs a login (exit 4) and reports
// whether err was one; login is what to give to login (a name, or a URL).
// Nothing here opens a browser.
func (inv *invocation) authFailure(f *failure, login string, err error) bool {
	var lr *manager.LoginRequiredError
	var su *manager.StepUpError
	switch {
	case errors.As(err, &su):
		f.code, f.phase = ExitAuth, manager.PhaseAuth
		f.err = fmt.Errorf("the server needs more scope: %s", strings.Join(su.Required, " "))
		f.hints = append(f.hints, fmt.Sprintf("log in again to grant it (the login asks for %s): %s", strings.Join(su.Scopes, " "), inv.suggest("login", login)))
	case errors.As(err, &lr):
		f.code, f.phase = ExitAuth, manager.PhaseAuth
		f.err = lr
		f.hints = append(f.hints, "log in first: "+inv.suggest("login", login))
	case errors.Is(err, manager.ErrLoginRequired):
		f.code, f.phase = ExitAuth, manager.PhaseAuth
		f.hints = append(f.hints, "log in first: "+inv.suggest("login", login))
	default:
		return false
	}
	return true
}
