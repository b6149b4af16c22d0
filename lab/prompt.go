package lab

import (
	"fmt"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"

	"natslab/broker/command"
)

// Editing the prompt. A terminal without bracketed paste sends a paste as
// one key press per character, and the text input's cost per key grows
// with the line (it measures the whole line's width each time): 100 KB
// applied key by key takes minutes, and every key typed meanwhile waits
// behind it. So once the line is long, typed characters are gathered and
// applied together, once a frame: the screen shows no more often anyway,
// and a paste of any size costs a few applications. And the
// line never grows past command.MaxLineLength, the most a command may be;
// the hint says, once, that it was cut.

// coalesceFrom is the line length from which typed characters are
// gathered rather than applied one by one: below it a key costs nothing
// worth saving, and typing shows each character as it comes.
const coalesceFrom = 2 * 1024

// typedMsg applies the characters gathered since the last one.
type typedMsg struct{}

// typedText reports whether a key press types text into the line (a
// character, shifted or not), as opposed to editing it.
func typedText(k tea.KeyPressMsg) bool {
	return k.Text != "" && k.Mod&^tea.ModShift == 0
}

// typeText puts a key press's text into the line, or gathers it.
func (p *cmdPane) typeText(k tea.KeyPressMsg) tea.Cmd {
	text := k.Text
	if room := command.MaxLineLength - p.inBytes - len(p.pending); len(text) > room {
		if text = p.cutAt(text, room); text == "" {
			return nil
		}
		k.Text = text
	}
	if len(p.pending) == 0 && p.inBytes < coalesceFrom {
		var cmd tea.Cmd
		p.in, cmd = p.in.Update(k)
		p.edited()
		return cmd
	}
	p.pending = append(p.pending, text...)
	if p.applyArmed {
		return nil
	}
	p.applyArmed = true
	return tea.Tick(frame, func(time.Time) tea.Msg { return typedMsg{} })
}

// applyTyped puts the gathered characters into the line at the cursor.
func (p *cmdPane) applyTyped() {
	p.applyArmed = false
	if len(p.pending) == 0 {
		return
	}
	text := string(p.pending)
	p.pending = p.pending[:0]
	p.in, _ = p.in.Update(tea.PasteMsg{Content: text})
	p.edited()
}

// paste puts pasted text into the line (line breaks and tabs already made
// spaces), cut at the limit.
func (p *cmdPane) paste(text string) tea.Cmd {
	p.applyTyped()
	if room := command.MaxLineLength - p.inBytes; len(text) > room {
		text = p.cutAt(text, room)
	}
	var cmd tea.Cmd
	p.in, cmd = p.in.Update(tea.PasteMsg{Content: text})
	p.edited()
	return cmd
}

// editKey gives the text input a key that is not typed text (a cursor
// move, a deletion): what was typed before it goes in first.
func (p *cmdPane) editKey(k tea.KeyPressMsg) tea.Cmd {
	p.applyTyped()
	var cmd tea.Cmd
	p.in, cmd = p.in.Update(k)
	p.edited()
	p.cut = p.cut && p.inBytes >= command.MaxLineLength
	return cmd
}

// cutHints say that the line was cut, fullest first: the pane shows the
// fullest that fits its width whole (see hintRow).
func cutHints() []string {
	kib := command.MaxLineLength / 1024
	return []string{
		fmt.Sprintf("the line is cut at %d KiB, the most one command may be: publish a larger body from a file with the real CLI", kib),
		fmt.Sprintf("the line is cut at %d KiB, a command's most: publish larger bodies with the real CLI", kib),
		fmt.Sprintf("the line is cut at %d KiB, a command's most: larger bodies need the real CLI", kib),
	}
}

// cutAt keeps what fits of text in room bytes (whole characters) and says
// once that the line was cut.
func (p *cmdPane) cutAt(text string, room int) string {
	room = max(room, 0)
	for room > 0 && !utf8.RuneStart(text[room]) {
		room--
	}
	if !p.cut {
		p.cut = true
		p.hint = cutHints()[0]
	}
	return text[:room]
}

// edited notes that the line may have changed: the prompt row is drawn
// again, and once the text changed, history browsing is over.
func (p *cmdPane) edited() {
	n := len(p.in.Value())
	p.inVersion++
	if n != p.inBytes {
		p.hist.reset()
	}
	p.inBytes = n
}

// setLine replaces the line (history, completion, a reset).
func (p *cmdPane) setLine(s string, cursor int) {
	p.pending = p.pending[:0]
	p.in.SetValue(s)
	p.in.SetCursor(cursor)
	p.cut = false
	p.inVersion++
	p.inBytes = len(s)
}
