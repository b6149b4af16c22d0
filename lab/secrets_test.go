package lab

import (
	"strings"
	"testing"
)

// The pane repeats a line with a secret (its echo, a job's name) with the
// secret masked: on a projector, a password on screen is given away.
func TestThePaneNeverShowsASecretTyped(t *testing.T) {
	h := newHarness(t, 120, 40)
	for _, l := range []string{
		"pub greet hi --password hunter2",
		"stream ls --user alice --password=hunter2",
		"sub x --token hunter2 &", // a job: its name shows while it runs
		"pub x -s nats://alice:hunter2@localhost:4222",
		"pub x 'see nats://hunter2@127.0.0.1:4222'",
		"bogus --server alice:hunter2@localhost",
	} {
		h.runOrStart(l)
	}
	if text := h.text(); strings.Contains(text, "hunter2") {
		t.Errorf("the pane shows a secret:\n%s", text)
	}
	if s := h.screen(); strings.Contains(s, "hunter2") || !strings.Contains(s, "sub x --token xxxxx") {
		t.Errorf("the running job is not named with its secret masked:\n%s", s)
	}
	if text := h.text(); !strings.Contains(text, "❯ pub greet hi --password xxxxx") {
		t.Errorf("the pane does not echo the line, masked:\n%s", text)
	}
}
