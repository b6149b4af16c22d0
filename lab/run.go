package lab

import (
	"context"
	"errors"
	"fmt"
	"io"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"

	"natslab/broker"
	"natslab/lab/policy"
	"natslab/scenes"
)

// ExitNoTerminal is natslab's exit status when it has no terminal to draw on.
const ExitNoTerminal = 2

// NoTerminalMessage says what to use instead of the screen.
const NoTerminalMessage = "natslab: the lab needs a terminal (stdin and stdout must both be one); without one, use natslab run FILE (or -) to run commands, or natslab serve to run the server alone"

// MainOptions are what Main runs with: the deployment, the decisions taken
// for the process and the terminal (package policy), and the terminal.
type MainOptions struct {
	Broker broker.Config
	// Policy is applied for as long as the lab runs: one lab, one process.
	Policy policy.Policy
	// Look is the terminal's (policy.LookFrom(os.Environ())).
	Look   policy.Look
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Setup runs on the new Model before the screen starts (to add verbs;
	// OpenLesson(id) opens a lesson).
	Setup []func(*Model)
}

// Main is `natslab` with no sub-command: it opens the deployment o.Broker
// describes, runs the lab on the terminal until the user quits, and
// returns the process's exit status. Nothing is printed to the terminal the
// lab draws on: the server's log stays in its buffer (the log pane shows it).
func Main(ctx context.Context, o MainOptions) int {
	if !isTerminal(o.Stdin) || !isTerminal(o.Stdout) {
		fmt.Fprintln(o.Stderr, NoTerminalMessage)
		return ExitNoTerminal
	}
	// A cluster takes seconds to elect its leaders: say so on the
	// terminal, before the screen is up, rather than leave it blank.
	cfg := o.Broker
	cfg.Starting = func(line string) { fmt.Fprintln(o.Stdout, "natslab: "+line) }
	dep, err := broker.Open(cfg)
	if err != nil {
		fmt.Fprintf(o.Stderr, "natslab: %v\n", broker.RedactError(err))
		return 1
	}
	defer dep.Close()
	m := New(Options{Deployment: dep, StoreDir: o.Broker.StoreDir(), Context: ctx, Lessons: true, Look: o.Look})
	defer m.Close()
	for _, f := range o.Setup {
		f(m)
	}
	ctx, stop := context.WithCancel(ctx)
	undone := o.Policy.Apply(ctx)
	defer func() { stop(); <-undone }() // the runtime as it was before Main returns
	if err := Run(ctx, m, o.Stdin, o.Stdout); err != nil {
		fmt.Fprintf(o.Stderr, "natslab: %v\n", broker.RedactError(err))
		return 1
	}
	return 0
}

// Run runs the lab's program on a terminal until the user quits (or ctx
// ends). The caller closes the model and the deployment.
func Run(ctx context.Context, m *Model, in io.Reader, out io.Writer) error {
	opts := append([]tea.ProgramOption{tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(out), tea.WithFPS(renderFPS)}, m.opts.Look.ProgramOptions()...)
	_, err := tea.NewProgram(m, opts...).Run()
	if err != nil && ctx.Err() != nil && errors.Is(err, tea.ErrProgramKilled) {
		return nil // asked to stop (SIGTERM): not a failure
	}
	return err
}

// renderFPS caps Bubble Tea's renderer. Its ticker wakes the program at
// this rate even when nothing changes, and every wake-up costs CPU while the
// learner only reads, so it runs no faster than anything on screen moves:
// the scenes' frame rate, which is also smooth enough for typing and for
// coalesced floods of output.
const renderFPS = scenes.FramesPerSecond

func isTerminal(v any) bool {
	f, ok := v.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(f.Fd())
}
