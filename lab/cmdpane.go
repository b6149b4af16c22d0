package lab

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"natslab/broker/command"
	"natslab/broker/text"
)

// cmdPane is the command pane: scrollback above one input line. Every line
// typed runs as a job, so the prompt stays usable while sub, reply or
// kv watch run; output comes back through the bounded scrollback.
type cmdPane struct {
	keys promptKeys
	// quit ends the program (enter on quit or exit, ctrl+d on an empty line).
	quit func() tea.Cmd
	// checkLine, where set, waits for the open lesson to look at what a
	// line did before the next waiting line runs (afterPlaced).
	checkLine func()
	st        *Styles
	sess      *command.Session
	ctx       context.Context
	sb        *Scrollback
	in        textinput.Model
	hist      *history
	w, h      int

	follow bool
	anchor uint64 // absolute index of the bottom line shown while scrolled back

	hint     string   // one transient line above the input
	help     []string // the key help, shown over the scrollback, or nil
	confirms []*confirmReq
	jobs     []*paneJob

	// pasted are the lines of a paste still to run, and pasteRunning says
	// Enter has started them (see pastelines.go).
	pasted       []string
	pasteRunning bool

	completeSeq int

	// The line being edited (see prompt.go).
	pending    []byte // typed characters not yet in the line
	applyArmed bool   // a typedMsg is on its way
	inBytes    int    // the line's length
	inVersion  uint64 // bumped at every edit: the prompt row's cache key
	cut        bool   // the line reached the limit, and the hint says so
	secretSaid bool   // the pane has said once that lines with secrets stay out of the history
	shortHelp  string // key help shown in the rule while following
	sceneKeys  string // the scene's keys, shown instead of the prompt while it has them

	cache struct {
		valid     bool
		version   uint64
		anchor    uint64
		follow    bool
		w, h      int
		rows      []string
		title     string
		helpShown bool
		shortHelp string
	}
	// input caches the prompt row: drawing the text input costs as much as
	// the rest of the pane, and scenes redraw the screen many times a second
	// while the prompt sits still.
	input struct {
		key     inputKey
		row     string
		cursorX int
		used    bool
	}
}

// inputKey is everything the prompt row is drawn from: the line by its
// version, not its text, so that a long line costs nothing to compare.
type inputKey struct {
	version     uint64
	placeholder string
	w, inputW   int
	focused     bool
}

// promptText is the input's prompt.
const promptText = "❯ "

// paneJob is a job started from the pane.
type paneJob struct {
	job     *command.Job
	src     *Source
	out     *PaneWriter
	err     *PaneWriter
	note    *PaneWriter
	bg      bool // started with a trailing &: Ctrl-C leaves it alone
	stopped bool // stopped with Ctrl-C
	ended   bool // its end is said (jobDone)
}

// confirmReq is a command's question waiting for y/N.
type confirmReq struct {
	question string
	reply    chan bool
}

type jobDoneMsg struct{ pj *paneJob }

type completionMsg struct {
	seq    int
	line   string
	pos    int
	before string
	after  string
	c      command.Completion
}

func newCmdPane(ctx context.Context, st *Styles, sess *command.Session, sb *Scrollback, hist *history) *cmdPane {
	in := textinput.New()
	in.Prompt = promptText
	in.SetVirtualCursor(false) // the terminal's own cursor: no blink ticks
	in.SetStyles(st.Input)
	in.Focus()
	// ↑/↓ are history here, not the input's suggestion keys.
	in.KeyMap.NextSuggestion.SetEnabled(false)
	in.KeyMap.PrevSuggestion.SetEnabled(false)
	in.KeyMap.AcceptSuggestion.SetEnabled(false)
	return &cmdPane{st: st, keys: defaultPromptKeys(), quit: func() tea.Cmd { return tea.Quit }, sess: sess, ctx: ctx, sb: sb, in: in, hist: hist, follow: true}
}

