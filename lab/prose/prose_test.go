package prose_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"natslab/lab/prose"
	"natslab/lab/prose/internal/render"
)

// rendered.zip is what glamour makes of today's texts at every width; a
// lesson edited without regenerating fails here, saying what to run.
func TestRenderingsAreCurrent(t *testing.T) {
	texts, err := render.Texts()
	if err != nil {
		t.Fatal(err)
	}
	if len(texts) < 2 {
		t.Fatalf("found %d texts; expected the welcome text and the episodes", len(texts))
	}
	for _, text := range texts {
		want, err := render.AllWidths(text.Markdown)
		if err != nil {
			t.Fatalf("%s: %v", text.Name, err)
		}
		for width := prose.MinWidth; width <= prose.MaxWidth; width++ {
			got, ok := prose.Lines(text.Markdown, width)
			if !ok {
				t.Fatalf("%s has no rendering: run go generate ./lab/prose", text.Name)
			}
			if !slices.Equal(got, want[width]) {
				t.Fatalf("%s at %d columns differs from glamour's rendering: run go generate ./lab/prose", text.Name, width)
			}
		}
	}
}

// Every line fits its column and every text keeps its title.
func TestRenderingsFit(t *testing.T) {
	texts, err := render.Texts()
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range texts {
		title, _, _ := strings.Cut(strings.TrimPrefix(text.Markdown, "# "), "\n")
		for _, width := range []int{26, 40, 58, 76} {
			lines, ok := prose.Lines(text.Markdown, width)
			if !ok {
				t.Fatalf("%s has no rendering", text.Name)
			}
			for i, l := range lines {
				if w := ansi.StringWidth(strings.TrimRight(ansi.Strip(l), " ")); w > width {
					t.Errorf("%s at %d: line %d is %d wide: %q", text.Name, width, i+1, w, ansi.Strip(l))
				}
			}
			if strings.HasPrefix(text.Markdown, "# ") && !strings.Contains(ansi.Strip(strings.Join(lines, " ")), strings.Fields(title)[0]) {
				t.Errorf("%s at %d lacks its title %q", text.Name, width, title)
			}
		}
	}
}

func TestWidthsOutsideTheRangeUseItsEnds(t *testing.T) {
	narrow, ok1 := prose.Lines(welcome(t), 5)
	min, ok2 := prose.Lines(welcome(t), prose.MinWidth)
	wide, ok3 := prose.Lines(welcome(t), 500)
	max, ok4 := prose.Lines(welcome(t), prose.MaxWidth)
	if !ok1 || !ok2 || !ok3 || !ok4 || !slices.Equal(narrow, min) || !slices.Equal(wide, max) {
		t.Fatal("widths outside the range should get the nearest rendering")
	}
}

func TestUnknownTextIsReported(t *testing.T) {
	if _, ok := prose.Lines("# not a lesson\n", 40); ok {
		t.Fatal("a text that was never rendered should be reported")
	}
}

func TestDecodeRejectsDamage(t *testing.T) {
	for _, in := range []string{"x\n", "20 3\nonly one\n", "20 -1\n"} {
		if _, err := prose.Decode(strings.NewReader(in)); err == nil {
			t.Errorf("Decode(%q) should fail", in)
		}
	}
}

func welcome(t *testing.T) string {
	texts, err := render.Texts()
	if err != nil {
		t.Fatal(err)
	}
	return texts[0].Markdown
}

// A list item reads as one paragraph under its marker: its further lines
// hang under the item's text (never at the margin, where they would read
// as new paragraphs), and the source's line breaks inside it are gone.
func TestListItemsHangUnderTheirMarker(t *testing.T) {
	md := "- A stream captures subjects; anything published there is stored, whether\n  or not someone listens.\n- Short.\n\n1. **Who listens?** `jobs` lists the lab's subscribers and responders, and more words.\n"
	want := []string{
		"• A stream captures subjects; anything",
		"  published there is stored, whether or",
		"  not someone listens.",
		"• Short.",
		"",
		"1. Who listens? jobs lists the lab's",
		"   subscribers and responders, and more",
		"   words.",
	}
	renders(t, md, 40, want)
	texts, err := render.Texts()
	if err != nil {
		t.Fatal(err)
	}
	item := regexp.MustCompile(`^ *(• |\d+\. )`)
	for _, text := range texts {
		lines, _ := prose.Lines(text.Markdown, 46)
		inItem := false
		for i, l := range lines {
			plain := ansi.Strip(l)
			if strings.HasSuffix(strings.TrimRight(plain, " "), "-") && i+1 < len(lines) && !strings.HasPrefix(ansi.Strip(lines[i+1]), " ") && strings.TrimSpace(ansi.Strip(lines[i+1])) != "" {
				t.Errorf("%s at 46: line %d cuts a word after its hyphen: %q", text.Name, i+1, plain)
			}
			switch {
			case strings.TrimSpace(plain) == "":
				inItem = false
			case item.MatchString(plain):
				inItem = true
			case inItem && !strings.HasPrefix(plain, " "):
				t.Errorf("%s at 46: line %d continues a list item at the margin: %q", text.Name, i+1, plain)
			}
		}
	}
}

// A command wider than the pane stays a command: its code line breaks at a
// space and goes on indented under it, never at the margin, where it would
// read as the lesson's text.
func TestLongCommandsHangUnderThemselves(t *testing.T) {
	md := "A pull consumer.\n\n```\nconsumer add JOBS worker --pull --wait 3s --max-deliver 3 --defaults\nconsumer info JOBS worker\n```\n\nText after.\n"
	renders(t, md, 46, []string{
		"A pull consumer.",
		"",
		"  consumer add JOBS worker --pull --wait 3s",
		"    --max-deliver 3 --defaults",
		"  consumer info JOBS worker",
		"",
		"Text after.",
	})
}

