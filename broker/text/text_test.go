package text

import (
	"strings"
	"testing"
)

// header stands for nats.Header: a named map type, as callers pass.
type header map[string][]string

func TestPluralAndCount(t *testing.T) {
	for _, c := range []struct {
		n           int64
		word, count string
	}{
		{0, "messages", "0 messages"},
		{1, "message", "1 message"},
		{2, "messages", "2 messages"},
		{-1, "messages", "-1 messages"},
	} {
		if got := Plural(c.n, "message", "messages"); got != c.word {
			t.Errorf("Plural(%d) = %q, want %q", c.n, got, c.word)
		}
		if got := Count(c.n, "message", "messages"); got != c.count {
			t.Errorf("Count(%d) = %q, want %q", c.n, got, c.count)
		}
	}
	if got := Count(uint64(1<<63), "x", "xs"); got != "9223372036854775808 xs" {
		t.Errorf("Count of a large uint64 = %q", got)
	}
}

func TestClipMeasuresCells(t *testing.T) {
	for _, c := range []struct {
		in    string
		width int
		want  string
	}{
		{"orders", 10, "orders"},
		{"orders", 6, "orders"},
		{"orders", 5, "orde…"},
		{"orders", 1, "…"},
		{"ordres…", 7, "ordres…"},
		{"ordres…x", 7, "ordres…"},
		{"orders", 0, ""},
		{"orders", -3, ""},
		{"日本語の件名", 6, "日本…"}, // two cells a character: 2+2+1
		{"\x1b[1morders\x1b[m", 4, "\x1b[1mord…\x1b[m"},
	} {
		if got := Clip(c.in, c.width); got != c.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.in, c.width, got, c.want)
		}
	}
}

func TestHeadersSorted(t *testing.T) {
	h := header{"b": {"2", "3"}, "A": {"1"}, "a": {"0"}}
	var got []string
	for k, v := range Headers(h) {
		got = append(got, k+"="+v)
	}
	want := []string{"A=1", "a=0", "b=2", "b=3"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	n := 0
	for range Headers(h) {
		n++
		break
	}
	if n != 1 {
		t.Fatal("stopping early should stop the iteration")
	}
}

func TestFitWrapAndWordsKeepWordsWhole(t *testing.T) {
	if got := Fit(10, "a long wording", "short", "s"); got != "short" {
		t.Errorf("Fit = %q, want the first that fits", got)
	}
	if got := Fit(2, "long", "xyz"); got != "" {
		t.Errorf("Fit with none fitting = %q, want empty", got)
	}
	wrapped := Wrap(`stream add EVENTS --subjects "events.>" --defaults makes one`, 21)
	want := []string{"stream add EVENTS", `--subjects "events.>"`, "--defaults makes one"}
	if len(wrapped) != len(want) {
		t.Fatalf("Wrap = %q, want %q", wrapped, want)
	}
	for i := range want {
		if wrapped[i] != want[i] {
			t.Errorf("Wrap line %d = %q, want %q", i, wrapped[i], want[i])
		}
	}
	for _, c := range []struct {
		in    string
		width int
		want  string
	}{
		{"the server is down", 18, "the server is down"},
		{"the server is down", 17, "the server is …"},
		{"the server is down", 4, ""},
		{"the server is down", 5, "the …"},
	} {
		if got := Words(c.in, c.width); got != c.want {
			t.Errorf("Words(%q, %d) = %q, want %q", c.in, c.width, got, c.want)
		}
	}
}

func TestWordsKeepsLeadingBlanks(t *testing.T) {
	if got := Words(" ack floor #1 · 1 pending", 14); got != " ack floor …" {
		t.Errorf("Words = %q, want the leading blank kept", got)
	}
}

func TestWrapInTakesTheFirstWordingThatFits(t *testing.T) {
	for _, c := range []struct {
		width, n int
		wordings []string
		want     []string
	}{
		{10, 2, []string{"the server is down"}, []string{"the server", "is down"}},
		{10, 1, []string{"the server is down", "down"}, []string{"down"}},
		{10, 1, []string{"the server is down"}, []string{"the …"}},
		{12, 2, []string{"a b c d e f g h i j k l m n o p"}, []string{"a b c d e f", "g h i j k …"}},
		{10, 0, []string{"down"}, nil},
	} {
		got := WrapIn(c.width, c.n, c.wordings...)
		if strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
			t.Errorf("WrapIn(%d, %d, %q) = %q, want %q", c.width, c.n, c.wordings, got, c.want)
		}
	}
}

