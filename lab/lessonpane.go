package lab

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"natslab/assets"
	"natslab/broker/text"
	"natslab/lab/prose"
)

// Step is one item of a lesson's checklist.
type Step struct {
	Text    string
	Done    bool
	Current bool     // the step to do next: marked ▸, with what follows
	Try     []string // the commands to type (shown for the current step)
	Why     string   // what the broker's state still lacks (current step)
	Hints   []string // the hint stages asked for so far (current step)
	Stages  int      // how many hint stages the step has
}

// lessonPane shows the open lesson: the step to do next, then the
// lesson's text (Markdown, rendered with glamour ahead of time: package
// prose). In the sandbox it shows the welcome text alone.
//
// The step list is folded to the step to do next (its commands, what it
// still lacks, the hints asked for): `lesson` lists them all. It comes
// first because it says what to type now, and stays pinned above the
// scrolling text while it takes at most half the pane; a longer one (many
// hints) scrolls with the text.
//
// The pane never jumps under a reader: a step ticking, a hint, a resize
// keep the text line at the top where it was. Only while the top of the
// pane shows the step itself does it follow the step to do next.
//
// The text's lines (a lookup in package prose, then cut to the pane) are
// taken again only when the text or the width changes, never when a step
// ticks.
type lessonPane struct {
	keys     lessonKeys
	st       *Styles
	label    string // in the top border
	markdown string
	steps    []Step
	complete string // said under the steps once all are done
	w, h     int
	offset   int // first line of the scrolling part shown

	pinned   []string // drawn above the scrolling part, each w-2 wide
	lines    []string // the scrolling part, each w-2 wide
	listLen  int      // lines of the step list at the top of the scrolling part (0: pinned)
	focus    int      // 0: bring the step to do next into view at the next render; -1: leave the scroll alone
	renderW  int
	renderH  int
	rendered bool
	frame    []string // cached framed view
	framed   bool

	md      []string // rendered Markdown, each w-2 wide
	mdW     int
	mdValid bool

	commands [][2]int // the lines of the step list each command (and what the step lacks) takes, from and to
	why      [2]int   // the lines what the step lacks takes, from and to (equal: none)
}

// welcomeLabel is the lesson pane's border while it shows the welcome
// text: the greeting, so the text itself starts with what the lab is and
// the first steps fit beside the scene at 100x30.
const welcomeLabel = "lesson: Welcome to natslab"

func newLessonPane(st *Styles) *lessonPane {
	return &lessonPane{st: st, keys: defaultLessonKeys(), label: welcomeLabel, markdown: assets.Welcome, focus: -1}
}

// SetLesson replaces the text (Markdown) and the label in the border, and
// scrolls back to the top; the steps are kept until SetSteps replaces them.
func (p *lessonPane) SetLesson(label, markdown string) {
	if label == p.label && markdown == p.markdown {
		return
	}
	p.label = label
	if markdown != p.markdown {
		p.markdown = markdown
		p.mdValid = false
	}
	p.offset = 0
	p.rendered, p.framed = false, false
}

// SetSteps replaces the checklist; complete, once every step is done, says
// so and what comes next ("" until then).
func (p *lessonPane) SetSteps(steps []Step, complete string) {
	if equalSteps(steps, p.steps) && complete == p.complete {
		return
	}
	moved := currentStep(steps) != currentStep(p.steps) || complete != p.complete || hintOf(steps) != hintOf(p.steps) || whyOf(steps) != whyOf(p.steps)
	p.steps = append([]Step(nil), steps...)
	p.complete = complete
	p.rendered, p.framed = false, false
	if moved {
		p.focus = 0 // render places it on the step to do next
	}
}

func currentStep(steps []Step) int {
	for i, s := range steps {
		if s.Current {
			return i
		}
	}
	return -1
}

// whyOf is what the step to do next lacks.
func whyOf(steps []Step) string {
	if i := currentStep(steps); i >= 0 {
		return steps[i].Why
	}
	return ""
}

func hintOf(steps []Step) int {
	if i := currentStep(steps); i >= 0 {
		return len(steps[i].Hints)
	}
	return 0
}

