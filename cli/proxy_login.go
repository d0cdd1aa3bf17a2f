package cli

import (
	"context"
	"flag"
	"net/http"

	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/manager"
)

// proxyLogin is how proxy logs in by itself, on first use and when the
// server refuses its token in the middle of the host's session: login's
// flow, every prompt on stderr (stdout is the host's MCP stream) and
// stdin (the host's) never read.
type proxyLogin struct {
	lf loginFlags
}

// register adds login's flags that apply to proxy.
func (pl *proxyLogin) register(fs *flag.FlagSet) {
	fs.BoolVar(&pl.lf.noBrowser, "no-browser", false, "log in without opening a browser: a device login when the server offers it, else print the address (on stderr) to open in a browser on this machine")
	fs.BoolVar(&pl.lf.device, "device", false, "log in with a code to enter on any device (RFC 8628); an error when the server does not offer it")
	fs.BoolVar(&pl.lf.noDevice, "no-device", false, "never log in with a device code")
	fs.DurationVar(&pl.lf.timeout, "login-timeout", manager.DefaultLoginTimeout, "how long a login waits for the browser, or for the approval of a device code")
}

// arm makes t's HTTP client log in when the server asks for it, and
// logs in before the first connection when the home says one is needed
// (a configured OAuth server with no usable token).
func (pl *proxyLogin) arm(ctx context.Context, inv *invocation, t *target) error {
	if err := pl.lf.checkDevice(); err != nil {
		return err
	}
	if t.spec.Transport == "stdio" {
		return nil
	}
	t.login = func(ctx context.Context) error { return pl.login(ctx, inv, t, true) }
	if h := openHome(inv.authHome(t)); h != nil && t.server != nil && h.NeedsLogin(t.server) {
		if err := pl.login(ctx, inv, t, false); err != nil {
			return inv.loginFailure(t.spec.Name, t.loginWords(), err)
		}
	}
	return nil
}

// login logs in to t's server; force: although the home holds a token
// that looks usable (the server refused it).
func (pl *proxyLogin) login(ctx context.Context, inv *invocation, t *target, force bool) error {
	arg := t.spec.Name
	if t.server == nil {
		arg = t.spec.URL
	}
	lf := pl.lf
	lf.force = force
	opts, h, err := inv.loginOptions(arg, &lf)
	if err != nil {
		return err
	}
	name := safe.Sanitize(t.spec.Name)
	inv.say("proxy: %s needs a login\n", name)
	b := &browser{inv: inv, noBrowser: lf.noBrowser, noPaste: true, timeout: lf.timeout, server: t.spec.Name}
	if _, err := inv.loginWith(ctx, h, opts, &lf, b); err != nil {
		inv.say("proxy: the login to %s failed: %s\n", name, safe.Sanitize(err.Error()))
		return err
	}
	inv.say("proxy: logged in to %s\n", name)
	return nil
}

// reloginClient is t's HTTP client when proxy logs in by itself.
func (inv *invocation) reloginClient(ctx context.Context, t *target) *http.Client {
	return manager.ReloginClient(ctx, func() *http.Client { return inv.authClient(t) }, t.login)
}
