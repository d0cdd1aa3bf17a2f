//go:build !linux

package proctest

import "testing"

func check(t testing.TB) {}