func equalSteps(a, b []Step) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Text != y.Text || x.Done != y.Done || x.Current != y.Current || x.Why != y.Why || strings.Join(x.Hints, "\n") != strings.Join(y.Hints, "\n") || strings.Join(x.Try, "\n") != strings.Join(y.Try, "\n") {
			return false
		}
	}
	return true
}

// Update scrolls the lesson's text on its keys.
func (p *lessonPane) Update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(k, p.keys.Up):
			p.Scroll(-3)
		case key.Matches(k, p.keys.Down):
			p.Scroll(3)
		case key.Matches(k, p.keys.PageUp):
			p.Scroll(-p.page())
		case key.Matches(k, p.keys.PageDown):
			p.Scroll(p.page())
		}
	}
	return nil
}

// SetSize implements Component.
func (p *lessonPane) SetSize(w, h int) {
	if w != p.w || h != p.h {
		p.w, p.h = w, h
		p.framed = false
		p.rendered = false
		p.focus = 0 // what was in view may not be: show the step to do next
	}
}

// Scroll moves the text by n lines (negative: up).
func (p *lessonPane) Scroll(n int) {
	p.render()
	off := min(max(p.offset+n, 0), p.maxOffset())
	if off != p.offset {
		p.offset = off
		p.framed = false
	}
}

// regionH is how many rows the scrolling part has.
func (p *lessonPane) regionH() int {
	h := max(p.h-2, 0)
	if len(p.pinned) > 0 {
		h -= len(p.pinned)
	}
	return max(h, 0)
}

func (p *lessonPane) maxOffset() int { return max(len(p.lines)-p.regionH(), 0) }

// page is how far a page key scrolls: the region, less a line kept for
// context.
func (p *lessonPane) page() int {
	p.render()
	return max(p.regionH()-1, 1)
}

// minTextPage is how many lines of the lesson's text the pane keeps in
// view beside the pinned step, where it has the height.
const minTextPage = 10

// minTextBesideWhy is how many lines of the text stay in view where what
// the step lacks needs more of the pane than minTextPage leaves it.
const minTextBesideWhy = 3

func (p *lessonPane) render() {
	if p.rendered && p.renderW == p.w && p.renderH == p.h {
		return
	}
	// Where the reader is: a line of the text they scrolled to (anchor >=
	// 0), or the top of the pane, or the step list in the scrolling part.
	anchor := p.offset - p.listLen
	if p.renderW == 0 || (p.listLen == 0 && p.offset == 0) {
		anchor = -1
	}
	inner := max(p.w-4, 8) // a space of padding each side
	innerH := max(p.h-2, 0)
	md := p.markdownLines(inner)
	p.pinned, p.lines, p.listLen = nil, nil, 0
	from, to := -1, -1 // lines of the scrolling part to bring into view
	if len(p.steps) == 0 {
		p.lines = md
	} else {
		sep := " " + p.st.Border.Render(strings.Repeat("┄", inner)) + " "
		list, at, end := p.checklist(inner)
		// The step stays pinned while the text keeps a page of ten lines
		// (half the pane, in a small one); cut short, if need be, to what
		// fits: lesson and hint print it whole.
		pinMax := innerH - min(minTextPage, innerH/2) - 1
		switch {
		case len(list) <= pinMax:
			p.pinned = append(list, sep)
			p.lines = md
		case pinMax >= 5:
			// What the step lacks may take the pinned step past its
			// share, as long as a few lines of the text stay in view.
			n := pinMax
			if need := p.whyRows(); need > n && need <= innerH-minTextBesideWhy-1 {
				n = need
			}
			p.pinned = append(p.cutStep(list, n, inner), sep)
			p.lines = md
		default:
			// Too small to pin: the step scrolls with the text, shown
			// from its title, and cut short like a pinned one where it
			// is taller than the pane.
			from, to = at, end
			region := innerH
			switch need := p.whyRows(); {
			case need > 0 && need-1-at > region:
				// Not even the title and what the step lacks fit: the
				// step stays whole, scrolled to what it lacks.
				from, to = p.why[0], p.why[1]
			case end-at > region && region >= 3:
				list = p.cutStep(list, at+region, inner)
				to = len(list)
			}
			p.lines = append(append(list, sep), md...)
			p.listLen = len(list) + 1
		}
	}
	p.renderW, p.renderH = p.w, p.h
	p.rendered = true
	switch {
	case anchor >= 0:
		// Reading the text: keep its line at the top.
		p.offset = anchor + p.listLen
	case p.focus >= 0 && from >= 0:
		// Looking at the steps, and the step to do next changed: show it
		// whole, with what comes before it when there is room; from the
		// top of the list when all of that fits.
		region := p.regionH()
		switch {
		case to <= region:
			p.offset = 0
		case to-region <= from:
			p.offset = to - region
		default:
			p.offset = from
		}
	case p.listLen == 0:
		p.offset = 0
	}
	p.focus = -1
	p.offset = min(max(p.offset, 0), p.maxOffset())
}

