package lab

import (
	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/textinput"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// All of the lab's looks live here.
//
// Colours are the terminal's own 16 (red, cyan, magenta), never fixed RGB or
// 256-colour greys: the terminal's palette makes them readable on its own
// background, dark or light, so the lab never needs the background-colour
// reply (which never comes under tests or in some terminals). Emphasis is
// by attributes (bold, faint, reverse), which also survive NO_COLOR: with
// NO_COLOR set the program renders with the ASCII profile, which drops
// colours and keeps attributes.

// paint wraps text in a fixed SGR sequence. It is far cheaper than
// lipgloss.Style.Render on the hot path (thousands of scrollback rows),
// because it measures nothing.
type paint struct{ on string }

func newPaint(s ansi.Style) paint { return paint{on: s.String()} }

// Render styles s; an empty paint or an empty string passes through.
func (p paint) Render(s string) string {
	if p.on == "" || s == "" {
		return s
	}
	return p.on + s + ansi.ResetStyle
}

// Styles is every style the lab draws with.
type Styles struct {
	Border       paint // pane borders
	Title        paint // a pane's title in its border
	TitleFocused paint
	Dim          paint // secondary text (hints, counters)

	// Scrollback line kinds.
	Out    paint // stdout of a command: as printed
	Status paint // stderr status lines ("15:04:05 Published …")
	Error  paint // nats: error: …
	Echo   paint // the command line as typed
	Note   paint // the lab's own remarks: dim, apart from the real CLI's lines
	Prompt paint

	StatusBar paint // the bottom bar (reverse video reads on any background)
	StatusKey paint // emphasised facts in the bar

	Done   paint // a finished lesson step
	Accent paint // scene intro drawing

	Help  help.Styles
	Input textinput.Styles
}

// DefaultStyles are good on dark and light terminals alike.
func DefaultStyles() *Styles {
	s := &Styles{
		Border:       newPaint(ansi.NewStyle().Faint()),
		Title:        newPaint(ansi.NewStyle().Bold()),
		TitleFocused: newPaint(ansi.NewStyle().Bold().ForegroundColor(ansi.Cyan)),
		Dim:          newPaint(ansi.NewStyle().Faint()),
		Status:       newPaint(ansi.NewStyle().Faint()),
		Error:        newPaint(ansi.NewStyle().ForegroundColor(ansi.Red)),
		Echo:         newPaint(ansi.NewStyle().Bold()),
		Note:         newPaint(ansi.NewStyle().Faint().ForegroundColor(ansi.Cyan)),
		Prompt:       newPaint(ansi.NewStyle().Bold().ForegroundColor(ansi.Cyan)),
		StatusBar:    newPaint(ansi.NewStyle().Reverse(true)),
		StatusKey:    newPaint(ansi.NewStyle().Reverse(true).Bold()),
		Done:         newPaint(ansi.NewStyle().ForegroundColor(ansi.Green)),
		Accent:       newPaint(ansi.NewStyle().ForegroundColor(ansi.Magenta)),
	}
	key := lipgloss.NewStyle().Bold(true)
	desc := lipgloss.NewStyle()
	sep := lipgloss.NewStyle().Faint(true)
	s.Help = help.Styles{
		ShortKey: key, ShortDesc: desc, ShortSeparator: sep, Ellipsis: sep,
		FullKey: key, FullDesc: desc, FullSeparator: sep,
	}
	state := textinput.StyleState{
		Text:        lipgloss.NewStyle(),
		Placeholder: lipgloss.NewStyle().Faint(true),
		Suggestion:  lipgloss.NewStyle().Faint(true),
		Prompt:      lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Cyan),
	}
	s.Input = textinput.Styles{Focused: state, Blurred: state, Cursor: textinput.CursorStyle{Blink: true}}
	return s
}
