package config

import (
	"errors"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// checkURL applies the server URL rules (safe.CheckServerURL): https, or
// plain http to localhost, 127.0.0.0/8 or [::1] only unless allowHTTP; no
// user name or password. The error never quotes the URL (its query may
// hold a token): it is only the rule's reason.
func checkURL(raw string, allowHTTP bool) error {
	err := safe.CheckServerURL(raw, allowHTTP)
	var ue *safe.URLError
	if errors.As(err, &ue) {
		return errors.New(ue.Reason)
	}
	return err
}