// cutStep shortens the checklist's lines to n with a last line saying the
// rest is in hint and lesson. What the step lacks stays where the title
// leaves room for it, before any command: it is what the broker says now,
// where the commands are in hint (and were printed when the lesson
// opened). It cuts between commands, never inside one: a command shown
// without its end reads as whole, and typed, fails. Nor inside what the
// step lacks, whose first line alone reads as a sentence it is not ("not
// yet: the server has not").
func (p *lessonPane) cutStep(list []string, n, inner int) []string {
	short := "… (hint prints it whole)"
	say := p.line(p.st.Dim.Render(cmp.Or(text.Fit(inner, "… (hint and lesson print it whole)", short), short)), inner)
	keep := n - 1
	if from, to := p.why[0], p.why[1]; to > keep && to > from {
		title := p.whyTitle()
		cut := min(keep-(to-from), from)
		for _, c := range p.commands {
			if c[0] < cut && cut < c[1] {
				cut = c[0]
			}
		}
		if cut >= title {
			out := append(list[:cut:cut], list[from:to]...)
			return append(out, say)
		}
		// No room for the line that points to hint as well: what the
		// broker says now matters more.
		if title+to-from <= n {
			return append(list[:title:title], list[from:to]...)
		}
	}
	for _, c := range p.commands {
		if c[0] < keep && keep < c[1] {
			keep = c[0]
		}
	}
	return append(list[:keep:keep], say)
}

// whyRows is how many rows the step list needs to show its head, the
// step's title and what it lacks, with the line pointing to hint; 0 when
// it lacks nothing it says.
func (p *lessonPane) whyRows() int {
	from, to := p.why[0], p.why[1]
	if to <= from {
		return 0
	}
	return p.whyTitle() + to - from + 1
}

// whyTitle is the line of the step list where what the step lacks would
// follow the title: the first command's, where the step lists commands.
func (p *lessonPane) whyTitle() int {
	if len(p.commands) > 1 {
		return p.commands[0][0]
	}
	return p.why[0]
}

// line pads one drawn line into the pane's inner width.
func (p *lessonPane) line(s string, inner int) string { return " " + fit(s, inner) + " " }

// wrapped adds text after lead, wrapped to the pane, its further lines
// indented by cont (a hanging indent), each painted.
func (p *lessonPane) wrapped(out []string, inner int, lead, cont, s string, paint paint) []string {
	width := max(inner-ansi.StringWidth(cont), 4)
	first, rest := firstLine(s, max(inner-ansi.StringWidth(lead), 4), width)
	out = append(out, p.line(paint.Render(lead+text.Plain(first)), inner))
	if rest == "" {
		return out
	}
	for _, l := range strings.Split(wordWrap(rest, width), "\n") {
		out = append(out, p.line(paint.Render(cont+l), inner))
	}
	return out
}

// firstLine splits s into the words that fit a first line of width first
// and the rest, for lines of width next. The rest is s's own words, not
// the first wrapping's lines joined again: a word too long for the first
// width (a --flag after a long lead) is broken there, and joined again with
// a blank inside it. A first word too long for the first line goes on to
// the next, whole, when it fits there.
func firstLine(s string, first, next int) (string, string) {
	blank := func(r rune) bool { return unicode.IsSpace(r) && string(r) != text.NoBreak }
	words := strings.FieldsFunc(s, blank)
	line, _, _ := strings.Cut(wrapKept(s, first), "\n")
	got := strings.FieldsFunc(line, blank)
	n := len(got)
	if n == 0 || got[n-1] == words[n-1] {
		return line, strings.Join(words[n:], " ")
	}
	// Only a first word is broken on a first line: a later one too long
	// starts a line of its own.
	if ansi.StringWidth(words[0]) <= next {
		return "", strings.Join(words, " ")
	}
	return line, strings.Join(append([]string{words[0][len(got[0]):]}, words[1:]...), " ")
}