func TestLeadingKeepsWholeParts(t *testing.T) {
	parts := []string{"cursor 6", "ack floor 6", "1 to deliver"}
	for _, c := range []struct {
		width int
		want  int
	}{{40, 3}, {33, 2}, {22, 2}, {21, 1}, {7, 0}} {
		if got := Leading(c.width, " · ", parts...); len(got) != c.want {
			t.Errorf("Leading(%d) = %q, want the first %d", c.width, got, c.want)
		}
	}
}

// TestNoBreakKeepsANumberWithItsWord: "the oldest 1" wraps as a whole,
// never "the oldest" over a "1" alone, and comes out with a plain blank.
func TestNoBreakKeepsANumberWithItsWord(t *testing.T) {
	s := "the new limits dropped the oldest" + NoBreak + "1"
	if got, want := strings.Join(Wrap(s, 33), "|"), "the new limits dropped the|oldest 1"; got != want {
		t.Errorf("Wrap = %q, want %q", got, want)
	}
	if got, want := strings.Join(Wrap(s, 40), "|"), "the new limits dropped the oldest 1"; got != want {
		t.Errorf("Wrap where it fits = %q, want %q", got, want)
	}
	if got, want := strings.Join(WrapIn(19, 2, s), "|"), "the new limits|dropped the …"; got != want {
		t.Errorf("WrapIn = %q, want %q", got, want)
	}
	if got, want := strings.Join(WrapIn(40, 1, s), "|"), "the new limits dropped the oldest 1"; got != want {
		t.Errorf("WrapIn where it fits = %q, want %q", got, want)
	}
	if got, want := Words(s, 34), "the new limits dropped the …"; got != want {
		t.Errorf("Words = %q, want %q", got, want)
	}
	if got, want := Words(s, 35), "the new limits dropped the oldest 1"; got != want {
		t.Errorf("Words where it fits = %q, want %q", got, want)
	}
	if got, want := Fit(35, s), "the new limits dropped the oldest 1"; got != want {
		t.Errorf("Fit = %q, want %q", got, want)
	}
	if got, want := Clip(s, 35), "the new limits dropped the oldest 1"; got != want {
		t.Errorf("Clip = %q, want %q", got, want)
	}
	if got, want := Clip(s, 34), "the new limits dropped the oldest…"; got != want {
		t.Errorf("Clip cut = %q, want %q", got, want)
	}
	if got := Width(s); got != 35 {
		t.Errorf("Width = %d, want 35: NoBreak takes one cell", got)
	}
	// Other blanks still break.
	if got, want := strings.Join(Wrap("a\tb\nc", 1), "|"), "a|b|c"; got != want {
		t.Errorf("Wrap at tabs and newlines = %q, want %q", got, want)
	}
}

func TestUnbrokenWrapsAsOne(t *testing.T) {
	s := "DISK came back with " + Unbroken(Count(3, "message", "messages"))
	if got, want := strings.Join(Wrap(s, 22), "|"), "DISK came back with|3 messages"; got != want {
		t.Errorf("Wrap = %q, want %q", got, want)
	}
}

// A list's row wraps its description in its own column, never under the
// terms; a term too wide for its column has a line of its own.
func TestHangingKeepsTheDescriptionInItsColumn(t *testing.T) {
	got := Hanging("jobs", "List the commands running in the background, every one of them", 10, 40)
	want := []string{
		"  jobs    List the commands running in",
		"          the background, every one of",
		"          them",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	got = Hanging("leaf start | leaf stop", "Start or stop the leaf node", 10, 40)
	want = []string{
		"  leaf start | leaf stop",
		"          Start or stop the leaf node",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, l := range Hanging("node ls | node stop NAME | node start [NAME]", "List the cluster's nodes, stop one and start it again", 25, 30) {
		if Width(l) > 30 || !strings.HasPrefix(l, "  ") {
			t.Errorf("in a narrow pane %q is wider than 30 or not indented", l)
		}
	}
}
