package lab

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"natslab/broker/brokertest"
)

// The pane is the terminal the real CLI's help is read in: help is wrapped
// at the pane's width, as natscli wraps it in a terminal that wide, so its
// columns are not folded in two.
func TestHelpInThePaneIsWrappedAtItsWidth(t *testing.T) {
	// Built before the harness moves HOME, and with it Go's build cache.
	nats := brokertest.RealCLI(t)
	for _, size := range [][2]int{{64, 24}, {100, 30}} {
		h := newHarness(t, size[0], size[1])
		h.run("stream add --help")
		cmd := exec.Command(nats, "stream", "add", "--help")
		cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "COLUMNS=" + strconv.Itoa(h.m.cmd.w)}
		want, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		if got := h.text(); !strings.Contains(got, strings.TrimRight(string(want), "\n")) {
			t.Errorf("at %dx%d (a pane %d wide): the pane\n%s\nwant the real CLI's help at %d columns:\n%s", size[0], size[1], h.m.cmd.w, got, h.m.cmd.w, want)
		}
		h.close()
	}
}
