package episode

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"natslab/lab/prose"
)

// Every lesson reads well in the lesson pane at its narrowest and widest
// (text columns of 26 and 76): rendered as the pane shows it, no line is
// wider than the column, and the title is there.
func TestLessonsFitTheirWidth(t *testing.T) {
	for _, ep := range catalog().Episodes {
		for _, width := range []int{26, 76} {
			lines, ok := prose.Lines(ep.Text, width)
			if !ok {
				t.Fatalf("%s has no rendering: run go generate ./lab/prose", ep.ID)
			}
			for i, line := range lines {
				if w := ansi.StringWidth(strings.TrimRight(ansi.Strip(line), " ")); w > width {
					t.Errorf("%s at %d columns: line %d is %d wide: %q", ep.ID, width, i+1, w, ansi.Strip(line))
				}
			}
			if text := strings.Join(strings.Fields(ansi.Strip(strings.Join(lines, " "))), " "); !strings.Contains(text, ep.Title) {
				t.Errorf("%s at %d: the rendered text lacks its title %q", ep.ID, width, ep.Title)
			}
		}
	}
}

// The Markdown source itself stays readable in a plain terminal or editor:
// prose lines of at most 76 characters, and code lines that fit an
// 80-column pane without wrapping (a wrapped command cannot be copied).
func TestLessonSourceLines(t *testing.T) {
	for _, ep := range catalog().Episodes {
		code := false
		for i, line := range strings.Split(ep.Text, "\n") {
			if strings.HasPrefix(line, "```") {
				code = !code
				continue
			}
			limit := 76
			if code {
				limit = 74 // a pane's margins and the code block's indent leave 74 of 80
			}
			if n := len([]rune(line)); n > limit {
				t.Errorf("%s.md line %d is %d characters long (at most %d): %q", ep.ID, i+1, n, limit, line)
			}
		}
	}
}
