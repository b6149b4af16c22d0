// Package render renders the lab's Markdown with glamour, in the lesson
// pane's style. Only the generator and the tests import it, so that the
// natslab binary does not carry glamour (see package prose).
//
// It imports assets and lab/prose only.
package render

import (
	"io/fs"
	"path"
	"regexp"
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
	// Code lines are broken for the wrap in use: glamour would break a
	// longer one again at its own width, its rest at the text's margin.
	var body string
	for wrap := inner; ; wrap-- {
		md := protectBreaks(glueNumbers(hangCode(markdown, wrap-codeMargin)), inner-4)
		r, err := glamour.NewTermRenderer(glamour.WithStyles(Style()), glamour.WithWordWrap(wrap))
		if err != nil {
			return nil, err
		}
		if body, err = r.Render(md); err != nil {
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
	body = strings.NewReplacer(nbHyphen, "-", nbDot, ".", nbComma, ",").Replace(body)
	lines := hangItems(strings.Split(body, "\n"), inner)
	for i, l := range lines {
		lines[i] = strings.ReplaceAll(l, numberGlue, " ")
	}
	blank := func(s string) bool { return strings.TrimSpace(ansi.Strip(s)) == "" }
	for len(lines) > 0 && blank(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && blank(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	return lines, nil
}

// nbHyphen is the non-breaking hyphen, one cell wide like "-".
const nbHyphen = "\u2011"

// nbDot and nbComma stand in for a dot and a comma inside a word while
// glamour wraps (the one dot leader and the single low quotation mark,
// one cell wide each): glamour breaks a list item's words at them too,
// and a subject cut after "orders." reads as two words.
const (
	nbDot   = "\u2024"
	nbComma = "\u201a"
)

// numberGlue stands in, while glamour wraps and hangItems finds the list
// items, for a space that must not break or start an item: one cell wide,
// and no space, so neither wraps at it. Lines turns it back into a space
// afterwards.
const numberGlue = "\u2423"

var (
	// numberedHeading is a heading that starts with a number: "## 1. Title".
	numberedHeading = regexp.MustCompile(`^(#{1,6} +\d+\.) `)
	// listMarker is the marker of a list item's first line.
	listMarker = regexp.MustCompile(`^ *(\d+\.|[-*+]) `)
	// numberInText is a number ending with a full stop inside a line (a
	// sentence's end: "at stream sequence 2. It went", "`tries: 2`. Take"),
	// its code span or emphasis closed before the stop.
	numberInText = regexp.MustCompile("(\\S) (\\d+[`*_]*\\.)( |$)")
)

// glueNumbers keeps a number with a full stop from starting a line where
// the text does not number an item, since a line starting "2. " reads as
// a list's second point (and hangItems would hang the lines after it under
// it): a numbered heading keeps its number with its first word, and a
// number inside a sentence stays with the word before it. Code blocks are
// left as they are.
func glueNumbers(markdown string) string {
	lines := strings.Split(markdown, "\n")
	fenced := false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		if m := numberedHeading.FindStringSubmatch(l); m != nil {
			lines[i] = m[1] + numberGlue + l[len(m[0]):]
			continue
		}
		marker := listMarker.FindString(l)
		lines[i] = marker + numberInText.ReplaceAllString(l[len(marker):], "${1}"+numberGlue+"${2}${3}")
	}
	return strings.Join(lines, "\n")
}

// ruleRow matches a table's delimiter row or a thematic break.
var ruleRow = regexp.MustCompile(`^[\s|:-]+$`)

// protectBreaks makes every hyphen, and every dot or comma followed by
// more of its word, non-breaking, so glamour wraps at spaces only:
// --flags, compare-and-set, orders.internal.> and {{partition(3,1)}} stay
// whole (a command or a subject cut inside reads as two). A word wider
// than maxWord keeps its dots and commas, the only places it can break.
// List markers, table rules, dashes standing alone and a sentence's full
// stop keep theirs; Lines turns them back afterwards.
func protectBreaks(markdown string, maxWord int) string {
	lines := strings.Split(markdown, "\n")
	for i, l := range lines {
		if ruleRow.MatchString(l) {
			continue
		}
		b := []byte(l)
		var out strings.Builder
		lead := len(l) - len(strings.TrimLeft(l, " "))
		wordStart := 0
		for j, c := range b {
			if c == ' ' {
				wordStart = j + 1
			}
			marker := j == lead && j+1 < len(b) && b[j+1] == ' '
			if c == '-' && !marker && j+1 < len(b) && b[j+1] != ' ' {
				out.WriteString(nbHyphen)
				continue
			}
			inner := j > lead && b[j-1] != ' ' && j+1 < len(b) && !strings.ContainsRune(" `*", rune(b[j+1]))
			if (c == '.' || c == ',') && inner && wordWidth(l, wordStart) <= maxWord {
				out.WriteString(map[byte]string{'.': nbDot, ',': nbComma}[c])
				continue
			}
			out.WriteByte(c)
		}
		lines[i] = out.String()
	}
	return strings.Join(lines, "\n")
}

// wordWidth is the width of the word of l that starts at byte from.
func wordWidth(l string, from int) int {
	word, _, _ := strings.Cut(l[from:], " ")
	return ansi.StringWidth(word)
}

// codeMargin is the code blocks' margin in Style.
const codeMargin = 2

// hangCode breaks each line of a fenced code block that is wider than
// width at spaces, its further parts indented two more than the line, so a
// long command reads as one (glamour would go on at the margin, where it
// reads as text). A quoted argument stays whole where it fits; a word
// wider than a line goes on in parts under it (splitWord).
func hangCode(markdown string, width int) string {
	lines := strings.Split(markdown, "\n")
	var out []string
	fenced := false
	for _, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			out = append(out, l)
			continue
		}
		if !fenced || ansi.StringWidth(l) <= width {
			out = append(out, l)
			continue
		}
		indent := l[:len(l)-len(strings.TrimLeft(l, " "))]
		lead := indent
		cur, col := lead, len(lead)
		room := width - len(indent) - 2 // a further line's
		for _, word := range commandWords(l, room) {
			for i, part := range splitWord(word, room) {
				w := ansi.StringWidth(part)
				if col > len(lead) && (i > 0 || col+1+w > width) {
					out = append(out, cur)
					lead = indent + "  "
					cur, col = lead, len(lead)
				}
				if col > len(lead) {
					cur += " "
					col++
				}
				cur += part
				col += w
			}
		}
		out = append(out, cur)
	}
	return strings.Join(out, "\n")
}

// commandWords splits a command line at its spaces, a quoted argument
// ("order 1") kept as one word where it fits within width: a body cut
// inside its quotes reads as two arguments.
func commandWords(l string, width int) []string {
	var words []string
	var cur strings.Builder
	var quote rune
	for _, c := range l {
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == ' ':
			if cur.Len() > 0 {
				words = append(words, cur.String())
				cur.Reset()
			}
			continue
		}
		cur.WriteRune(c)
	}
	if cur.Len() > 0 {
		words = append(words, cur.String())
	}
	var out []string
	for _, w := range words {
		if ansi.StringWidth(w) > width {
			out = append(out, strings.Fields(w)...)
		} else {
			out = append(out, w)
		}
	}
	return out
}

