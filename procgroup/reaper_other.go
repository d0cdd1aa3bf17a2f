//go:build !linux

package procgroup

import "time"

func becomeSubreaper() (bool, error) { return false, nil }

func (r *Reaper) sweep(g *Group, termWait time.Duration, hurry <-chan struct{}) {}
