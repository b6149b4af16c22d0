package episode

import (
	"charm.land/glamour/v2"
)

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
