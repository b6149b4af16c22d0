package kittest

import (
	"strings"
	"testing"
)

func TestCutShortFindsASentenceCutAtALinesEnd(t *testing.T) {
	for _, c := range []struct {
		name, frame, want string
		cut               bool
	}{
		{"cut, a blank row above", " requests 0\n\n each request carries a reply subject: the …", "each request carries a reply subject: the …", true},
		{"cut, a blank row below", " the reply reached natslab on …  \n   ", "the reply reached natslab on …", true},
		{"cut mid-word at a line's end", " log\n\n subject resi… resi…", "subject resi… resi…", true},
		{"cut, no row to spare", " requests 0\n each request carries a reply subject: the …", "each request carries a reply subject: the …", true},
		{"whole, rows to spare", " requests 0\n\n each request carries a reply subject", "", false},
		{"a name cut inside a box", " │ natslab …   3 │\n", "", false},
		{"an ellipsis on its own", " #1 #2\n  …\n", "", false},
		{"a range", " first #1…#3\n", "", false},
	} {
		line, cut := CutShort(c.frame)
		if line != c.want || cut != c.cut {
			t.Errorf("%s: CutShort = %q, %v; want %q, %v", c.name, line, cut, c.want, c.cut)
		}
	}
}

func TestTouchesTheBorderFindsTheFirstAndLastColumns(t *testing.T) {
	for _, c := range []struct {
		name, frame, want string
		touches           bool
	}{
		{"clear of both", " requests 0\n\n ╭ box ╮\n", "", false},
		{"the left column", " requests 0\n[requester]──▶[server]", "[requester]──▶[server]", true},
		{"the last column", " ok\n      ◀──[pub]", "◀──[pub]", true},
		{"the last column, box drawing", " ╭ the box ──╮", "╭ the box ──╮", true},
		{"a column short of it", " ╭ the box ─╮", "", false},
		{"blanks to the last column", " ok      ", "", false},
		{"blank rows", "\n\n", "", false},
	} {
		line, touches := TouchesTheBorder(c.frame, 14)
		if strings.TrimSpace(line) != c.want || touches != c.touches {
			t.Errorf("%s: TouchesTheBorder = %q, %v; want %q, %v", c.name, line, touches, c.want, c.touches)
		}
	}
}

func TestLoneNumberFindsANumberWrappedAwayFromItsWords(t *testing.T) {
	frame := " ORDERS #7…#11 · 5 msgs\n\n ORDERS: the new limits dropped the oldest\n 1\n"
	if got, ok := LoneNumber(frame); !ok || got != "1" {
		t.Errorf("LoneNumber = %q, %v; want the 1 under the sentence", got, ok)
	}
	for _, frame := range []string{
		" ORDERS: the new limits dropped the\n oldest 1\n",
		" JetStream · at least once\n                #1\n [pub]──▶[srv]\n",
		"\n 3\n",
	} {
		if got, ok := LoneNumber(frame); ok {
			t.Errorf("LoneNumber(%q) = %q: no sentence left a number alone there", frame, got)
		}
	}
}
