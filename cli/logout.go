package cli

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/manager"
)

func runLogout(ctx context.Context, inv *invocation, args []string) error {
	fs := newFlagSet("logout")
	fs.BoolVar(&inv.json, "json", false, "print one JSON document on stdout")
	pos, _, hasTail, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if hasTail || len(pos) != 1 {
		return usageErr("logout takes one NAME (or the http(s):// URL logged in to)")
	}
	name := pos[0]
	_, home, err := inv.loadConfig()
	if err != nil {
		return err
	}
	if strings.HasPrefix(name, "http://") || strings.HasPrefix(name, "https://") {
		name = urlName(name)
	}
	store := manager.TokenStore(home)
	rec, _, lerr := store.Load(name)
	if rec != nil {
		if rec.Token != nil {
			inv.addSecrets(rec.Token.AccessToken, rec.Token.RefreshToken)
		}
		if rec.Client != nil {
			inv.addSecrets(rec.Client.ClientSecret)
		}
	}
	_ = manager.ClearStepUp(home, name)
	if rec == nil && lerr == nil {
		if inv.json {
			inv.writeJSON(map[string]any{"schema": 1, "ok": true, "server": name, "loggedIn": false})
			return nil
		}
		inv.eprintf("mcpwire: %s: not logged in; nothing to forget\n", name)
		return nil
	}
	rctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	revoked := rec != nil && rec.RevocationEndpoint != ""
	err = manager.Logout(rctx, client, store, name)
	if err != nil && rec != nil {
		if r2, _, e2 := store.Load(name); e2 == nil && r2 == nil {
			// The file is gone; only the revocation failed.
			inv.eprintf("mcpwire: warning: %s: the server did not confirm the revocation: %s\n", name, clean(err.Error()))
			revoked = false
			err = nil
		}
	}
	if err != nil {
		return &failure{code: ExitServer, server: name, phase: manager.PhaseAuth, err: err}
	}
	if inv.json {
		inv.writeJSON(map[string]any{"schema": 1, "ok": true, "server": name, "loggedIn": true, "revoked": revoked})
		return nil
	}
	if revoked {
		inv.printf("logged out of %s (tokens revoked and forgotten)\n", name)
	} else {
		inv.printf("logged out of %s (tokens forgotten)\n", name)
	}
	return nil
}
