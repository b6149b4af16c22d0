package kit

import "natslab/broker/text"

// TryRows is how many rows Try takes for lead and commands at width w, or
// 0 where a command is wider than w less its indent.
func TryRows(w int, lead string, commands ...string) int {
	lines, ok := tryLead(w, lead, commands)
	if !ok {
		return 0
	}
	return len(lines) + len(commands)
}

// tryLead is lead wrapped to w; not ok where a command is wider than w
// less its indent.
func tryLead(w int, lead string, commands []string) (lines []string, ok bool) {
	for _, cmd := range commands {
		if text.Width(cmd) > w-tryIndent {
			return nil, false
		}
	}
	return text.Wrap(lead, w), true
}

// tryIndent sets the commands off from the sentence that leads to them.
const tryIndent = 2

// Try draws what to type to bring a scene with nothing to show yet to
// life: lead wrapped at words to w, then each command whole on a row of
// its own, indented, from (x, y) down, where that fits in rows rows. All
// or nothing: a list cut short reads as the whole of it, and a command cut
// at the border, typed, fails. It returns the rows it took, 0 where it
// drew nothing.
func (c *Canvas) Try(x, y, w, rows int, lead string, commands ...string) int {
	lines, ok := tryLead(w, lead, commands)
	n := len(lines) + len(commands)
	if !ok || n > rows {
		return 0
	}
	for _, l := range lines {
		c.Text(x, y, l, Faint)
		y++
	}
	for _, cmd := range commands {
		c.Text(x+tryIndent, y, cmd, Strong)
		y++
	}
	return n
}

// Offer is what a scene offers to type while the server has no stream for
// it: the lead above the lines to type, the lines, and the one line that
// says it where the pane has no rows for them.
type Offer struct {
	Lead  string
	Lines []string
	Short string
}

// StreamOffer offers the lesson's lines (scenes.Env's Try) under
// lessonLead, or the scene's example where the lesson names none.
func StreamOffer(lesson []string, lessonLead string, example Offer) Offer {
	if len(lesson) == 0 {
		return example
	}
	return Offer{lessonLead, lesson, "no stream yet: " + lesson[0] + " makes the lesson's"}
}
