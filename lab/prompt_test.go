package lab

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"natslab/broker/command"
)

// A paste from a terminal without bracketed paste: 100 KB as one key press
// per character. The line stops at the limit and says so once, and the
// characters are applied to the line together, not one by one (each
// application costs as much as the line is long).
func TestPasteAsKeystrokesIsCutAtTheLimitAndApplied(t *testing.T) {
	h := newHarness(t, 120, 40)
	body := strings.Repeat("x", 100*1024)
	applied := 0
	for _, r := range "pub big " + body {
		before := h.m.cmd.inVersion
		h.send(tea.KeyPressMsg{Code: r, Text: string(r)})
		if h.m.cmd.inVersion != before {
			applied++
		}
	}
	if applied > coalesceFrom+1 {
		t.Errorf("the line was redrawn %d times for one paste: the characters were not gathered", applied)
	}
	h.pump("the typed characters to reach the line", func() bool { return len(h.m.cmd.pending) == 0 && !h.m.cmd.applyArmed })
	if n := len(h.m.cmd.in.Value()); n != command.MaxLineLength {
		t.Fatalf("the line holds %d bytes, want exactly the limit %d", n, command.MaxLineLength)
	}
	if !strings.Contains(h.screen(), "the line is cut at 64 KiB") {
		t.Errorf("the cut is not said:\n%s", h.screen())
	}
	// Typing on at the limit changes nothing; the lab still answers keys.
	h.typeText("more")
	if n := len(h.m.cmd.in.Value()); n != command.MaxLineLength {
		t.Errorf("the line grew past the limit to %d", n)
	}
	h.run("") // Enter runs what fits
	h.pump("the publish", func() bool { return strings.Contains(h.text(), `Published 65528 bytes to "big"`) })
	if strings.Count(h.screen(), "cut at") > 1 {
		t.Errorf("the cut was said more than once:\n%s", h.screen())
	}
}

func TestBracketedPasteIsCutAtTheLimit(t *testing.T) {
	h := newHarness(t, 120, 40)
	h.typeText("pub big ")
	h.send(tea.PasteMsg{Content: strings.Repeat("é", 40*1024)}) // 80 KiB of two-byte characters
	v := h.m.cmd.in.Value()
	if len(v) > command.MaxLineLength || len(v) < command.MaxLineLength-1 || !strings.HasSuffix(v, "é") {
		t.Fatalf("the line holds %d bytes (want the limit, whole characters)", len(v))
	}
	if !strings.Contains(h.screen(), "the line is cut at 64 KiB") {
		t.Errorf("the cut is not said:\n%s", h.screen())
	}
}

// At 80 and 100 columns the cut is said whole, in fewer words.
func TestTheCutIsSaidWholeInANarrowPane(t *testing.T) {
	for w, want := range map[int]string{
		80:  "the line is cut at 64 KiB, a command's most: larger bodies need the real CLI",
		100: "the line is cut at 64 KiB, a command's most: publish larger bodies with the real CLI",
	} {
		h := newHarness(t, w, 24)
		h.send(tea.PasteMsg{Content: "pub big " + strings.Repeat("x", 5<<20)})
		if s := h.screen(); !strings.Contains(s, want) {
			t.Errorf("%d columns:\n%s", w, s)
		}
	}
}

// Typing stays immediate: each character shows as it is typed.
func TestTypingShowsEachCharacterAtOnce(t *testing.T) {
	h := newHarness(t, 120, 40)
	for i, r := range "pub greet hello" {
		h.send(tea.KeyPressMsg{Code: r, Text: string(r)})
		if got := h.m.cmd.in.Value(); len(got) != i+1 {
			t.Fatalf("after %d keys the line is %q", i+1, got)
		}
	}
}