// Update handles the keys the root leaves to the prompt: running, editing
// and recalling the line, completing it, scrolling the output.
func (p *cmdPane) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	switch {
	case key.Matches(k, p.keys.PageUp):
		p.scroll(-p.page())
	case key.Matches(k, p.keys.PageDown):
		p.scroll(p.page())
	case key.Matches(k, p.keys.LineUp):
		p.scroll(-1)
	case key.Matches(k, p.keys.LineDown):
		p.scroll(1)
	case key.Matches(k, p.keys.ClearScreen):
		p.sb.Clear()
	case key.Matches(k, p.keys.Run):
		cmd, quit := p.submit()
		if quit {
			return p.quit()
		}
		return cmd
	case key.Matches(k, p.keys.HistoryPrev):
		p.historyStep(-1)
	case key.Matches(k, p.keys.HistoryNext):
		p.historyStep(1)
	case key.Matches(k, p.keys.Complete):
		return p.complete()
	case key.Matches(k, p.keys.Quit) && p.Empty():
		return p.quit()
	case typedText(k):
		return p.typeText(k)
	default:
		return p.editKey(k)
	}
	return nil
}

// View draws the pane (see Lines).
func (p *cmdPane) View() string { return strings.Join(p.Lines(), "\n") }

// SetSize implements Component.
func (p *cmdPane) SetSize(w, h int) {
	p.w, p.h = w, h
	// The pane is the terminal the real CLI's help is read in: natscli
	// wraps its help at its terminal's width, so the help's two columns
	// fit the pane as they would fit a terminal this wide, rather than
	// 80-column lines each folding in two in a narrower pane.
	if p.sess != nil {
		p.sess.SetHelpWidth(w)
	}
	p.in.SetWidth(max(w-ansi.StringWidth(promptText)-1, 1))
}

// Empty reports whether nothing is typed.
func (p *cmdPane) Empty() bool { return p.inBytes == 0 && len(p.pending) == 0 }

// submit runs the typed line. quit is true for quit and exit.
func (p *cmdPane) submit() (cmd tea.Cmd, quit bool) {
	p.applyTyped()
	line := strings.TrimSpace(p.in.Value())
	p.setLine("", 0)
	if p.pasteRunning {
		// Pasted lines are running: this one takes its turn after them.
		if line != "" {
			p.pasted = append(p.pasted, line)
		}
		return nil, false
	}
	if pj := p.placing(); pj != nil && line != "" {
		// A background line before it is not in place yet: this one
		// waits for it, as a pasted line would, so that a sub and then a
		// pub typed quickly deliver.
		p.pasted = append(p.pasted, line)
		p.pasteRunning = true
		return p.afterPlaced(pj), false
	}
	cmd, quit, ran := p.runTyped(line)
	if quit {
		p.dropPasted()
		return cmd, true
	}
	next, quit := p.continuePaste(ran)
	return tea.Batch(cmd, next), quit
}

// runTyped runs a line the learner gave, typed or pasted: kept in the
// history (unless it carries a secret), echoed, started. ran says it
// started a job.
func (p *cmdPane) runTyped(line string) (cmd tea.Cmd, quit, ran bool) {
	secret := p.hist.add(line)
	before := len(p.jobs)
	cmd, quit = p.runLine(line)
	if secret != "" && !p.secretSaid {
		p.secretSaid = true
		p.sb.Append(kindNote, "Kept out of the history (the line carries a secret: "+secret+"): lines with secrets are never stored, so ↑ will not bring it back.")
	}
	return cmd, quit, len(p.jobs) > before
}

// runLine runs a line as if typed: echoed, then started as a job.
func (p *cmdPane) runLine(line string) (cmd tea.Cmd, quit bool) {
	p.hint = ""
	p.follow = true
	if line == "" {
		return nil, false
	}
	p.sb.Append(kindEcho, promptText+command.RedactLine(line))
	if words, err := command.SplitWords(line); err == nil && len(words) == 1 {
		switch words[0] {
		case "clear":
			p.sb.Clear()
			return nil, false
		case "quit", "exit":
			return nil, true
		}
	}
	run, bg := command.SplitBackground(line)
	src := &Source{}
	p.sb.Expect(src)
	pj := &paneJob{src: src, out: p.sb.WriterFrom(src, kindOut), err: p.sb.WriterFrom(src, kindStatus), note: p.sb.WriterFrom(src, kindNote), bg: bg}
	pj.job = p.sess.StartStreams(p.ctx, run, command.Streams{Out: pj.out, Err: pj.err, Note: pj.note})
	src.SetJob(pj.job)
	p.jobs = append(p.jobs, pj)
	return waitJob(pj), false
}

