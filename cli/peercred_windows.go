package cli

import (
	"errors"
	"net"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// checkPeer refuses a pipe whose other end is a process of another user
// (its pid's token, as SO_PEERCRED does on Linux).
func checkPeer(c net.Conn) error {
	err := safe.CheckPipePeer(c)
	var pe *safe.PipePeerError
	if errors.As(err, &pe) {
		return &untrustedError{"(peer)", pe.Error(), false}
	}
	return err
}