// checklist draws the step to do next, folded: a line saying where the
// learner is, then that step with its commands, what it still lacks and
// the hints asked for. Lines at to end are that step (or, once all are
// done, the word that the lesson is complete).
func (p *lessonPane) checklist(inner int) (lines []string, at, end int) {
	p.commands = p.commands[:0]
	p.why = [2]int{}
	done, current := 0, -1
	for i, s := range p.steps {
		if s.Done {
			done++
		}
		if s.Current {
			current = i
		}
	}
	at, end = -1, -1
	head := p.st.Title.Render("Steps") + p.st.Dim.Render(" · "+itoa(done)+"/"+itoa(len(p.steps))+" done")
	if current >= 0 {
		step, count := "Step "+itoa(current+1)+" of "+itoa(len(p.steps)), " · "+itoa(done)+" done"
		// Where the pointer to lesson does not fit, it goes whole: a
		// clipped "lesson lists t…" sends nowhere.
		if more := " · lesson lists them all"; ansi.StringWidth(step+count+more) <= inner {
			count += more
		}
		head = p.st.Title.Render(step) + p.st.Dim.Render(count)
	}
	lines = append(lines, p.line(head, inner))
	if current >= 0 {
		s := p.steps[current]
		at = len(lines)
		lines = p.wrapped(lines, inner, "[▸] ", "    ", s.Text, p.st.Echo)
		lines = p.details(lines, inner, s, "    ")
		end = len(lines)
	}
	if p.complete != "" {
		at = len(lines)
		lines = p.completeLines(lines, inner)
		end = len(lines)
	}
	return lines, at, end
}

// details are the current step's commands, what it lacks, and the newest
// hint asked for (last: where the pinned step must be cut short, the hint
// is in the command pane whole).
func (p *lessonPane) details(lines []string, inner int, s Step, indent string) []string {
	for _, try := range s.Try {
		from := len(lines)
		lead := indent + promptText
		for i, l := range strings.Split(wordWrap(try, max(inner-ansi.StringWidth(lead), 4)), "\n") {
			if i == 0 {
				lines = append(lines, p.line(indent+p.st.Prompt.Render(promptText)+p.st.Echo.Render(l), inner))
			} else {
				lines = append(lines, p.line(spaces(ansi.StringWidth(lead))+p.st.Echo.Render(l), inner))
			}
		}
		p.commands = append(p.commands, [2]int{from, len(lines)})
	}
	if s.Why != "" {
		from := len(lines)
		lines = p.wrapped(lines, inner, indent+"not yet: ", indent+"  ", s.Why, p.st.Dim)
		p.commands = append(p.commands, [2]int{from, len(lines)})
		p.why = [2]int{from, len(lines)}
	}
	if n := len(s.Hints); n > 0 {
		// The newest stage only: the earlier ones are in the command
		// pane, and the step stays short enough to stay pinned.
		lead := indent + "hint: "
		if s.Stages > 1 {
			lead = indent + "hint " + itoa(n) + "/" + itoa(s.Stages) + ": "
		}
		lines = p.wrapped(lines, inner, lead, indent+"  ", s.Hints[n-1], p.st.Note)
	}
	return lines
}

func (p *lessonPane) completeLines(lines []string, inner int) []string {
	lines = p.wrapped(lines, inner, "✓ ", "  ", "Lesson complete: all "+itoa(len(p.steps))+" steps done.", p.st.Done)
	return p.wrapped(lines, inner, "  ", "  ", p.complete, p.st.Out)
}

// Welcome reports whether the pane shows the sandbox's welcome.
func (p *lessonPane) Welcome() bool { return p.markdown == assets.Welcome }

