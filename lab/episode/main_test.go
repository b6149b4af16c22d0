package episode

import (
	"flag"
	"os"
	"runtime"
	"strconv"
	"testing"

	"natslab/broker/realcli"
)

// TestMain lets the test binary be the real CLI's child process, as
// natslab's own main does: lab sessions may run the real CLI.
func TestMain(m *testing.M) {
	realcli.RunIfChild()
	flag.Parse()
	waitingTestsAtOnce()
	os.Exit(m.Run())
}

// waitingParallel is how many parallel tests run at once unless -parallel
// says otherwise. This package's parallel tests run lessons through the
// natslab binary and mostly wait on the server's timers (a 30-second ack
// wait running out, a consumer's --timeout, a script's sleep), not on the
// CPU. go test's default of GOMAXPROCS tests at once would leave the cores
// idle while each of those slots waits.
const waitingParallel = 16

// waitingTestsAtOnce raises -test.parallel to waitingParallel when the
// command line did not set it.
func waitingTestsAtOnce() {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		if err := flag.Set("test.parallel", strconv.Itoa(max(waitingParallel, runtime.GOMAXPROCS(0)))); err != nil {
			panic(err)
		}
	}
}
