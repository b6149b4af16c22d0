package lab

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"natslab/broker/command"
	"natslab/broker/text"
)

// A paste of several lines is several commands, as in a shell: the first
// goes into the prompt, the others wait, and nothing runs until Enter (a
// bracketed paste is never run on its own). Enter runs the prompt's line,
// then each waiting line in turn, once the line before is in place (its
// job subscribed) or done, as natslab run does with a script: a pasted
// sub, then pub, delivers. A line break inside quotes (a JSON body over
// several lines) stays one command, the break a space. Ctrl-C drops the
// lines not yet run, and says how many.

// pasteReadyWait bounds how long a pasted line waits for the one before to
// be in place.
const pasteReadyWait = 5 * time.Second

// pastedLines splits pasted text into command lines: at each line break
// (\n, \r\n or the \r a terminal sends), unless a quote is still open,
// tabs as spaces, blank lines left out.
func pastedLines(content string) []string {
	content = strings.ReplaceAll(content, "\r\n", "\n")
	content = strings.ReplaceAll(content, "\r", "\n")
	content = strings.ReplaceAll(content, "\t", " ")
	return commandLines(strings.Split(content, "\n"))
}

// commandLines joins raw lines whose quote runs on into the next, as one
// command. A quote the paste never closes was no body over several lines
// but a slip on its own line: that line is a command alone (refused for
// its quote), and the lines after it are commands of their own, not the
// rest of a quote that swallowed them.
func commandLines(raw []string) []string {
	var lines []string
	open, from := "", 0
	for i, l := range raw {
		if open != "" {
			l = open + " " + l
			open = ""
		} else {
			from = i
		}
		if command.QuoteOpen(l) {
			open = l
			continue
		}
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if open != "" {
		lines = append(lines, strings.TrimSpace(raw[from]))
		lines = append(lines, commandLines(raw[from+1:])...)
	}
	return lines
}

// pasteLines puts a paste's first line into the prompt and holds the
// others until Enter.
func (p *cmdPane) pasteLines(lines []string) tea.Cmd {
	if len(lines) == 0 {
		return nil
	}
	cmd := p.paste(lines[0])
	p.pasted = append(p.pasted, lines[1:]...)
	return cmd
}

// pasteNextMsg says the line before the next pasted one is in place.
type pasteNextMsg struct{}

// afterPlaced runs the next waiting line once pj's job is in place, and
// the open lesson (if any) has looked at what it did: the next line may
// undo it (leaf stop after leaf pub), and a lesson looking only after both
// would never see the step done, where natslab run --lesson, which checks
// after each line, does.
func (p *cmdPane) afterPlaced(pj *paneJob) tea.Cmd {
	check := p.checkLine
	return func() tea.Msg {
		select {
		case <-pj.job.Ready():
		case <-time.After(pasteReadyWait):
		}
		if check != nil {
			check()
		}
		return pasteNextMsg{}
	}
}

// placing is the pane's newest job if it runs in the background and is
// not in place yet (its subscription not made), nil otherwise.
func (p *cmdPane) placing() *paneJob {
	if len(p.jobs) == 0 {
		return nil
	}
	pj := p.jobs[len(p.jobs)-1]
	if !pj.bg {
		return nil
	}
	select {
	case <-pj.job.Ready():
		return nil
	case <-pj.job.Done():
		return nil
	default:
		return pj
	}
}

// continuePaste, right after a line ran (or was submitted empty), starts
// the next pasted line once that line is in place.
func (p *cmdPane) continuePaste(ranJob bool) (tea.Cmd, bool) {
	if len(p.pasted) == 0 {
		p.pasteRunning = false
		return nil, false
	}
	p.pasteRunning = true
	if ranJob {
		return p.afterPlaced(p.jobs[len(p.jobs)-1]), false
	}
	return p.runPasted()
}

// runPasted runs the next pasted line, as if typed. The line before may
// have ended without the pane having said so yet (its jobDoneMsg still on
// its way): its end, an error say, is said first, as a shell would.
func (p *cmdPane) runPasted() (tea.Cmd, bool) {
	if len(p.pasted) == 0 {
		p.pasteRunning = false
		return nil, false
	}
	p.endedJobsDone()
	line := p.pasted[0]
	p.pasted = p.pasted[1:]
	cmd, quit, ran := p.runTyped(line)
	if quit {
		p.dropPasted()
		return cmd, true
	}
	next, _ := p.continuePaste(ran)
	return tea.Batch(cmd, next), false
}

// endedJobsDone says the end of each of the pane's jobs that has ended.
func (p *cmdPane) endedJobsDone() {
	var ended []*paneJob
	for _, pj := range p.jobs {
		select {
		case <-pj.job.Done():
			ended = append(ended, pj)
		default:
		}
	}
	for _, pj := range ended {
		p.jobDone(pj)
	}
}

// dropPasted forgets the lines waiting to run (pasted, or typed after a
// background line not yet in place), saying how many, and reports whether
// there were any.
func (p *cmdPane) dropPasted() bool {
	n := len(p.pasted)
	if n > 0 {
		p.sb.Append(kindNote, fmt.Sprintf("%s not run: ctrl+c dropped %s", text.Count(n, "line", "lines"), text.Plural(n, "it", "them")))
	}
	p.pasted, p.pasteRunning = nil, false
	return n > 0
}

// pasteHint is the row that says what waits, the fullest wording that
// fits the pane: "" when nothing does.
func (p *cmdPane) pasteHint() string {
	n := len(p.pasted)
	if n == 0 {
		return ""
	}
	them := text.Plural(n, "it", "them")
	wordings := []string{
		fmt.Sprintf("%s more pasted after this one: enter runs them in turn · ctrl+c drops %s", text.Count(n, "line", "lines"), them),
		fmt.Sprintf("%s more pasted: enter runs them in turn · ctrl+c drops %s", text.Count(n, "line", "lines"), them),
		fmt.Sprintf("%s more pasted: enter runs, ctrl+c drops", text.Count(n, "line", "lines")),
	}
	if p.pasteRunning {
		wordings = []string{
			fmt.Sprintf("%s to run, each once the one before is in place · ctrl+c drops %s", text.Count(n, "line", "lines"), them),
			fmt.Sprintf("%s to run in turn · ctrl+c drops %s", text.Count(n, "line", "lines"), them),
			fmt.Sprintf("%s to run · ctrl+c drops", text.Count(n, "line", "lines")),
		}
	}
	for _, w := range wordings {
		if text.Width(w) < p.w {
			return w
		}
	}
	return wordings[len(wordings)-1]
}
