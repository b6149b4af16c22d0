package realcli

import (
	"log"
	"os"
	"strconv"
	"sync/atomic"

	"github.com/choria-io/fisk"
	"github.com/nats-io/natscli/plugins"
)

// ChildArg, as natslab's first argument, makes it the real CLI: main routes
// it to Main before parsing any flag of its own. It is nobody's to type.
const ChildArg = "__nats-cli"

// parentFDVar names the descriptor on which the child notices its parent
// is gone: the read end of a pipe only the parent writes to, so it reads
// end-of-file the moment the parent exits, however it dies.
const parentFDVar = "NATSLAB_CLI_PARENT_FD"

// IsChild reports whether a process's arguments (os.Args) ask for the real CLI.
func IsChild(args []string) bool { return len(args) > 1 && args[1] == ChildArg }

// RunIfChild makes this process the real CLI, and exits, when it was
// started as one (see ChildArg); otherwise it returns at once. natslab's
// main calls it first, and so does the TestMain of every package whose
// tests run the real CLI through a command.Session (the test binary is then
// the executable that is re-run).
func RunIfChild() {
	if IsChild(os.Args) {
		os.Exit(Main(os.Args[2:]))
	}
	routed.Store(true)
}

// routed records that this process's main (or TestMain) routes ChildArg:
// only then may it re-run itself as the real CLI. A test binary that does
// not would run its own tests again instead, and again.
var routed atomic.Bool

// Main is the child: the real CLI run on args (what follows `nats` on its
// command line). It returns the exit status; the real CLI itself exits the
// process on errors, as it does standalone.
func Main(args []string) int {
	watchParent()
	args = unmaskSecrets(args)
	// The real CLI's program is called nats: fisk's package-level helpers
	// (FatalIfError…) name it in error lines, from os.Args[0].
	os.Args[0] = "nats"
	fisk.CommandLine.Name = "nats"
	ncli, _, err := newApp(true)
	if err != nil {
		return 1
	}
	ncli.UsageWriter(os.Stdout)
	log.SetFlags(log.Ltime)
	plugins.AddToApp(ncli)
	ncli.MustParseWithUsage(args)
	return 0
}

// watchParent exits the child when the lab that started it is gone, so
// no real CLI outlives natslab, even one killed with SIGKILL. Until then it
// answers the lab's questions on the same pipe (see conns.go).
func watchParent() {
	fd, err := strconv.Atoi(os.Getenv(parentFDVar))
	if err != nil || fd < 3 {
		return
	}
	os.Unsetenv(parentFDVar)
	closeOnExec(fd)
	f := os.NewFile(uintptr(fd), "natslab")
	if f == nil {
		return
	}
	go func() {
		answerQuestions(f)
		os.Exit(1)
	}()
}