// TextLines is how many lines the text (the steps left out: they change
// as the learner works, and the layout must not follow them) takes at
// width columns.
func (p *lessonPane) TextLines(width int) int {
	if body, ok := prose.Lines(p.markdown, width); ok {
		return len(body)
	}
	return strings.Count(wordWrapParagraphs(p.markdown, width), "\n") + 1
}

// markdownLines renders the text for inner columns, once per text and width.
func (p *lessonPane) markdownLines(inner int) []string {
	if p.mdValid && p.mdW == inner {
		return p.md
	}
	body, ok := prose.Lines(p.markdown, inner)
	if !ok {
		// Not rendered (a text edited without go generate): plain, wrapped.
		body = strings.Split(wordWrapParagraphs(p.markdown, inner), "\n")
	}
	p.md = make([]string, 0, len(body))
	for _, l := range body {
		p.md = append(p.md, p.line(l, inner))
	}
	p.mdW, p.mdValid = inner, true
	return p.md
}

// wordWrapParagraphs wraps each paragraph of text (blank-line separated)
// to width, keeping the blank lines.
func wordWrapParagraphs(text string, width int) string {
	paras := strings.Split(strings.TrimSpace(text), "\n\n")
	for i, p := range paras {
		paras[i] = wordWrap(p, width)
	}
	return strings.Join(paras, "\n\n")
}

// Lines draws the pane, exactly w×h.
func (p *lessonPane) Lines() []string {
	if p.framed {
		return p.frame
	}
	p.render()
	regionH := p.regionH()
	end := min(p.offset+regionH, len(p.lines))
	view := append(append([]string(nil), p.pinned...), p.lines[min(p.offset, end):end]...)
	// The note has a wording for every width the pane has (the border
	// takes five columns of it), rather than one cut short.
	note := ""
	if below := len(p.lines) - end; below > 0 {
		more := "↓ " + text.Count(below, "more line", "more lines")
		note = text.Fit(p.w-5, more+" (f6 or alt+↓)", more+" (f6)", fmt.Sprintf("↓ %d more (f6)", below), fmt.Sprintf("↓ %d more", below))
	} else if p.offset > 0 {
		note = text.Fit(p.w-5, "↑ f5 or alt+↑ scrolls back", "↑ f5 scrolls back", "↑ f5")
	}
	p.frame = box(p.st, p.label, false, view, note, p.w, p.h)
	p.framed = true
	return p.frame
}

// View implements Component.
func (p *lessonPane) View() string { return strings.Join(p.Lines(), "\n") }

// wordWrap breaks plain text at spaces only (ansi.Wrap also breaks after
// hyphens, which cuts --flags in two), and breaks a word only when it is
// longer than a line (breakLong). A text.NoBreak joins its words on one
// line, shown as a blank.
func wordWrap(s string, width int) string { return text.Plain(wrapKept(s, width)) }

// wrapKept is wordWrap with each text.NoBreak kept, for a caller that
// wraps the rest again at another width.
func wrapKept(s string, width int) string {
	var b strings.Builder
	col := 0
	blank := func(r rune) bool { return unicode.IsSpace(r) && string(r) != text.NoBreak }
	for _, word := range strings.FieldsFunc(s, blank) {
		w := ansi.StringWidth(word)
		switch {
		case col == 0:
		case col+1+w <= width:
			b.WriteByte(' ')
			col++
		default:
			b.WriteByte('\n')
			col = 0
		}
		if w > width {
			word = breakLong(word, width)
			w = ansi.StringWidth(word[strings.LastIndexByte(word, '\n')+1:])
			col = 0
		}
		b.WriteString(word)
		col += w
	}
	return b.String()
}

// breakLong breaks a word longer than a line into lines after a dot where
// one falls in the line, so a long subject keeps its tokens whole
// ($JS.EVENT.ADVISORY.CONSUMER. / DELETED.ORDERS.billing); elsewhere at the
// width.
func breakLong(word string, width int) string {
	var lines []string
	for ansi.StringWidth(word) > width {
		line := ansi.Truncate(word, width, "")
		if i := strings.LastIndexByte(line, '.'); i > 0 {
			line = line[:i+1]
		}
		lines = append(lines, line)
		word = word[len(line):]
	}
	return strings.Join(append(lines, word), "\n")
}

func itoa(n int) string { return strconv.Itoa(n) }
