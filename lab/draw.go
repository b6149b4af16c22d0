package lab

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"natslab/broker/text"
)

// Drawing helpers. Every pane draws exactly w×h cells as a slice of lines
// whose widths it knows, so the root can place panes side by side by
// concatenating lines, without measuring anything again: measuring
// (ansi.StringWidth) is most of what a naive View costs.

// spaces returns n spaces.
func spaces(n int) string {
	if n <= 0 {
		return ""
	}
	return strings.Repeat(" ", n)
}

// fitKnown pads or cuts s, whose display width is width, to exactly w.
func fitKnown(s string, width, w int) string {
	switch {
	case width == w:
		return s
	case width < w:
		return s + spaces(w-width)
	}
	return text.Clip(s, w)
}

// fit pads or cuts s to exactly w cells, measuring it.
func fit(s string, w int) string {
	return fitKnown(s, ansi.StringWidth(s), w)
}

// fitLines makes exactly h lines of exactly w cells from text.
func fitLines(text string, w, h int) []string {
	out := make([]string, 0, h)
	if text != "" {
		for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
			if len(out) == h {
				break
			}
			out = append(out, fit(l, w))
		}
	}
	for len(out) < h {
		out = append(out, spaces(w))
	}
	return out
}

// box frames inner (lines already exactly w-2 wide; padded to h-2 here)
// with a rounded border, a title in the top edge and an optional note in
// the bottom edge.
func box(st *Styles, title string, focused bool, inner []string, note string, w, h int) []string {
	if w < 2 || h < 2 {
		return fitLines("", max(w, 0), max(h, 0))
	}
	out := make([]string, 0, h)
	out = append(out, edge(st, "╭", "╮", title, focused, w))
	side := st.Border.Render("│")
	for i := 0; i < h-2; i++ {
		l := spaces(w - 2)
		if i < len(inner) {
			l = inner[i]
		}
		out = append(out, side+l+side)
	}
	out = append(out, edge(st, "╰", "╯", note, false, w))
	return out
}

// edge draws a border line with a label in it: ╭─ label ───╮.
func edge(st *Styles, left, right, label string, focused bool, w int) string {
	if label == "" {
		return st.Border.Render(left + strings.Repeat("─", w-2) + right)
	}
	room := w - 5 // ╭─ and ╮ and a space each side
	if room < 1 {
		return st.Border.Render(left + strings.Repeat("─", w-2) + right)
	}
	lw := ansi.StringWidth(label)
	if lw > room {
		label = text.Clip(label, room)
		lw = ansi.StringWidth(label)
	}
	tp := st.Title
	if focused {
		tp = st.TitleFocused
	}
	if left == "╰" {
		tp = st.Dim
	}
	rest := w - 5 - lw
	return st.Border.Render(left+"─ ") + tp.Render(label) + st.Border.Render(" "+strings.Repeat("─", rest)+right)
}

// rule is a full-width horizontal line with a title: ── title ─────.
func rule(st *Styles, title, note string, w int) string {
	var b strings.Builder
	used := 0
	if title != "" {
		t := text.Clip(title, max(w-4, 0))
		b.WriteString(st.Border.Render("─ "))
		b.WriteString(st.Title.Render(t))
		b.WriteString(" ")
		used = 3 + ansi.StringWidth(t)
	}
	if note != "" && used+ansi.StringWidth(note)+4 <= w {
		nw := ansi.StringWidth(note)
		b.WriteString(st.Border.Render(strings.Repeat("─", w-used-nw-3) + " "))
		b.WriteString(st.Dim.Render(note))
		b.WriteString(st.Border.Render(" ─"))
		return b.String()
	}
	b.WriteString(st.Border.Render(strings.Repeat("─", max(w-used, 0))))
	return b.String()
}
