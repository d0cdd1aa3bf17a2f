package cli

import (
	"context"
	"errors"
)

func notYet(what string) error {
	return fail(ExitUsage, phaseUsage, errors.New(what+" is not built yet"))
}

func runRead(ctx context.Context, inv *invocation, args []string) error   { return notYet("read") }
func runPrompt(ctx context.Context, inv *invocation, args []string) error { return notYet("prompt") }
func runComplete(ctx context.Context, inv *invocation, args []string) error {
	return notYet("complete")
}
func runLogin(ctx context.Context, inv *invocation, args []string) error  { return notYet("login") }
func runLogout(ctx context.Context, inv *invocation, args []string) error { return notYet("logout") }
func runDoctor(ctx context.Context, inv *invocation, args []string) error { return notYet("doctor") }
