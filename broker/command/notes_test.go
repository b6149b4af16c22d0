package command_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"natslab/broker/brokertest"
	"natslab/broker/command"
)

// The lab's explanations are notes on a stream of their own: never inside
// the real CLI's lines, dropped by Run, kept by RunStreams.

func TestNotesStayOutOfTheRealCLIsStreams(t *testing.T) {
	l := newLab(t)
	var out, errb, note strings.Builder
	if err := l.s.RunStreams(context.Background(), `req svc.time hi`, command.Streams{Out: &out, Err: &errb, Note: &note}); err != nil {
		t.Fatal(err)
	}
	if got := brokertest.Normalize(errb.String()); got != "TIME Sending request on \"svc.time\"\nTIME No responders are available\n" {
		t.Errorf("stderr %q", got)
	}
	if !strings.Contains(note.String(), "reply svc.time") || strings.Count(note.String(), "\n") != 1 {
		t.Errorf("note %q: want one line naming reply svc.time", note.String())
	}

	// Run writes the real CLI's streams alone.
	out.Reset()
	errb.Reset()
	if err := l.s.Run(context.Background(), `req svc.time hi`, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(errb.String()+out.String(), "reply svc.time") {
		t.Errorf("Run printed the lab's note: %q", errb.String())
	}
}

func TestErrorsReportTheRealLineThenTheNote(t *testing.T) {
	l := newLab(t)
	r := l.run(`stream add JOBS --subjects 'jobs.>' --retention work-queue --defaults`)
	if r.e == nil {
		t.Fatal("the real CLI refuses --retention work-queue; the lab must too")
	}
	var out, errb, note strings.Builder
	command.ReportError(command.Streams{Out: &out, Err: &errb, Note: &note}, r.e)
	if got := r.err + errb.String(); got != "nats: error: enum value must be one of limits,interest,workq,work, got 'work-queue'\n" {
		t.Errorf("stderr %q", got)
	}
	if got := note.String(); got != "the real CLI spells it work or workq: --retention work\n" {
		t.Errorf("note %q", got)
	}
	if r.out+out.String() != "" {
		t.Errorf("stdout %q", r.out+out.String())
	}

	// A line the lab's grammar refuses goes to the real CLI, which prints
	// its own error and blank line on stderr, its usage on stdout (fisk's
	// MustParseWithUsage); ReportError then adds only the lab's note.
	r = l.run(`pub greet hi --cont 3`)
	out.Reset()
	errb.Reset()
	note.Reset()
	command.ReportError(command.Streams{Out: &out, Err: &errb, Note: &note}, r.e)
	if !command.Reported(r.e) || errb.Len() != 0 || out.Len() != 0 {
		t.Errorf("the real CLI reported it; ReportError should print no more than the note: %v %q %q", r.e, errb.String(), out.String())
	}
	if got := r.err; got != "error: unknown long flag '--cont'\n\n" {
		t.Errorf("stderr %q", got)
	}
	if !strings.HasPrefix(r.out, "usage: nats publish [<flags>] <subject> [<body>]\n\nGeneric data publish utility") {
		t.Errorf("stdout should be the real CLI's usage, got %q", r.out)
	}
	if !strings.Contains(note.String(), "did you mean --count?") {
		t.Errorf("note %q", note.String())
	}
}

func TestMarkNotesMarksEveryLine(t *testing.T) {
	var b strings.Builder
	w := command.MarkNotes(&b)
	w.Write([]byte("one\ntw"))
	w.Write([]byte("o\nthree\n"))
	if got, want := b.String(), "» one\n» two\n» three\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A server header spelt with other capitals gets a note: header names are
// case-sensitive, and the stream stored both publishes.
func TestHeaderCaseGetsANote(t *testing.T) {
	l := newLab(t)
	l.must(`stream add ORDERS --subjects "orders.>" --defaults`)
	var first string
	for i := range 2 {
		r := l.must(`pub orders.new "order 1" -H Nats-Msg-ID:ord-1 --jetstream`)
		if want := fmt.Sprintf("Sequence: %d", i+1); !strings.Contains(r.err, want) {
			t.Fatalf("publish %d: want %q (no dedupe on Nats-Msg-ID):\n%s", i+1, want, r.err)
		}
		first = r.note
	}
	if !strings.Contains(first, "header names are case-sensitive: the server acts on Nats-Msg-Id, and Nats-Msg-ID is just another header to it") {
		t.Errorf("note %q", first)
	}
	if r := l.must(`pub orders.new "order 2" -H Nats-Msg-Id:ord-2 --jetstream`); r.note != "" {
		t.Errorf("the right spelling needs no note: %q", r.note)
	}
}
