package lab

import (
	"strings"
	"testing"
)

// ctrl+z, which suspends most terminal programs, says in one line why the
// lab does not and what to do instead; the line being typed and the
// running job are untouched.
func TestCtrlZSaysWhatToDoAndLosesNothing(t *testing.T) {
	h := newHarness(t, 80, 24)
	h.typeText("sub greet")
	h.key("enter")
	h.pump("the job", func() bool { return h.m.runningJobs() == 1 })
	h.typeText("pub greet half-typed")
	h.key("ctrl+z")
	if s := h.screen(); !strings.Contains(s, "natslab does not suspend (its server would stop): quit leaves, progress kept") {
		t.Errorf("ctrl+z said nothing:\n%s", s)
	}
	if v := h.m.cmd.in.Value(); v != "pub greet half-typed" {
		t.Errorf("the line became %q", v)
	}
	if n := h.m.runningJobs(); n != 1 {
		t.Errorf("%d jobs running after ctrl+z, want the sub", n)
	}
}
