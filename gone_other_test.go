//go:build !linux

package main

import (
	"testing"
	"time"
)

// waitGone needs Linux's pidfd to be told when a process that is not our
// child ends.
func waitGone(t *testing.T, pid int, within time.Duration) {
	t.Skip("waiting for another process to end needs Linux (pidfd)")
}
