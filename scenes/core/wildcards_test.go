package core

import (
	"strings"
	"testing"
	"time"
)

// The subjects episode on a real server: two filters, three subjects. The
// counts are the server's, the verdicts on screen agree with them, and
// each failure says where the match broke.
func TestWildcardsTokenMatching(t *testing.T) {
	h := newHarness(t, Wildcards)
	star := h.Start(`sub "orders.*.created"`)
	rest := h.Start(`sub "orders.>"`)
	h.Settle("two filters", func(s Snapshot) bool { return len(s.Subs) == 2 })

	steps := []struct {
		subject      string
		star, rest   uint64 // counts after it
		starVerdict  string
		restVerdicts string
	}{
		{"orders.us.created", 1, 1, "✓ match", "✓ match"},
		{"orders.created", 1, 2, "✗ ends before created", "✓ match"},
		{"orders.us.west.created", 1, 3, "✗ created ≠ west", "✓ match"},
	}
	for i, st := range steps {
		h.Run("pub " + st.subject + ` "order ` + string(rune('1'+i)) + `"`)
		h.Settle(st.subject, func(s Snapshot) bool {
			c := counts(s)
			return s.Published == uint64(i+1) && c["orders.*.created"] == st.star && c["orders.>"] == st.rest
		})
		h.Clock.Advance(3 * time.Second) // the match revealed, column by column
		v := h.View(120, 14)
		lines := strings.Split(v, "\n")
		line := func(prefix string) string {
			for _, l := range lines {
				if strings.Contains(l, prefix) {
					return l
				}
			}
			return ""
		}
		if l := line("orders✓ *✓"); !strings.Contains(l, st.starVerdict) {
			t.Errorf("%s: orders.*.created's row %q lacks %q\n%s", st.subject, l, st.starVerdict, v)
		}
		if l := line("orders✓ >✓"); !strings.Contains(l, st.restVerdicts) {
			t.Errorf("%s: orders.>'s row %q lacks %q\n%s", st.subject, l, st.restVerdicts, v)
		}
	}
	if star.Received() != 1 || rest.Received() != 3 {
		t.Errorf("the jobs received %d and %d, want 1 and 3", star.Received(), rest.Received())
	}
	// Earlier publishes are listed with the filters that took them.
	v := h.View(120, 14)
	for _, want := range []string{"orders.created → orders.>", "orders.us.created → orders.*.created, orders.>"} {
		if !strings.Contains(v, want) {
			t.Errorf("the picture lacks %q:\n%s", want, v)
		}
	}
}

// The scene's own publish walks through the three shapes a > takes, and a
// subject nobody's filter takes is counted as heard by no one.
func TestWildcardsPublishSamplesAndUnheard(t *testing.T) {
	h := newHarness(t, Wildcards)
	h.Start(`sub "orders.*.created"`)
	h.Settle("a filter", func(s Snapshot) bool { return len(s.Subs) == 1 })
	for _, want := range []string{"orders.created", "orders.us.created", "orders.us.west.created"} {
		if out := h.Do("publish"); !strings.Contains(out, "on "+want) {
			t.Errorf("publish said %q, want %s", out, want)
		}
	}
	h.Settle("3 published", func(s Snapshot) bool { return s.Published == 3 && s.Delivered() == 1 })
	if s := h.Scene.snap; s.Unheard != 2 {
		t.Errorf("unheard %d, want 2 (only orders.us.created has a taker)", s.Unheard)
	}
}

// The counts are news: once the scene has the server's word that a
// subscription got a message, its count and the delivered total say so,
// on that update, not a second later when the message drawn on its way
// lands (the clock does not move here).
func TestWildcardsCountsOnTheNews(t *testing.T) {
	h := newHarness(t, Wildcards)
	job := h.Start(`sub "orders.*"`)
	h.Settle("a filter", func(s Snapshot) bool { return len(s.Subs) == 1 })
	h.Clock.Advance(3 * time.Second)
	h.Run(`pub orders.new "order 1"`)
	h.Settle("delivered", func(s Snapshot) bool { return s.Delivered() == 1 })
	if job.Received() != 1 {
		t.Fatalf("the subscriber received %d", job.Received())
	}
	v := h.View(120, 14)
	if !strings.Contains(v, "delivered 1") {
		t.Errorf("the server counted the delivery, the status line does not:\n%s", v)
	}
	row := ""
	for _, l := range strings.Split(v, "\n") {
		if strings.Contains(l, "orders") && strings.Contains(l, "*") {
			row = l
		}
	}
	if !strings.HasSuffix(strings.TrimRight(row, " "), " 1") {
		t.Errorf("orders.*'s row %q does not count the message it got:\n%s", row, v)
	}
}
