// Package render renders the lab's Markdown with glamour, in the lesson
// pane's style. Only the generator and the tests import it, so that the
// natslab binary does not carry glamour (see package prose).
//
// It imports assets and lab/prose only.
package render

import (
	"io/fs"
	"path"
	"strings"

	"charm.land/glamour/v2"
	gansi "charm.land/glamour/v2/ansi"
	"github.com/charmbracelet/x/ansi"

	"natslab/assets"
	"natslab/lab/prose"
)

// Lines renders markdown for a text column inner cells wide, one string per
// line, without the blank lines glamour leaves at either end.
func Lines(markdown string, inner int) ([]string, error) {
	// Glamour wraps list items a little past its width (the marker is not
	// counted): narrow the wrap until every line fits, rather than cut.
	var body string
	for wrap := inner; ; wrap-- {
		r, err := glamour.NewTermRenderer(glamour.WithStyles(Style()), glamour.WithWordWrap(wrap))
		if err != nil {
			return nil, err
		}
		if body, err = r.Render(markdown); err != nil {
			return nil, err
		}
		widest := 0
		for _, l := range strings.Split(body, "\n") {
			widest = max(widest, ansi.StringWidth(strings.TrimRight(ansi.Strip(l), " ")))
		}
		if widest <= inner || wrap <= inner-6 || wrap <= 8 {
			break
		}
		wrap -= widest - inner - 1
	}
	lines := strings.Split(body, "\n")
	blank := func(s string) bool { return strings.TrimSpace(ansi.Strip(s)) == "" }
	for len(lines) > 0 && blank(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && blank(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	return lines, nil
}

// Style is glamour's style for lesson text: attributes and the terminal's
// basic colours only (NO_COLOR drops those on output), no margins (the pane
// has its own).
func Style() gansi.StyleConfig {
	yes := true
	no := false
	magenta, cyan, zero, one, two := "5", "6", uint(0), uint(1), uint(2)
	bar := "│ "
	return gansi.StyleConfig{
		Document: gansi.StyleBlock{Margin: &zero},
		Heading:  gansi.StyleBlock{StylePrimitive: gansi.StylePrimitive{BlockSuffix: "\n", Bold: &yes}},
		H1:       gansi.StyleBlock{StylePrimitive: gansi.StylePrimitive{Color: &magenta, Bold: &yes}},
		H2:       gansi.StyleBlock{StylePrimitive: gansi.StylePrimitive{Color: &magenta}},
		H3:       gansi.StyleBlock{StylePrimitive: gansi.StylePrimitive{Prefix: "### "}},
		H4:       gansi.StyleBlock{StylePrimitive: gansi.StylePrimitive{Prefix: "#### "}},
		H5:       gansi.StyleBlock{StylePrimitive: gansi.StylePrimitive{Prefix: "##### "}},
		H6:       gansi.StyleBlock{StylePrimitive: gansi.StylePrimitive{Prefix: "###### ", Bold: &no}},
		BlockQuote: gansi.StyleBlock{
			Indent: &one, IndentToken: &bar,
		},
		List:           gansi.StyleList{LevelIndent: 2},
		Strikethrough:  gansi.StylePrimitive{CrossedOut: &yes},
		Emph:           gansi.StylePrimitive{Italic: &yes},
		Strong:         gansi.StylePrimitive{Bold: &yes},
		HorizontalRule: gansi.StylePrimitive{Faint: &yes, Format: "\n────────\n"},
		Item:           gansi.StylePrimitive{BlockPrefix: "• "},
		Enumeration:    gansi.StylePrimitive{BlockPrefix: ". "},
		Task:           gansi.StyleTask{Ticked: "[✓] ", Unticked: "[ ] "},
		Link:           gansi.StylePrimitive{Underline: &yes},
		LinkText:       gansi.StylePrimitive{Bold: &yes},
		Image:          gansi.StylePrimitive{Underline: &yes},
		ImageText:      gansi.StylePrimitive{Format: "Image: {{.text}}"},
		Code:           gansi.StyleBlock{StylePrimitive: gansi.StylePrimitive{Color: &cyan}},
		CodeBlock: gansi.StyleCodeBlock{StyleBlock: gansi.StyleBlock{
			StylePrimitive: gansi.StylePrimitive{Color: &cyan}, Margin: &two,
		}},
		Table: gansi.StyleTable{},
	}
}

// Text is one of the lab's Markdown texts.
type Text struct {
	Name     string // welcome, or the episode's file name without .md
	Markdown string
}

// Texts are every Markdown text the lesson pane shows: the welcome text
// and each episode's lesson.
func Texts() ([]Text, error) {
	out := []Text{{Name: "welcome", Markdown: assets.Welcome}}
	paths, err := fs.Glob(assets.Episodes, "episodes/*.md")
	if err != nil {
		return nil, err
	}
	for _, p := range paths {
		b, err := fs.ReadFile(assets.Episodes, p)
		if err != nil {
			return nil, err
		}
		out = append(out, Text{Name: strings.TrimSuffix(path.Base(p), ".md"), Markdown: string(b)})
	}
	return out, nil
}

// AllWidths renders markdown at every width package prose keeps.
func AllWidths(markdown string) (map[int][]string, error) {
	out := map[int][]string{}
	for w := prose.MinWidth; w <= prose.MaxWidth; w++ {
		lines, err := Lines(markdown, w)
		if err != nil {
			return nil, err
		}
		out[w] = lines
	}
	return out, nil
}