// StartBackground runs line as a background job the pane did not start
// (a lesson's setup): its output comes to the pane, led by a note naming
// the job, it shows among the running jobs, and stop N ends it; Ctrl-C
// leaves it alone. Safe from any goroutine.
func (p *cmdPane) StartBackground(ctx context.Context, line string) *command.Job {
	src := &Source{}
	out, errw, note := p.sb.WriterFrom(src, kindOut), p.sb.WriterFrom(src, kindStatus), p.sb.WriterFrom(src, kindNote)
	j := p.sess.StartStreams(ctx, line, command.Streams{Out: out, Err: errw, Note: note})
	src.SetJob(j)
	go func() {
		<-j.Done()
		_, _, _ = out.Close(), errw.Close(), note.Close()
		if err := j.Err(); err != nil {
			command.ReportError(command.Streams{Out: p.sb.WriterFrom(src, kindOut), Err: p.sb.WriterFrom(src, kindError), Note: p.sb.WriterFrom(src, kindNote), Lab: p.sb.WriterFrom(src, kindNote)}, err)
		}
	}()
	return j
}

// running lists the jobs to show as running: the session's numbered jobs
// (whoever started them), then the pane's unnumbered ones (a lesson
// opening).
func (p *cmdPane) running() []*command.Job {
	jobs := p.sess.Jobs()
	for _, pj := range p.jobs {
		if pj.job.ID == 0 {
			jobs = append(jobs, pj.job)
		}
	}
	return jobs
}

func waitJob(pj *paneJob) tea.Cmd {
	return func() tea.Msg {
		<-pj.job.Done()
		return jobDoneMsg{pj}
	}
}

// jobDone keeps the job's last words and says how it ended, once.
func (p *cmdPane) jobDone(pj *paneJob) {
	if pj.ended {
		return
	}
	pj.ended = true
	_ = pj.out.Close()
	_ = pj.err.Close()
	_ = pj.note.Close()
	if err := pj.job.Err(); err != nil {
		// The real CLI's error (and, after a parse error, the usage), then
		// the lab's note; or the lab's own refusal, styled as the lab's.
		// ReportError writes whole lines only.
		command.ReportError(command.Streams{Out: p.sb.WriterFrom(pj.src, kindOut), Err: p.sb.WriterFrom(pj.src, kindError), Note: p.sb.WriterFrom(pj.src, kindNote), Lab: p.sb.WriterFrom(pj.src, kindNote)}, err)
	}
	if pj.stopped {
		p.sb.Append(kindNote, fmt.Sprintf("[%d] stopped: %s", pj.job.ID, pj.job.Shown()))
	}
	for i, j := range p.jobs {
		if j == pj {
			p.jobs = append(p.jobs[:i], p.jobs[i+1:]...)
			break
		}
	}
}

// paneJob is the pane's record of j, or nil for a job the pane did not start.
func (p *cmdPane) paneJob(j *command.Job) *paneJob {
	for _, pj := range p.jobs {
		if pj.job == j {
			return pj
		}
	}
	return nil
}

// foreground is the most recent running job Ctrl-C would stop.
func (p *cmdPane) foreground() *paneJob {
	for i := len(p.jobs) - 1; i >= 0; i-- {
		if j := p.jobs[i]; !j.bg && !j.stopped {
			return j
		}
	}
	return nil
}

// stopForeground stops the foreground job; false if there is none.
func (p *cmdPane) stopForeground() bool {
	j := p.foreground()
	if j == nil {
		return false
	}
	j.stopped = true
	j.job.Stop()
	return true
}

// ask shows a question and holds its reply channel until y or n.
func (p *cmdPane) ask(r *confirmReq) {
	p.confirms = append(p.confirms, r)
	p.sb.Append(kindNote, r.question+" [y/N]")
	p.follow = true
}

// waitingQuestion is the hint for keys typed while a question waits.
const waitingQuestion = "the question above waits: y for yes, n or enter for no"

// answer replies to the oldest question.
func (p *cmdPane) answer(yes bool) {
	if len(p.confirms) == 0 {
		return
	}
	if p.hint == waitingQuestion {
		p.hint = ""
	}
	r := p.confirms[0]
	p.confirms = p.confirms[1:]
	word := "n"
	if yes {
		word = "y"
	}
	p.sb.Append(kindEcho, promptText+word)
	r.reply <- yes
}