// renders fails unless md, rendered inner cells wide, reads as want (its
// lines without styles and trailing spaces).
func renders(t *testing.T, md string, inner int, want []string) {
	t.Helper()
	lines, err := render.Lines(md, inner)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]string, len(lines))
	for i, l := range lines {
		got[i] = strings.TrimRight(ansi.Strip(l), " ")
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A subject or a name in a lesson's text (a code span without spaces) is
// never cut inside across two lines, as a table's narrow column would cut
// it ("orders." above ">"): the learner would read two words, or type one.
// Checked at the pane's text width at 80x24 (30) and at 100x30 (38).
func TestCodeSpansAreNeverCut(t *testing.T) {
	texts, err := render.Texts()
	if err != nil {
		t.Fatal(err)
	}
	span := regexp.MustCompile("`([^` \n]+)`")
	for _, text := range texts {
		for _, width := range []int{30, 38} {
			lines, ok := prose.Lines(text.Markdown, width)
			if !ok {
				t.Fatalf("%s has no rendering", text.Name)
			}
			plain := make([]string, len(lines))
			for i, l := range lines {
				plain[i] = ansi.Strip(l)
			}
			whole := strings.Join(plain, "\n")
			seen := map[string]bool{}
			for _, m := range span.FindAllStringSubmatch(text.Markdown, -1) {
				s := m[1]
				if seen[s] || len([]rune(s)) < 3 || len([]rune(s)) > width-4 {
					continue // too short to count apart, or longer than the column
				}
				seen[s] = true
				// Every time the text says it, the pane shows it whole.
				if want, got := strings.Count(text.Markdown, s), strings.Count(whole, s); got < want {
					t.Errorf("%s at %d: %s is cut across lines (%d of %d whole)", text.Name, width, s, got, want)
				}
			}
		}
	}
}

// A number with a full stop reads as a list item's marker at the start of
// a line: so it starts one only where the text has a numbered item or a
// numbered heading. A heading wrapped in a narrow pane keeps its one
// number ("1. 1. A consumer" read as an item inside an item), and a
// sentence ending with a number never carries it to the next line, where
// "2. It went past" would read as the second point of a list.
func TestNumbersStartOnlyTheirItems(t *testing.T) {
	md := "## 1. A consumer with short fuses\n\nThe floor is at sequence 2. It went past it.\n"
	renders(t, md, 24, []string{
		"1. A consumer with short",
		"fuses",
		"",
		"The floor is at",
		"sequence 2. It went past",
		"it.",
	})
	texts, err := render.Texts()
	if err != nil {
		t.Fatal(err)
	}
	numbered := regexp.MustCompile(`^ *(\d+)\. +(\S+)`)
	for _, text := range texts {
		// The numbers that start an item or a heading in the source, each
		// with the first word after it.
		starts := map[string]bool{}
		for _, l := range strings.Split(text.Markdown, "\n") {
			if m := numbered.FindStringSubmatch(strings.TrimLeft(l, "# ")); m != nil {
				starts[m[1]+" "+strings.Trim(m[2], "*`")] = true
			}
		}
		for width := prose.MinWidth; width <= prose.MaxWidth; width++ {
			lines, _ := prose.Lines(text.Markdown, width)
			for i, l := range lines {
				m := numbered.FindStringSubmatch(ansi.Strip(l))
				if m != nil && !starts[m[1]+" "+m[2]] {
					t.Errorf("%s at %d: line %d starts with a number the text does not number: %q", text.Name, width, i+1, ansi.Strip(l))
					break
				}
			}
		}
	}
}

// A command in a code block reads whole at every width: its first line at
// the block's margin and any further parts indented under it, never a
// part at the text's margin, where it reads as the lesson's words
// ("--subjects" alone under "stream add SHOP"). From 26 columns, the
// narrowest the pane's text gets.
func TestCommandsReadWholeAtEveryWidth(t *testing.T) {
	texts, err := render.Texts()
	if err != nil {
		t.Fatal(err)
	}
	indent := func(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }
	for _, text := range texts {
		var commands []string
		fenced := false
		for _, l := range strings.Split(text.Markdown, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "```") {
				fenced = !fenced
				continue
			}
			if fenced && strings.TrimSpace(l) != "" {
				commands = append(commands, strings.Join(strings.Fields(l), " "))
			}
		}
		for width := 26; width <= prose.MaxWidth; width++ {
			lines, _ := prose.Lines(text.Markdown, width)
			plain := make([]string, len(lines))
			for i, l := range lines {
				plain[i] = strings.TrimRight(ansi.Strip(l), " ")
			}
		command:
			for _, c := range commands {
				for i, l := range plain {
					first := strings.TrimSpace(l)
					if indent(l) < 2 || first == "" || !strings.HasPrefix(c, first) {
						continue
					}
					read := first
					for j := i + 1; read != c && j < len(plain); j++ {
						next := strings.TrimSpace(plain[j])
						if indent(plain[j]) <= indent(l) {
							break
						}
						// A part of a word too long for a line goes on
						// under it, without a space.
						if strings.HasPrefix(c, read+" "+next) {
							read += " " + next
						} else if strings.HasPrefix(c, read+next) {
							read += next
						} else {
							break
						}
					}
					if read == c {
						continue command
					}
				}
				t.Errorf("%s at %d: the command %q does not read whole under itself", text.Name, width, c)
			}
		}
	}
}
