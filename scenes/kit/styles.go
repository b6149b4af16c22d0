package kit

import (
	"strings"

	"charm.land/lipgloss/v2"
)

// Role is what a cell means; Styles decides how it looks.
type Role uint8

// The roles scenes draw with. Meaning never rests on colour alone: offline
// wires are broken, lost messages change shape as they fade, counters are
// labelled, so the picture still reads under NO_COLOR.
const (
	Plain   Role = iota
	Faint        // secondary text, idle wires
	Strong       // labels of live components
	Node         // boxes of live components
	NodeOff      // boxes of components that are down or disconnected
	Wire         // a live connection
	WireOff      // a broken connection
	Msg          // a message in flight
	Kept         // a message a stream keeps and the consumer has not had
	Done         // a stored message the consumer already had
	Good         // received, online
	Warn         // pending
	Bad          // lost, offline, errors
	Flash        // a counter that just changed
	Caption      // the presenter's one-line caption
	Title        // a lane's title
	numRoles
)

// Styles is the palette of every scene, in one place. The colours are the
// terminal's own 16 (so dark and light themes both adapt them) and always
// come with an attribute, because the background colour of the terminal
// is never known for sure.
type Styles struct {
	styles [numRoles]lipgloss.Style
	open   [numRoles]string
	close  [numRoles]string
	paints [numRoles]bool // the style shows on a blank cell (reverse video)
}

// NewStyles builds the palette, with or without colour. Whether a terminal
// shows colour (NO_COLOR) is its host's decision: the host hands a scene
// its palette with Base.UseStyles.
func NewStyles(color bool) *Styles {
	s := lipgloss.NewStyle
	c := func(st lipgloss.Style, ansi string) lipgloss.Style {
		if !color {
			return st
		}
		return st.Foreground(lipgloss.Color(ansi))
	}
	var st Styles
	st.styles = [numRoles]lipgloss.Style{
		Plain:   s(),
		Faint:   s().Faint(true),
		Strong:  s().Bold(true),
		Node:    s().Bold(true),
		NodeOff: s().Faint(true),
		Wire:    s(),
		WireOff: c(s().Faint(true), "1"),
		Msg:     c(s().Bold(true), "12"),
		Kept:    c(s().Bold(true), "5"),
		Done:    s().Faint(true),
		Good:    c(s().Bold(true), "2"),
		Warn:    c(s().Bold(true), "3"),
		Bad:     c(s().Bold(true), "1"),
		Flash:   s().Bold(true).Reverse(true),
		Caption: s().Bold(true),
		Title:   s().Bold(true).Underline(true),
	}
	if !color {
		// Without colour, what is in flight and what waits still need to
		// stand out from the wiring around them.
		st.styles[Kept] = s().Bold(true).Underline(true)
	}
	for r := range st.styles {
		st.open[r], st.close[r] = split(st.styles[r])
		st.paints[r] = st.styles[r].GetReverse()
	}
	return &st
}

// Style returns the lipgloss style of a role, for text drawn outside a Canvas.
func (st *Styles) Style(r Role) lipgloss.Style { return st.styles[r] }

// Render styles text in a role.
func (st *Styles) Render(r Role, text string) string {
	if text == "" {
		return ""
	}
	return st.open[r] + text + st.close[r]
}

// split renders a probe once and keeps the escape sequences around it, so
// drawing a frame is string concatenation rather than a lipgloss render per
// run of cells.
func split(style lipgloss.Style) (string, string) {
	const probe = "X"
	out := style.Render(probe)
	i := strings.Index(out, probe)
	if i < 0 {
		return "", ""
	}
	return out[:i], out[i+len(probe):]
}
