package cli

import (
	"errors"
)

func notYet(what string) error {
	return fail(ExitUsage, phaseUsage, errors.New(what+" is not built yet"))
}
