package realcli_test

import (
	"os"
	"testing"

	"natslab/broker/realcli"
)

// The test binary is the program a Child re-runs as the real CLI.
func TestMain(m *testing.M) {
	realcli.RunIfChild()
	os.Exit(m.Run())
}
