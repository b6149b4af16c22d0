package episode

import (
	"os"
	"testing"

	"natslab/broker/realcli"
)

// TestMain lets the test binary be the real CLI's child process, as
// natslab's own main does: lab sessions may run the real CLI.
func TestMain(m *testing.M) {
	realcli.RunIfChild()
	os.Exit(m.Run())
}