// cancelQuestions answers no to everything pending (the lab is closing).
func (p *cmdPane) cancelQuestions() {
	for _, r := range p.confirms {
		r.reply <- false
	}
	p.confirms = nil
}

// historyStep replaces the line with the previous (dir<0) or next entry.
func (p *cmdPane) historyStep(dir int) {
	var line string
	var ok bool
	if dir < 0 {
		line, ok = p.hist.prev(p.in.Value())
	} else {
		line, ok = p.hist.next()
	}
	if ok {
		p.setLine(line, len([]rune(line)))
	}
}

// complete asks the session for completions off the UI loop.
func (p *cmdPane) complete() tea.Cmd {
	runes := []rune(p.in.Value())
	pos := min(p.in.Position(), len(runes))
	p.completeSeq++
	msg := completionMsg{seq: p.completeSeq, line: p.in.Value(), pos: pos, before: string(runes[:pos]), after: string(runes[pos:])}
	sess, ctx := p.sess, p.ctx
	return func() tea.Msg {
		msg.c = sess.Complete(ctx, msg.before)
		return msg
	}
}

// applyCompletion puts a completion in the line, if the line is still the
// one it was asked for.
func (p *cmdPane) applyCompletion(m completionMsg) {
	if m.seq != p.completeSeq || p.in.Value() != m.line || p.in.Position() != m.pos {
		return
	}
	c := m.c
	if c.Start > len(m.before) {
		return
	}
	var repl string
	switch len(c.Candidates) {
	case 0:
		p.hint = "nothing to complete here"
		return
	case 1:
		repl = shellWord(c.Candidates[0]) + " "
		p.hint = ""
	default:
		lcp := commonPrefix(c.Candidates)
		if len(lcp) <= len(c.Word) {
			p.hint = strings.Join(c.Candidates, "  ")
			return
		}
		repl = shellWord(lcp)
		if c.Start < len(m.before) && strings.ContainsAny(m.before[c.Start:c.Start+1], `'"`) && repl == lcp {
			// Keep the quote the word was opened with.
			repl = m.before[c.Start:c.Start+1] + lcp
		}
		p.hint = strings.Join(c.Candidates, "  ")
	}
	before := m.before[:c.Start] + repl
	p.setLine(before+m.after, len([]rune(before)))
}

// shellWord quotes a word that the command line would otherwise split or
// expand.
func shellWord(s string) string {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.=/:,@%+", r)) {
			return command.Quote([]string{s})
		}
	}
	return s
}

func commonPrefix(list []string) string {
	if len(list) == 0 {
		return ""
	}
	p := list[0]
	for _, s := range list[1:] {
		for !strings.HasPrefix(s, p) {
			p = p[:len(p)-1]
		}
	}
	return p
}

// scroll moves the view by n lines (negative: back in time).
func (p *cmdPane) scroll(n int) {
	oldest, next := p.sb.Bounds()
	if next == 0 {
		return
	}
	bottom := next - 1
	if !p.follow {
		bottom = min(max(p.anchor, oldest), next-1)
	}
	target := int64(bottom) + int64(n)
	// Never scroll so far back that the screen would not fill.
	target = max(target, int64(p.sb.fullFrom(p.bodyHeight(), p.w)))
	if target >= int64(next-1) {
		p.follow = true
		return
	}
	p.follow = false
	p.anchor = uint64(target)
}

// page is one screen of scrolling.
func (p *cmdPane) page() int { return max(p.bodyHeight()-1, 1) }

// setShortHelp sets the key help shown in the rule.
func (p *cmdPane) setShortHelp(s string) { p.shortHelp = s }

// Follow returns to the newest output.
func (p *cmdPane) Follow() { p.follow = true }

// extraRows are the rows between the scrollback and the input: the jobs
// bar and the hint.
func (p *cmdPane) extraRows() int {
	n := 0
	if len(p.running()) > 0 {
		n++
	}
	if p.hintRow() != "" {
		n++
	}
	return n
}

// hintRow is the row above the input: the transient hint, or what pasted
// lines wait.
func (p *cmdPane) hintRow() string {
	if p.cut && p.hint == cutHints()[0] {
		for _, h := range cutHints() {
			if text.Width(h) < p.w {
				return h
			}
		}
	}
	if p.hint != "" {
		return p.hint
	}
	return p.pasteHint()
}

