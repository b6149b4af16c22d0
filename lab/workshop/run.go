package workshop

import (
	"context"
	"fmt"
	"io"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"

	"natslab/lab/policy"
)

// Main is `natslab workshop`: it serves the labs until the instructor
// quits (or ctx ends) and returns the process's exit status. On a terminal
// the instructor's view runs there; without one (a service, a script) the
// workshop's log is printed line by line instead.
func Main(ctx context.Context, opts Options, stdin io.Reader, stdout, stderr io.Writer) int {
	w, err := Start(opts)
	if err != nil {
		fmt.Fprintf(stderr, "natslab: %v\n", err)
		return 1
	}
	defer w.Close()
	ctx, stop := context.WithCancel(ctx)
	undone := roomPolicy(opts.Policy, w.opts.Max).Apply(ctx)
	defer func() { stop(); <-undone }()
	if !isTerminal(stdin) || !isTerminal(stdout) {
		return headless(ctx, w, stdout)
	}
	m := NewInstructor(w)
	p := tea.NewProgram(m, append([]tea.ProgramOption{tea.WithContext(ctx), tea.WithInput(stdin), tea.WithOutput(stdout)}, opts.Look.ProgramOptions()...)...)
	if _, err := p.Run(); err != nil && ctx.Err() == nil {
		fmt.Fprintf(stderr, "natslab: %v\n", err)
		return 1
	}
	return 0
}

// HeapPerAttendee is the heap the workshop allows for each lab on top of
// the process's own soft limit.
const HeapPerAttendee = 16 << 20

// roomPolicy is p for a process serving up to max labs: every lab's
// broker and screen share one heap, and the soft limit meant for one lab
// would keep the collector running flat out once a few dozen are in.
func roomPolicy(p policy.Policy, max int) policy.Policy {
	if p.MemoryLimit > 0 {
		p.MemoryLimit += int64(max) * HeapPerAttendee
	}
	return p
}

// headless prints how to join, then every event, until ctx ends.
func headless(ctx context.Context, w *Workshop, out io.Writer) int {
	code, generated := w.Room()
	fmt.Fprintf(out, "natslab workshop on %s: attendees type %s\n", w.Addr(), w.JoinCommand())
	fmt.Fprintf(out, "host key fingerprint: %s\n", w.Fingerprint())
	switch {
	case generated:
		// Made up here: this is the one place the instructor can learn it.
		fmt.Fprintf(out, "room code: %s\n", code)
	case code != "":
		// Output like this often ends up in a log file: the code the
		// instructor chose is not repeated there.
		fmt.Fprintln(out, "room code: the one given with --room")
	default:
		fmt.Fprintln(out, "no room code: only this machine can join")
	}
	var last time.Time
	for {
		ch := w.Changed()
		for _, e := range w.Events(maxEvents) {
			if e.At.After(last) {
				fmt.Fprintf(out, "%s %s\n", e.At.Format("15:04:05"), e.Text)
				last = e.At
			}
		}
		select {
		case <-ctx.Done():
			return 0
		case <-ch:
		}
	}
}

func isTerminal(v any) bool {
	f, ok := v.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(f.Fd())
}
