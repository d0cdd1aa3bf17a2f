package cli

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/manager"
)

// logoutDoc is `mcpwire logout --json`.
type logoutDoc struct {
	docHeader
	Server   string `json:"server"`
	LoggedIn bool   `json:"loggedIn"` // tokens were there (and are forgotten now)
	Revoked  bool   `json:"revoked"`  // the server confirmed their revocation
	// Result is what logout did, in words: "nothing to forget",
	// "forgotten" or "revoked and forgotten".
	Result string `json:"result"`
	// RevokeError is why the revocation was not confirmed; "" otherwise.
	RevokeError string `json:"revokeError"`
}

func runLogout(ctx context.Context, inv *invocation, args []string) error {
	fs := newFlagSet("logout")
	pos, err := inv.jsonArgs(fs, args, arity{1, 1, true, "logout takes one NAME (or the http(s):// URL logged in to)"})
	if err != nil {
		return err
	}
	name := pos[0]
	_, home, err := inv.loadConfig()
	if err != nil {
		return err
	}
	if strings.HasPrefix(name, "http://") || strings.HasPrefix(name, "https://") {
		name = manager.URLName(name)
	}
	h, err := manager.OpenHome(home)
	if err != nil {
		return fail(ExitConfig, manager.PhaseConfig, err)
	}
	inv.tokenSecrets(h, name)
	rctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	res, err := h.Logout(rctx, name)
	if err != nil {
		var se *manager.ServerError
		if errors.As(err, &se) {
			err = errors.New(se.Reason())
		}
		return &failure{code: ExitServer, server: name, phase: manager.PhaseAuth, err: err}
	}
	if !res.LoggedIn {
		if inv.json {
			inv.writeJSON(logoutDoc{inv.header(true), name, false, false, "nothing to forget", ""})
			return nil
		}
		inv.say("%s: not logged in; nothing to forget\n", name)
		return nil
	}
	if res.RevokeErr != nil {
		inv.say("warning: %s: the server did not confirm the revocation: %s\n", name, safe.Sanitize(res.RevokeErr.Error()))
	}
	revoked := res.Revoked
	if inv.json {
		doc := logoutDoc{inv.header(true), name, true, revoked, "forgotten", ""}
		if revoked {
			doc.Result = "revoked and forgotten"
		}
		if res.RevokeErr != nil {
			doc.RevokeError = safe.Sanitize(res.RevokeErr.Error())
		}
		inv.writeJSON(doc)
		return nil
	}
	if revoked {
		inv.printf("logged out of %s (tokens revoked and forgotten)\n", name)
	} else {
		inv.printf("logged out of %s (tokens forgotten)\n", name)
	}
	return nil
}
