// Package text holds the few text helpers every layer of natslab shares:
// plurals, cutting a string to a width on screen, and headers in a stable
// order. It lives under broker because broker is the layer every other
// package (lab, scenes, broker/command) may import; it imports nothing of
// natslab and nothing of NATS.
package text

import (
	"iter"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/charmbracelet/x/ansi"
)

// Integer is any integer type a count comes in.
type Integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// Pattern is a regular expression compiled the first time it is asked
// for, not while Go initialises the package that declares it: every start
// of natslab initialises every package it links, whatever it then runs, and
// most starts use few of the patterns. TestPatternsCompileOnFirstUse
// (layout_test.go) compiles every one natslab declares.
func Pattern(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// Plural is one or many, by n: Plural(1, "message", "messages") is
// "message", Plural(3, …) "messages".
func Plural[N Integer](n N, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Count is n and the word that goes with it: Count(1, "stream", "streams")
// is "1 stream", Count(0, …) "0 streams".
func Count[N Integer](n N, one, many string) string {
	var s string
	if n < 0 {
		s = strconv.FormatInt(int64(n), 10)
	} else {
		s = strconv.FormatUint(uint64(n), 10)
	}
	return s + " " + Plural(n, one, many)
}

// NoBreak joins two words that Wrap, WrapIn and Words never put on
// different lines, or cut between: a number and the word it belongs to
// ("the oldest"+NoBreak+"3"), so that a line never starts or ends with a
// number that says nothing on its own. Those helpers, Clip and Fit show
// it as a blank.
const NoBreak = "\u00a0"

// Unbroken is s with its blanks made NoBreak, for a number and its word
// to wrap as one: Unbroken(Count(3, "message", "messages")), or
// Unbroken("oldest 3").
func Unbroken(s string) string { return strings.ReplaceAll(s, " ", NoBreak) }

// Plain is s with each NoBreak shown as the blank it stands for: what a
// line wrapped elsewhere prints.
func Plain(s string) string { return strings.ReplaceAll(s, NoBreak, " ") }

// Clip cuts s to at most width cells on screen, ending a cut with "…".
// It measures what a terminal shows: wide characters take two cells and
// ANSI styling takes none (and survives the cut).
func Clip(s string, width int) string {
	if width <= 0 {
		return ""
	}
	if printableASCII(s) {
		// One cell a byte: what nearly every caption is, on the frame path.
		if len(s) <= width {
			return s
		}
		return s[:width-1] + "…"
	}
	return ansi.Truncate(Plain(s), width, "…")
}

// Width is how many cells s takes on screen.
func Width(s string) int {
	if printableASCII(s) {
		return len(s)
	}
	return ansi.StringWidth(s)
}

// Fit is the first of wordings at most width cells wide, or "" when none
// is: given longest first, the fullest wording that fits, so a narrow
// screen says less rather than a word cut in two.
func Fit(width int, wordings ...string) string {
	for _, w := range wordings {
		if Width(w) <= width {
			return Plain(w)
		}
	}
	return ""
}

// Wrap breaks s at blanks (never at a NoBreak) into lines of at most
// width cells; only a word wider than width on its own is cut (Clip).
func Wrap(s string, width int) []string {
	lines := wrap(s, width)
	for i, l := range lines {
		lines[i] = Plain(l)
	}
	return lines
}

// wrap is Wrap with each NoBreak kept, for WrapIn to cut its last line
// at a blank too.
func wrap(s string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.FieldsFunc(s, breaksAt) {
		switch {
		case line == "":
			line = w
		case Width(line)+1+Width(w) <= width:
			line += " " + w
		default:
			lines = append(lines, clipKept(line, width))
			line = w
		}
	}
	if line != "" {
		lines = append(lines, clipKept(line, width))
	}
	return lines
}

// breaksAt reports whether r is a blank a line may break at.
func breaksAt(r rune) bool { return r != '\u00a0' && unicode.IsSpace(r) }

// clipKept is Clip of a line wider than width, which keeps no NoBreak;
// a line that fits keeps them.
func clipKept(line string, width int) string {
	if Width(line) <= width {
		return line
	}
	return Clip(line, width)
}

// Words is s cut at a blank to at most width cells, ending " …" where it
// was cut: whole words (and any blanks s starts with), or "" when not even
// the first word fits with the mark.
func Words(s string, width int) string {
	if Width(s) <= width {
		return Plain(s)
	}
	end := -1
	for i := 1; i < len(s); i++ {
		if s[i] != ' ' || s[i-1] == ' ' {
			continue
		}
		if Width(s[:i])+2 > width {
			break
		}
		end = i
	}
	if end < 0 || strings.TrimSpace(s[:end]) == "" {
		return ""
	}
	return Plain(s[:end]) + " …"
}

// WrapIn is the first of wordings that wraps (Wrap) into at most n lines
// of width cells; when none does, the last in n lines, the last of them
// ending " …" after the words that fit (Words). Given fullest first, it
// says as much as the room holds and never cuts a word in two.
func WrapIn(width, n int, wordings ...string) []string {
	if n <= 0 {
		return nil
	}
	var lines []string
	for _, w := range wordings {
		if lines = wrap(w, width); len(lines) <= n {
			break
		}
	}
	if len(lines) > n {
		lines = append(lines[:n-1], Words(strings.Join(lines[n-1:], " "), width))
	}
	for i, l := range lines {
		lines[i] = Plain(l)
	}
	return lines
}

// Leading is the first of parts that fit in width cells joined by sep:
// whole parts, never one cut, and none after the first that does not fit.
func Leading(width int, sep string, parts ...string) []string {
	n, used := 0, 0
	for _, p := range parts {
		add := Width(p)
		if n > 0 {
			add += Width(sep)
		}
		if used+add > width {
			break
		}
		used += add
		n++
	}
	return parts[:n]
}

// Hanging lays a row of a two-column list out in width cells: term
// indented by two, desc from column col, wrapped (Wrap) in its own column,
// so that no line of it starts under the terms. A term too wide for its
// column has a line of its own (wrapped too, where wider than width),
// desc under it; where the column would be too narrow to read (under 20
// cells), desc goes under the term, indented by four.
func Hanging(term, desc string, col, width int) []string {
	at := col
	if width-at < 20 {
		at = min(4, col)
	}
	lines := wrap(desc, max(width-at, 1))
	pad := strings.Repeat(" ", at)
	var out []string
	if head := "  " + term; Width(head)+1 <= at && len(lines) > 0 {
		out = append(out, head+strings.Repeat(" ", at-Width(head))+Plain(lines[0]))
		lines = lines[1:]
	} else {
		for _, t := range wrap(term, max(width-2, 1)) {
			out = append(out, "  "+Plain(t))
		}
	}
	for _, l := range lines {
		out = append(out, pad+Plain(l))
	}
	return out
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c > '~' {
			return false
		}
	}
	return true
}

// Headers yields every header value, keys in sorted order and each key's
// values in the order they came: message headers are a map, and printing
// them in map order would differ from one run to the next.
func Headers(h map[string][]string) iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		keys := make([]string, 0, len(h))
		for k := range h {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			for _, v := range h[k] {
				if !yield(k, v) {
					return
				}
			}
		}
	}
}