// splitWord cuts a word wider than width (a long subject, a template) into
// parts that fit, each after a dot, comma, slash or colon where there is
// one, so that the parts go on lines of their own under the command
// instead of glamour cutting the word and starting its rest at the
// text's margin.
func splitWord(word string, width int) []string {
	var parts []string
	for ansi.StringWidth(word) > width && width > 0 {
		runes := []rune(word)
		cut := min(width, len(runes))
		for i := cut; i > 1; i-- {
			if strings.ContainsRune(".,/:", runes[i-1]) {
				cut = i
				break
			}
		}
		parts = append(parts, string(runes[:cut]))
		word = string(runes[cut:])
	}
	return append(parts, word)
}

// itemStart matches the first line of a list item as glamour draws it.
var itemStart = regexp.MustCompile(`^ *(• |\d+\. )`)

// hangItems rewraps each list item as one paragraph under its marker:
// glamour keeps the source's line breaks inside an item and starts its
// further lines at the margin, where they read as new paragraphs.
func hangItems(lines []string, inner int) []string {
	var out []string
	for i := 0; i < len(lines); i++ {
		m := itemStart.FindString(ansi.Strip(lines[i]))
		if m == "" {
			out = append(out, lines[i])
			continue
		}
		item := []string{strings.TrimRight(lines[i], " ")}
		for i+1 < len(lines) {
			next := ansi.Strip(lines[i+1])
			if strings.TrimSpace(next) == "" || itemStart.MatchString(next) {
				break
			}
			i++
			item = append(item, strings.TrimSpace(lines[i]))
		}
		if len(item) == 1 && ansi.StringWidth(item[0]) <= inner {
			out = append(out, item[0])
			continue
		}
		// The marker is plain text at the start of the raw line.
		body := strings.TrimPrefix(strings.Join(item, " "), m)
		indent := strings.Repeat(" ", ansi.StringWidth(m))
		for j, l := range wrapStyled(body, max(inner-len(indent), 8)) {
			if j == 0 {
				out = append(out, m+l)
			} else {
				out = append(out, indent+l)
			}
		}
	}
	return out
}

// sgr matches one SGR escape sequence (a style change).
var sgr = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// wrapStyled breaks text at spaces into lines at most width cells wide (a
// longer word stands alone), closing the styles open at each line's end
// and opening them again on the next, so no style leaks past a line.
func wrapStyled(text string, width int) []string {
	var lines []string
	var cur strings.Builder
	col := 0
	var open []string // SGR sequences in effect at the end of cur
	flush := func() {
		l := cur.String()
		if len(open) > 0 {
			l += "\x1b[m"
		}
		lines = append(lines, l)
		cur.Reset()
		col = 0
		for _, o := range open {
			cur.WriteString(o)
		}
	}
	for _, word := range strings.Fields(text) {
		w := ansi.StringWidth(word)
		if col > 0 && col+1+w > width {
			flush()
		}
		if col > 0 {
			cur.WriteByte(' ')
			col++
		}
		cur.WriteString(word)
		col += w
		for _, seq := range sgr.FindAllString(word, -1) {
			if seq == "\x1b[m" || seq == "\x1b[0m" {
				open = nil
			} else {
				open = append(open, seq)
			}
		}
	}
	if col > 0 || cur.Len() > 0 {
		l := cur.String()
		if len(open) > 0 {
			l += "\x1b[m"
		}
		lines = append(lines, l)
	}
	return lines
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
