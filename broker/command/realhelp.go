package command

import (
	"io"
	"strings"

	"github.com/choria-io/fisk"

	"natslab/broker/realcli"
)

// Help, and the usage printed with a line's refusal, are the real CLI's
// own words for every command, the lab's included: rendered from the real
// CLI's grammar in the lab's process (realcli.Answer), byte for byte, with
// no child to start and no listener needed. The lab's own description of a
// command it runs itself follows as a note.

// defaultHelpWidth is the width natscli wraps its help at when its stdout
// is no terminal, as when the lab runs it in a child.
const defaultHelpWidth = 80

// SetHelpWidth sets the width the real CLI's help is wrapped at: the
// width of the terminal the lines are read in, as natscli wraps at its
// terminal's width (natslab run: its stdout's, or 80 when that is no
// terminal; the lab's pane: the pane's own width, so that the help's two
// columns fit it as they fit a terminal that wide, instead of folding
// each 80-column line in two). 0 or less is 80.
func (s *Session) SetHelpWidth(w int) { s.helpWidth.Store(int64(w)) }

// WithHelpWidth is SetHelpWidth for a new session.
func WithHelpWidth(w int) Option { return func(s *Session) { s.SetHelpWidth(w) } }

// HelpWidth is the width set by SetHelpWidth.
func (s *Session) HelpWidth() int {
	if w := int(s.helpWidth.Load()); w > 0 {
		return w
	}
	return defaultHelpWidth
}

// realAnswer prints the real CLI's answer to words when it answers from
// its grammar alone (see realcli.Answer): its help, or its refusal with
// its usage, each on the stream the real CLI prints it on. ok is false
// when the real CLI would run the line; else see exitErr.
func (c *Call) realAnswer(words []string) (p realcli.Printed, ok bool) {
	p, ok = realcli.Answer(words, c.S.HelpWidth())
	if !ok {
		return p, false
	}
	// fisk writes the error before the usage.
	_, _ = io.WriteString(c.Err, p.Stderr)
	_, _ = io.WriteString(c.Out, p.Stdout)
	return p, true
}

// realRefusal prints what the real CLI prints when the action of the
// call's line returns err, a fisk error its main reports with the
// command's usage (see realcli.Refuse), and returns the failure it has
// reported; ok is false when it cannot say.
func (c *Call) realRefusal(err error) (_ error, ok bool) {
	words, serr := SplitWords(c.Job.Line)
	if serr != nil {
		return nil, false
	}
	p, ok := realcli.Refuse(words, err, c.S.HelpWidth())
	if !ok {
		return nil, false
	}
	_, _ = io.WriteString(c.Err, p.Stderr)
	_, _ = io.WriteString(c.Out, p.Stdout)
	return exitErr(p), true
}

// exitErr is nil when the real CLI exited 0, else the failure it has
// reported itself (see Reported).
func exitErr(p realcli.Printed) error {
	if p.Code == 0 {
		return nil
	}
	return &answered{exit: &realcli.ExitError{Code: p.Code}, line: lastLine(p.Stderr)}
}

// answered is a failure the real CLI has reported (see Reported), whose
// words are its error line: what a view of the failure alone shows (a
// workshop's table of attendees).
type answered struct {
	exit *realcli.ExitError
	line string
}

func (e *answered) Error() string { return e.line }
func (e *answered) Unwrap() error { return e.exit }

// lastLine is the last line of s.
func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// labSummary is the lab's own description of the command words name
// (built on app, the lab's grammar), as a note for after the real CLI's
// help: "stream add: Create a stream". "" when the lab has none, or says
// what the real CLI says.
func labSummary(app *fisk.Application, words []string) string {
	ctx, _ := app.ParseContext(words)
	if ctx == nil || ctx.SelectedCommand == nil {
		return ""
	}
	m := ctx.SelectedCommand.Model()
	lab, _, _ := strings.Cut(m.Help, "\n")
	var real string
	if l := realcli.Parse(words); len(l.Path) > 0 {
		real, _, _ = strings.Cut(l.Path[len(l.Path)-1].Help, "\n")
	}
	if lab == "" || lab == real {
		return ""
	}
	return m.FullCommand + ": " + lab
}

// nativeSummary is labSummary for a line that starts with one of the lab's
// own commands; "" for any other.
func (c *Call) nativeSummary(words []string) string {
	if len(words) == 0 {
		return ""
	}
	cmd, ok := natsCommands[words[0]]
	if !ok {
		return ""
	}
	probe := &Call{Ctx: c.Ctx, S: c.S, Out: io.Discard, Err: io.Discard, Job: &Job{}, parseOnly: true}
	app := newApp(probe)
	cmd.build(app, probe)
	return labSummary(app, words)
}
