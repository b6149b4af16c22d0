package lab

import (
	"os"
	"testing"

	"natslab/broker/realcli"
)

// TestMain lets the test binary be the real CLI's child process, as
// natslab's own main does: the pane runs the real CLI's commands (leaf
// sub, object ls …) that way.
func TestMain(m *testing.M) {
	realcli.RunIfChild()
	os.Exit(m.Run())
}
