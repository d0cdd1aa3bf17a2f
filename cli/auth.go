package cli

import (
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/manager"
)

// openHome is the manager's Home of the folder home (the one loadConfig
// returned); nil for "".
func openHome(home string) *manager.Home {
	h, err := manager.OpenHome(home)
	if err != nil {
		return nil
	}
	return h
}

// authState is a server's login state for list, with a warning about its
// token file said once.
func (inv *invocation) authState(h *manager.Home, s *config.Server) manager.AuthState {
	st := h.AuthFor(s)
	if st.Warning != "" {
		inv.say("warning: %s: %s\n", s.Name, safe.Sanitize(st.Warning))
	}
	inv.tokenSecrets(h, s.Name)
	return st.State
}

// needsLogin says whether an HTTP server has no usable token when it is
// known to need one.
func (inv *invocation) needsLogin(h *manager.Home) func(*config.Server) bool {
	return func(s *config.Server) bool {
		inv.tokenSecrets(h, s.Name)
		return h.NeedsLogin(s)
	}
}

// tokenSecrets registers the secrets of a server's token file, so that
// no output of this run can show them.
func (inv *invocation) tokenSecrets(h *manager.Home, name string) {
	inv.addSecrets(h.Secrets(name)...)
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
	h := openHome(inv.authHome(t))
	if h == nil {
		return nil
	}
	inv.tokenSecrets(h, t.spec.Name)
	if t.server != nil && t.server.TLS != nil {
		tc, err := manager.TLSConfig(t.server)
		if err != nil {
			return manager.ErrorClient(fmt.Errorf("server %q: %v", t.server.Name, err))
		}
		return manager.WithHeadersHelper(h.HTTPClientTLS(t.spec.Name, t.spec.URL, tc), t.server)
	}
	return manager.WithHeadersHelper(h.HTTPClient(t.spec.Name, t.spec.URL), t.server)
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

// eraCache is the era cache of h; nil (none) without a home.
func eraCache(h *manager.Home) *manager.EraCache {
	if h == nil {
		return nil
	}
	return h.EraCache()
}
