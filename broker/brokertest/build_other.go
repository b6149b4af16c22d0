//go:build !unix

package brokertest

// running cannot tell here: every process counts as running, so no
// directory is removed.
func running(int) bool { return true }
