package cli

import (
	"context"
	"errors"
)

func notYet(what string) error {
	return fail(ExitUsage, phaseUsage, errors.New(what+" is not built yet"))
}

func runLogin(ctx context.Context, inv *invocation, args []string) error  { return notYet("login") }
func runLogout(ctx context.Context, inv *invocation, args []string) error { return notYet("logout") }
func runDoctor(ctx context.Context, inv *invocation, args []string) error { return notYet("doctor") }
