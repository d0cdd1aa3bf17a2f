package cli

import (
	"context"
	"errors"
)

func notYet(what string) error {
	return fail(ExitUsage, phaseUsage, errors.New(what+" is not built yet"))
}

func runList(ctx context.Context, inv *invocation, args []string) error   { return notYet("list") }
func runRead(ctx context.Context, inv *invocation, args []string) error   { return notYet("read") }
func runPrompt(ctx context.Context, inv *invocation, args []string) error { return notYet("prompt") }
func runComplete(ctx context.Context, inv *invocation, args []string) error {
	return notYet("complete")
}
func runLogin(ctx context.Context, inv *invocation, args []string) error   { return notYet("login") }
func runLogout(ctx context.Context, inv *invocation, args []string) error  { return notYet("logout") }
func runAdd(ctx context.Context, inv *invocation, args []string) error     { return notYet("add") }
func runGet(ctx context.Context, inv *invocation, args []string) error     { return notYet("get") }
func runRemove(ctx context.Context, inv *invocation, args []string) error  { return notYet("remove") }
func runEnable(ctx context.Context, inv *invocation, args []string) error  { return notYet("enable") }
func runDisable(ctx context.Context, inv *invocation, args []string) error { return notYet("disable") }
func runApprove(ctx context.Context, inv *invocation, args []string) error { return notYet("approve") }
func runRevoke(ctx context.Context, inv *invocation, args []string) error  { return notYet("revoke") }
func runDoctor(ctx context.Context, inv *invocation, args []string) error  { return notYet("doctor") }
func (inv *invocation) configuredTarget(ctx context.Context, name string) (*target, error) {
	return nil, notYet("configured servers")
}
