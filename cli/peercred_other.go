//go:build !linux && !windows

package cli

import "net"

// checkPeer trusts the folder (0700, ours) and the socket's owner here:
// there is no SO_PEERCRED.
func checkPeer(net.Conn) error { return nil }
