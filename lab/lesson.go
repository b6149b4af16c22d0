package lab

import (
	"strings"

	"charm.land/glamour/v2"
	"github.com/charmbracelet/x/ansi"

	"natslab/assets"
)

// Step is one item of a lesson's checklist.
type Step struct {
	Text    string
	Done    bool
	Current bool // the step being worked on: marked with ▸
}

// lessonPane shows the current lesson: a title, markdown rendered with
// glamour, and a checklist of steps. Rendering happens only when the text,
// the steps or the width change; scrolling reuses the rendered lines.
type lessonPane struct {
	st       *Styles
	title    string
	markdown string
	steps    []Step
	w, h     int
	offset   int // first rendered line shown

	lines    []string // rendered content, each exactly w-2 wide
	renderW  int
	rendered bool
	frame    []string // cached framed view
	framed   bool

	glam  *glamour.TermRenderer
	glamW int
}

func newLessonPane(st *Styles) *lessonPane {
	return &lessonPane{st: st, title: "Welcome", markdown: assets.Welcome}
}

// SetLesson replaces the lesson text (markdown) and title; steps are kept
// until SetSteps replaces them.
func (p *lessonPane) SetLesson(title, markdown string) {
	p.title, p.markdown = title, markdown
	p.offset = 0
	p.rendered, p.framed = false, false
}

// SetSteps replaces the checklist shown under the text.
func (p *lessonPane) SetSteps(steps []Step) {
	p.steps = append([]Step(nil), steps...)
	p.rendered, p.framed = false, false
}

// SetSize implements the component contract.
func (p *lessonPane) SetSize(w, h int) {
	if w != p.w || h != p.h {
		p.w, p.h = w, h
		p.framed = false
		if w != p.renderW {
			p.rendered = false
		}
	}
}

// Scroll moves the text by n lines (negative: up).
func (p *lessonPane) Scroll(n int) {
	p.render()
	maxOff := max(len(p.lines)-(p.h-2), 0)
	off := min(max(p.offset+n, 0), maxOff)
	if off != p.offset {
		p.offset = off
		p.framed = false
	}
}

func (p *lessonPane) render() {
	if p.rendered && p.renderW == p.w {
		return
	}
	inner := max(p.w-4, 8) // a space of padding each side
	p.lines = p.lines[:0]
	// Glamour wraps list items a little past its width (the marker is not
	// counted): narrow the wrap until every line fits, rather than cut.
	var body string
	for wrap := inner; ; wrap-- {
		body = p.renderMarkdown(wrap)
		widest := 0
		for _, l := range strings.Split(body, "\n") {
			widest = max(widest, ansi.StringWidth(strings.TrimRight(ansi.Strip(l), " ")))
		}
		if widest <= inner || wrap <= inner-6 || wrap <= 8 {
			break
		}
		wrap -= widest - inner - 1
	}
	for _, l := range strings.Split(body, "\n") {
		p.lines = append(p.lines, " "+fit(l, inner)+" ")
	}
	// Trim blank lines glamour leaves at both ends.
	blank := spaces(inner + 2)
	for len(p.lines) > 0 && strings.TrimSpace(ansi.Strip(p.lines[0])) == "" {
		p.lines = p.lines[1:]
	}
	for len(p.lines) > 0 && strings.TrimSpace(ansi.Strip(p.lines[len(p.lines)-1])) == "" {
		p.lines = p.lines[:len(p.lines)-1]
	}
	if len(p.steps) > 0 {
		p.lines = append(p.lines, blank, " "+fit(p.st.Title.Render("Steps"), inner)+" ")
		for _, s := range p.steps {
			mark, paint := "[ ] ", p.st.Out
			switch {
			case s.Done:
				mark, paint = "[✓] ", p.st.Done
			case s.Current:
				mark, paint = "[▸] ", p.st.Echo
			}
			wrapped := strings.Split(ansi.Wrap(s.Text, max(inner-4, 4), ""), "\n")
			for i, l := range wrapped {
				lead := "    "
				if i == 0 {
					lead = mark
				}
				p.lines = append(p.lines, " "+fit(paint.Render(lead+l), inner)+" ")
			}
		}
	}
	p.renderW = p.w
	p.rendered = true
	p.offset = min(p.offset, max(len(p.lines)-(p.h-2), 0))
}

// renderMarkdown renders with a glamour renderer kept per width: building
// one costs far more than rendering.
func (p *lessonPane) renderMarkdown(width int) string {
	if p.glam == nil || p.glamW != width {
		r, err := glamour.NewTermRenderer(glamour.WithStyles(p.st.Lesson), glamour.WithWordWrap(width))
		if err != nil {
			return p.markdown
		}
		p.glam, p.glamW = r, width
	}
	out, err := p.glam.Render(p.markdown)
	if err != nil {
		return p.markdown
	}
	return out
}

// Lines draws the pane, exactly w×h.
func (p *lessonPane) Lines() []string {
	if p.framed {
		return p.frame
	}
	p.render()
	innerH := max(p.h-2, 0)
	end := min(p.offset+innerH, len(p.lines))
	view := p.lines[min(p.offset, end):end]
	note := ""
	if below := len(p.lines) - end; below > 0 {
		note = "↓ " + plural(below, "more line") + " (alt+↓)"
	} else if p.offset > 0 {
		note = "↑ alt+↑ scrolls back"
	}
	p.frame = box(p.st, "lesson: "+p.title, false, view, note, p.w, p.h)
	p.framed = true
	return p.frame
}

// View implements the component contract.
func (p *lessonPane) View() string { return strings.Join(p.Lines(), "\n") }