// helpUses is how many rows the key help takes while it shows, its rule
// and the prompt included (its blank lines aside); 0 while it does not.
func (p *cmdPane) helpUses() int {
	if p.help == nil {
		return 0
	}
	n := 2
	for _, l := range p.help {
		if l != "" {
			n++
		}
	}
	return n
}

// uses is how many rows the pane's output takes at width w, its rule and
// prompt included, counting up to cmdRows.
func (p *cmdPane) uses(w int) int {
	if !p.follow {
		return cmdRows
	}
	n := 2 + p.extraRows()
	return min(cmdRows, n+p.sb.rowsUpTo(cmdRows-n, w))
}

// bodyHeight is the scrollback's height.
func (p *cmdPane) bodyHeight() int { return max(p.h-2-p.extraRows(), 0) }

// Lines draws the pane, exactly w×h: a title rule, the scrollback (or the
// key help), the jobs bar and hint when there are any, and the input.
func (p *cmdPane) Lines() []string {
	out := make([]string, 0, p.h)
	if p.h <= 0 {
		return out
	}
	bodyH := p.bodyHeight()
	title, body := p.body(bodyH)
	if p.h >= 2 {
		out = append(out, title)
	}
	out = append(out, body...)
	if len(p.running()) > 0 && len(out) < p.h-1 {
		out = append(out, p.jobsRow())
	}
	if hint := p.hintRow(); hint != "" && len(out) < p.h-1 {
		out = append(out, p.st.Dim.Render(fit(" "+hint, p.w)))
	}
	out = append(out, p.inputRow())
	return out
}

// body renders the title rule and scrollback rows, cached until the
// scrollback, the scroll position or the size change.
func (p *cmdPane) body(bodyH int) (string, []string) {
	version := p.sb.Version()
	c := &p.cache
	if c.valid && c.version == version && c.anchor == p.anchor && c.follow == p.follow && c.w == p.w && c.h == bodyH &&
		c.helpShown == (p.help != nil) && c.shortHelp == p.shortHelp {
		return c.title, c.rows
	}
	c.valid, c.version, c.anchor, c.follow, c.w, c.h = true, version, p.anchor, p.follow, p.w, bodyH
	c.helpShown, c.shortHelp = p.help != nil, p.shortHelp
	if p.help != nil {
		c.title = rule(p.st, "keys", "esc closes", p.w)
		c.rows = fitLines(strings.Join(p.help, "\n"), p.w, bodyH)
		return c.title, c.rows
	}
	oldest, next := p.sb.Bounds()
	note := p.shortHelp
	bottom := next - 1
	if next == 0 {
		bottom = 0
	}
	if !p.follow && next > 0 {
		bottom = min(max(p.anchor, oldest), next-1)
		note = fmt.Sprintf("↑ scrolled back: %s below · esc follows", text.Count(next-1-bottom, "line", "lines"))
	}
	c.title = rule(p.st, "commands", note, p.w)
	atTop := !p.follow && next > 0 && bottom <= p.sb.fullFrom(bodyH, p.w)
	c.rows = p.renderRows(bottom, bodyH, atTop)
	return c.title, c.rows
}

// renderRows draws the lines ending at bottom into h rows of width w. While
// following, short content sits at the top like a terminal's; scrolled to
// the very top, the first line shows from its first row.
func (p *cmdPane) renderRows(bottom uint64, h int, atTop bool) []string {
	rows := make([]string, 0, h+4)
	for _, e := range p.sb.tail(bottom, h, p.w) {
		rows = p.appendRows(rows, e)
	}
	if len(rows) > h {
		if atTop {
			rows = rows[:h]
		} else {
			rows = rows[len(rows)-h:]
		}
	}
	blank := spaces(p.w)
	for len(rows) < h {
		rows = append(rows, blank)
	}
	return rows
}

// appendRows wraps one line to the pane's width and styles it by kind.
func (p *cmdPane) appendRows(rows []string, e entry) []string {
	paint := p.paintFor(e.kind)
	w := p.w
	if e.width <= w {
		return append(rows, paint.Render(shown(e))+spaces(w-e.width))
	}
	wrapEntry(e, w, func(row string, width int) {
		rows = append(rows, paint.Render(row)+spaces(max(w-width, 0)))
	})
	return rows
}

func (p *cmdPane) paintFor(k lineKind) paint {
	switch k {
	case kindStatus:
		return p.st.Status
	case kindError:
		return p.st.Error
	case kindEcho:
		return p.st.Echo
	case kindNote:
		return p.st.Note
	}
	return p.st.Out
}

