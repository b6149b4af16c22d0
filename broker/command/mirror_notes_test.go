package command_test

import (
	"strings"
	"testing"

	"natslab/broker/brokertest"
	"natslab/broker/command"
)

// Mirrors and sources meet subjects: a mirror given subjects (by stream
// add, which the real CLI runs, or stream edit, which the lab runs as it
// does), a publish to a subject only a mirror's name suggests, a sourcing
// stream whose subjects another stream captures. Each real line stays the
// real CLI's; the note says what the mirror or source does instead.
func TestMirrorAndSourceSubjectRefusalsSayWhatToDo(t *testing.T) {
	l := newLab(t)
	l.must(`stream add ORDERS --subjects 'orders.>' --defaults`)
	realFails(t, l, `stream add BACKUP --mirror ORDERS --subjects 'backup.>' --defaults`,
		"nats: error: mirrors cannot listen for messages on subjects",
		"a mirror stores only what it copies from ORDERS", "drop --subjects", "use --source ORDERS in place of --mirror")
	l.must(`stream add BACKUP --mirror ORDERS --defaults`)
	l.fails(`stream add BACKUP --subjects 'backup.>' --defaults`,
		"stream name already in use with a different configuration (10058)", "stream BACKUP already exists, mirroring ORDERS, capturing no subjects: change it")

	r := l.run(`stream edit BACKUP --subjects 'backup.>' --force`)
	if r.e == nil {
		t.Fatalf("a mirror given subjects: want a refusal\n%s", r.all())
	}
	real := brokertest.RunRealCLI(t, l.srv.ClientURL(), "stream", "edit", "BACKUP", "--subjects", "backup.>", "--force")
	realLines := strings.Split(strings.TrimRight(real.Stderr, "\n"), "\n")
	if got, want := command.ErrorLine(r.e), realLines[len(realLines)-1]; got != want {
		t.Errorf("stream edit: the lab says %q, the real CLI %q", got, want)
	}
	wantLines(t, "stream edit", command.ErrorNote(r.e),
		"stream BACKUP mirrors ORDERS", "publish to ORDERS's subjects (orders.>)", "stream add NAME --source ORDERS --subjects 'backup.>' --defaults")

	l.fails(`pub backup.a x --jetstream`, "no responders", `no stream captures "backup.a" (BACKUP mirrors ORDERS, capturing no subjects; ORDERS captures orders.>)`)
	realFails(t, l, `stream add ALL --source ORDERS --subjects 'orders.new' --defaults`,
		"nats: error: could not create Stream: subjects overlap with an existing stream (10065)", "stream ORDERS already captures orders.>, which overlaps orders.new")
}

// realFails runs a line the real CLI runs (the lab's grammar lacks one of
// its flags) that fails: its last line is the real CLI's error, and the
// lab's note after it holds each of notes.
func realFails(t *testing.T, l *lab, line, last string, notes ...string) {
	t.Helper()
	r := l.run(line)
	if !command.Reported(r.e) {
		t.Fatalf("%s: want the real CLI's error, got %v\n%s", line, r.e, r.all())
	}
	if got := strings.TrimRight(r.err, "\n"); !strings.HasSuffix(got, "\n"+last) && got != last {
		t.Errorf("%s: stderr does not end in %q:\n%s", line, last, got)
	}
	wantLines(t, line, r.note, notes...)
}
