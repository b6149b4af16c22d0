package command_test

import (
	"context"
	"strings"
	"testing"

	"natslab/broker/command"
)

// A switch given a value (--raw=maybe): fisk, in the real CLI as in the
// lab, sets the switch and reads the value as one more argument. The lab
// says so in a note.
func TestSwitchesTakeNoValueInEveryCommand(t *testing.T) {
	l := newLab(t)
	r := l.run("pub greet hi --jetstream=maybe")
	if r.e == nil || !strings.Contains(r.err, "error: unexpected argument maybe\n") {
		t.Errorf("want the real CLI's error: %v\n%s", r.e, r.all())
	}
	if !strings.Contains(r.note, "--jetstream is a switch") || !strings.Contains(r.note, "on its own") {
		t.Errorf("note %q", r.note)
	}
	r = l.run("pub greet hi --templates=false")
	if r.e == nil || !strings.Contains(r.note, "--no-templates") {
		t.Errorf("--templates=false: %v, note %q", r.e, r.note)
	}
	l.must("pub greet hi --no-templates")

	// sub reads "maybe" as a second subject, and listens on both.
	var note syncBuf
	j := l.s.StartStreams(context.Background(), "sub greet --raw=maybe", command.Streams{Note: &note})
	waitReady(t, j)
	if subj, _ := j.Listening(); subj != "greet maybe" {
		t.Errorf("listening on %q, want greet and maybe", subj)
	}
	j.Stop()
	<-j.Done()
	if !strings.Contains(note.String(), "--raw is a switch") {
		t.Errorf("note %q", note.String())
	}
}

func TestUnknownWordsSuggestTheNearestCommand(t *testing.T) {
	l := newLab(t)
	l.fails("pbu greet hi", `unknown command "pbu"`, "did you mean pub?")
	l.fails("strem ls", "did you mean stream?")
	// As near to the alias s (stream) as to sub, which it begins.
	l.fails("su greet", `unknown command "su"`, "did you mean sub?")
	// A line copied from a shell, natslab's own flags and all.
	l.fails("natslab --lesson hello", "this prompt is natslab already: leave out the word natslab", "help lists what works here")
	l.fails("pub greet hi --cont 3", "error: unknown long flag '--cont'", "did you mean --count?")
	// A flag several others begin: the nearest, then the rest, so the
	// learner who meant --max-msgs does not set the message size.
	l.must(`stream add ORDERS --subjects "orders.>" --defaults`)
	l.fails("stream edit ORDERS --max-msg 5 -f", "error: unknown long flag '--max-msg'", "did you mean --max-msgs? (or --max-msg-size, --max-msgs-per-subject)")
	l.fails("pub", "error: required argument 'subject' not provided", "needs <subject>", `pub greet "Hello NATS!"`)
	l.fails("pub greet hi --count x", `nats: error: strconv.ParseFloat: parsing "x": invalid syntax`, `--count wants a whole number`)
	l.fails(`pub greet 'oops`, "quote is not closed")
}

// A shell pipeline copied from natscli's cheat sheets (echo … | nats pub
// …) is refused in one line that says the lab is no shell and what to
// type instead; a | that a shell would not read as a pipe (quoted,
// escaped, in a comment) is the line's own.
func TestShellPipelinesAreRefusedInOneLine(t *testing.T) {
	l := newLab(t)
	for _, line := range []string{
		`echo "hello world" | nats pub destination.subject`,
		`nats sub subject --dump=- | xargs -0 -n 1 -I "{}" sh -c "echo '{}' | wc -c"`,
		`pub greet hi|cat`,
	} {
		msg := l.fails(line, "the line is a shell pipeline (|)", "not a shell", "pub greet 'hello world'")
		if strings.Contains(msg, "error:") {
			t.Errorf("%s: the real CLI's error for a line it would never see: %q", line, msg)
		}
	}
	l.must(`stream add S --subjects greet --defaults`)
	for _, line := range []string{`pub greet "a|b"`, `pub greet 'a|b'`, `pub greet a\|b`, `pub greet ab # a | in a comment`} {
		l.must(line)
	}
	if r := l.must(`sub greet --all -T --raw`); r.out != "a|b\na|b\na|b\nab\n" {
		t.Errorf("the bodies published: %q", r.out)
	}
}
