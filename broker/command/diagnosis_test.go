package command_test

import (
	"strings"
	"testing"

	"natslab/broker/command"
)

// A subject longer than the server's 4096-byte control line: the server
// closes the connection. The real CLI's line is nats.go's error as it is;
// the lab's note names the control line, never a server that went away.
func TestLongSubjectSaysControlLine(t *testing.T) {
	l := newLab(t)
	subject := strings.Repeat("a", 5000)
	for _, c := range []struct{ line, real string }{
		{"pub " + subject + " hi", "nats: error: nats: maximum control line exceeded"},
		{"request " + subject + " hi", "nats: error: nats: connection closed"},
	} {
		r := l.run(c.line)
		if r.e == nil {
			t.Fatalf("%.20s…: a 5000-byte subject went through", c.line)
		}
		if got := command.ErrorLine(r.e); got != c.real {
			t.Errorf("%.20s…: error line %q, the real CLI prints %q", c.line, got, c.real)
		}
		note := command.ErrorNote(r.e)
		if !strings.Contains(note, "4096 bytes (its max_control_line)") || !strings.Contains(note, "4.9 KiB") {
			t.Errorf("%.20s…: the note should name the 4096-byte control line and the subject's size: %q", c.line, note)
		}
		if strings.Contains(note, "not reachable") {
			t.Errorf("%.20s…: the server is reachable: %q", c.line, note)
		}
	}
	l.must("pub after hi") // the lab's connection is back
}

// A 2 MiB body, as the real CLI's Random template makes it: the real
// error, then a note with both sizes.
func TestTooBigPayloadGivesBothSizes(t *testing.T) {
	l := newLab(t)
	r := l.run(`pub big "{{ Random 2097152 2097152 }}"`)
	if r.e == nil {
		t.Fatalf("a 2 MiB message was published: %s", r.all())
	}
	if got := command.ErrorLine(r.e); got != "nats: error: nats: maximum payload exceeded" {
		t.Errorf("error line %q", got)
	}
	if note := command.ErrorNote(r.e); !strings.Contains(note, "the message is 2.0 MiB") || !strings.Contains(note, "at most 1.0 MiB") {
		t.Errorf("the note should give both sizes: %q", note)
	}
}