// jobsRow lists the running jobs and what Ctrl-C would stop. Where that
// does not fit the pane, the counts shrink to numbers, then go, then the
// last jobs' lines give way to their numbers, as many as it takes (jobs
// lists them whole): a job cut off mid-word says less.
func (p *cmdPane) jobsRow() string {
	type shown struct{ id, line, counts, short, bg string }
	var jobs []shown
	for _, j := range p.running() {
		var s shown
		s.line = j.Shown()
		if j.ID != 0 {
			s.id = fmt.Sprintf("[%d]", j.ID)
		}
		if subj, _ := j.Listening(); subj != "" {
			if d := j.Dropped(); d > 0 {
				s.counts = fmt.Sprintf(" (%d received, %d dropped)", j.Received(), d)
				s.short = fmt.Sprintf(" (%d, %d dropped)", j.Received(), d)
			} else {
				s.counts = fmt.Sprintf(" (%d received)", j.Received())
				s.short = fmt.Sprintf(" (%d)", j.Received())
			}
		}
		if pj := p.paneJob(j); pj == nil || pj.bg {
			s.bg = " &"
		}
		jobs = append(jobs, s)
	}
	tail := ""
	if fg := p.foreground(); fg != nil {
		tail = fmt.Sprintf("  · ctrl+c stops [%d]", fg.job.ID)
	}
	// whole keeps the first n jobs' lines; the rest shrink to part.
	row := func(whole int, part func(shown) string) string {
		parts := make([]string, len(jobs))
		for i, j := range jobs {
			if i < whole {
				parts[i] = joinWords(j.id, j.line) + j.bg
			} else {
				parts[i] = part(j)
			}
		}
		return " running: " + strings.Join(parts, "  ") + tail
	}
	idOnly := func(j shown) string {
		if j.id == "" {
			return j.line
		}
		return j.id
	}
	var text string
	for _, part := range []func(shown) string{
		func(j shown) string { return joinWords(j.id, j.line) + j.counts + j.bg },
		func(j shown) string { return joinWords(j.id, j.line) + j.short + j.bg },
		func(j shown) string { return joinWords(j.id, j.line) + j.bg },
	} {
		if text = row(0, part); ansi.StringWidth(text) <= p.w {
			return p.st.Note.Render(fit(text, p.w))
		}
	}
	// Too many to name them all: name the first ones, number the others.
	for whole := len(jobs) - 1; whole >= 0; whole-- {
		if text = row(whole, idOnly); ansi.StringWidth(text) <= p.w {
			break
		}
	}
	return p.st.Note.Render(fit(text, p.w))
}

// joinWords puts words together with a space, leaving out empty ones at the ends.
func joinWords(a ...string) string { return strings.TrimSpace(strings.Join(a, " ")) }

// inputRow is the prompt line, or the y/N question's answer line, or the
// scene's keys while the scene has them.
func (p *cmdPane) inputRow() string {
	if len(p.confirms) > 0 {
		return fit(p.st.Prompt.Render("y/N? "), p.w)
	}
	if p.sceneKeys != "" {
		return fit(p.st.Prompt.Render("scene keys: ")+p.sceneKeys+p.st.Dim.Render(" · esc back to the prompt"), p.w)
	}
	p.drawInput(p.inputKey())
	return p.input.row
}

// cursorX is where the terminal cursor goes on the input row.
func (p *cmdPane) cursorX() int {
	if len(p.confirms) > 0 {
		return len("y/N? ")
	}
	p.drawInput(p.inputKey())
	return p.input.cursorX
}

func (p *cmdPane) inputKey() inputKey {
	return inputKey{version: p.inVersion, placeholder: p.in.Placeholder, w: p.w, inputW: p.in.Width(), focused: p.in.Focused()}
}

// drawInput draws the prompt row and places the cursor, unless nothing
// they depend on changed.
func (p *cmdPane) drawInput(key inputKey) {
	if p.input.used && p.input.key == key {
		return
	}
	p.input.key, p.input.row, p.input.used = key, fit(p.in.View(), p.w), true
	p.input.cursorX = 0
	if c := p.in.Cursor(); c != nil {
		p.input.cursorX = min(c.X, p.w-1)
	}
}
