package episode

import (
	"strings"
	"testing"

	"charm.land/glamour/v2"
	"github.com/charmbracelet/x/ansi"
)

// Every lesson reads well at 80 and at 160 columns: rendered the way the
// lesson pane renders it, no line is wider than the pane.
func TestLessonsFitTheirWidth(t *testing.T) {
	for _, ep := range catalog().Episodes {
		for _, width := range []int{80, 160} {
			for _, style := range []string{"dark", "notty"} {
				out, err := RenderLesson(ep.Lesson, width, style)
				if err != nil {
					t.Fatalf("%s at %d: %v", ep.ID, width, err)
				}
				for i, line := range strings.Split(out, "\n") {
					if w := ansi.StringWidth(line); w > width {
						t.Errorf("%s (%s) at %d columns: line %d is %d wide: %q", ep.ID, style, width, i+1, w, ansi.Strip(line))
					}
				}
				if !strings.Contains(ansi.Strip(out), ep.Title) {
					t.Errorf("%s at %d: the rendered text lacks its title %q", ep.ID, width, ep.Title)
				}
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
		for i, line := range strings.Split(ep.Lesson, "\n") {
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

// RenderLesson renders an episode's Markdown for a pane width columns wide
// in one of glamour's standard styles ("dark", "light", "notty" …; "" is
// "dark"). Lesson texts are written so that no line overflows at 80 or
// 160 columns (the tests check both).
func RenderLesson(md string, width int, style string) (string, error) {
	if style == "" {
		style = "dark"
	}
	r, err := glamour.NewTermRenderer(glamour.WithStandardStyle(style), glamour.WithWordWrap(wrapWidth(width)))
	if err != nil {
		return "", err
	}
	return r.Render(md)
}

// wrapWidth is the width glamour wraps at, its margins included: a column
// to spare at the right.
func wrapWidth(width int) int {
	return max(width-2, 20)
}
