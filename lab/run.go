package lab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/term"

	"natslab/broker"
	"natslab/lab/cores"
	"natslab/scenes"
)

// ExitNoTerminal is natslab's exit status when it has no terminal to draw on.
const ExitNoTerminal = 2

// NoTerminalMessage says what to use instead of the screen.
const NoTerminalMessage = "natslab: the lab needs a terminal (stdin and stdout must both be one); without one, use natslab run FILE (or -) to run commands, or natslab serve to run the server alone"

// Main is `natslab` with no sub-command: it opens the deployment cfg
// describes, runs the lab on the terminal until the user quits, and
// returns the process's exit status. Nothing is printed to the terminal the
// lab draws on: the server's log stays in its buffer (the log pane shows it).
// Each setup function runs on the new Model before the screen starts (to
// add verbs; OpenLesson(id) opens a lesson).
func Main(ctx context.Context, cfg broker.Config, stdin io.Reader, stdout, stderr io.Writer, setup ...func(*Model)) int {
	if !isTerminal(stdin) || !isTerminal(stdout) {
		fmt.Fprintln(stderr, NoTerminalMessage)
		return ExitNoTerminal
	}
	// A cluster takes seconds to elect its leaders: say so on the
	// terminal, before the screen is up, rather than leave it blank.
	cfg.Starting = func(line string) { fmt.Fprintln(stdout, "natslab: "+line) }
	dep, err := broker.Open(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "natslab: %v\n", broker.RedactError(err))
		return 1
	}
	defer dep.Close()
	m := New(Options{Deployment: dep, StoreDir: cfg.StoreDir(), Context: ctx, Lessons: true})
	defer m.Close()
	for _, f := range setup {
		f(m)
	}
	cores.Govern(ctx) // one core while the lab is quiet, all of them once it is busy
	if err := Run(ctx, m, stdin, stdout); err != nil {
		fmt.Fprintf(stderr, "natslab: %v\n", broker.RedactError(err))
		return 1
	}
	return 0
}

// Run runs the lab's program on a terminal until the user quits (or ctx
// ends). The caller closes the model and the deployment.
func Run(ctx context.Context, m *Model, in io.Reader, out io.Writer) error {
	opts := append([]tea.ProgramOption{tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(out), tea.WithFPS(renderFPS)}, ProgramOptions(os.Environ())...)
	_, err := tea.NewProgram(m, opts...).Run()
	if err != nil && ctx.Err() != nil && errors.Is(err, tea.ErrProgramKilled) {
		return nil // asked to stop (SIGTERM): not a failure
	}
	return err
}

// renderFPS caps Bubble Tea's renderer. Its ticker runs at this rate even
// when nothing changes, and each wake-up costs: idle, 60 fps measured 1.4%
// of a core, 20 fps 0.55–0.7%, 15 fps 0.42%, 12 fps 0.30%, nearly all of it
// the renderer waking; 10 is the rate now. It is the scenes' frame rate, smooth enough for
// typing, coalesced floods of output and moving glyphs.
const renderFPS = scenes.FramesPerSecond

// ProgramOptions are the options the lab's program needs from its
// environment: with NO_COLOR set (to anything, as no-color.org says) the
// screen keeps bold, faint and reverse but drops every colour, scenes' and
// lessons' included.
func ProgramOptions(environ []string) []tea.ProgramOption {
	for _, kv := range environ {
		if len(kv) > len("NO_COLOR=") && kv[:len("NO_COLOR=")] == "NO_COLOR=" {
			return []tea.ProgramOption{tea.WithColorProfile(colorprofile.Ascii)}
		}
	}
	return nil
}

func isTerminal(v any) bool {
	f, ok := v.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(f.Fd())
}
