package streamlog

import (
	"os"
	"testing"

	"natslab/broker/realcli"
)

// TestMain lets the test binary be the real CLI's child process, as
// natslab's own main does: lesson 29's stream add --mirror and --source
// run the real CLI.
func TestMain(m *testing.M) {
	realcli.RunIfChild()
	os.Exit(m.Run())
}
