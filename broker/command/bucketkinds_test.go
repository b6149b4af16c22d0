package command_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"natslab/broker/brokertest"
	"natslab/broker/text"
)

// A name given to the wrong kind of command (a key-value bucket's to the
// object commands, an object store's or a plain stream's to the kv
// commands) gets the library's "bucket not found" and a note that says
// what the name is and which commands work on it. The object commands run
// with the real CLI's code, and a store or an object that is not there
// gets a note naming those that are.
func TestWrongKindOfBucketSaysWhatTheNameIs(t *testing.T) {
	l := newLab(t)
	// real runs a line the real CLI's code runs: it prints its own
	// error, and the lab's note follows.
	real := func(line string, want ...string) {
		t.Helper()
		r := l.run(line)
		if r.e == nil {
			t.Fatalf("%s: want an error, got none\n%s", line, r.all())
		}
		for _, w := range want {
			if !strings.Contains(r.err+r.note, w) {
				t.Errorf("%s: error %q and note %q lack %q", line, r.err, r.note, w)
			}
		}
	}
	file := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(file, []byte("notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	real("object ls FILES", "nats: error: nats: bucket not found", "there is no object store FILES, nor any other yet", "object add FILES")
	l.must("kv add CFG")
	l.must("object add FILES")
	l.must("stream add ORDERS --subjects 'orders.>' --defaults")

	real("object ls CFG", "nats: error: nats: bucket not found", "CFG is a key-value bucket, not an object store", "kv ls CFG")
	real("object put ORDERS "+file, "nats: error: nats: bucket not found", "ORDERS is a stream, not an object store", "stream info ORDERS")
	real("object info KV_CFG", "nats: error: nats: bucket not found", "KV_CFG is the stream under key-value bucket CFG", "kv commands take its name: CFG")
	real("object ls FILE", "nats: error: nats: bucket not found", "there is no object store FILE: did you mean FILES?", "object stores: FILES")

	real("object get FILES notes.txt", "nats: error: nats: object not found", "object store FILES holds no objects yet", "object put FILES FILE")
	l.must("object put FILES " + file + " --name notes.txt --no-progress")
	real("object get FILES note.txt", "nats: error: nats: object not found", "there is no object note.txt in store FILES: did you mean notes.txt?", "objects: notes.txt")
	real("object rm FILES nope -f", "nats: error: nats: object not found", "there is no object nope in store FILES", "objects: notes.txt")

	real("object put FILES", "nats: error: --name is required when reading from stdin", "name a file, like object put FILES notes.txt")

	l.fails("kv get FILES a", "nats: error: nats: bucket not found", "FILES is an object store, not a key-value bucket", "object ls FILES")
	l.fails("kv put ORDERS a 1", "nats: error: nats: bucket not found", "ORDERS is a stream, not a key-value bucket", "stream info ORDERS", "kv add ORDERS")
	l.fails("kv info OBJ_FILES", "nats: error: nats: bucket not found", "OBJ_FILES is the stream under object store FILES", "object commands take its name: FILES")
	l.fails("kv get CFGG a", "bucket CFGG not found: did you mean CFG?")
}

// With JetStream off, the real CLI's JetStream commands (the object store's,
// the sub-commands the lab has no code for) find nobody answering the
// JetStream API: the note says JetStream is off and how to turn it on, as
// it does for the lab's own commands.
func TestRealCLIJetStreamCommandsSayJetStreamIsOff(t *testing.T) {
	l := newLab(t, brokertest.WithoutJetStream())
	for _, line := range []string{"object ls", "object add FILES", "stream copy A B", "consumer pause A C --force"} {
		r := l.run(line)
		if r.e == nil || !strings.Contains(r.err, "no responders available for request") {
			t.Errorf("%s: %v\n%s", line, r.e, r.all())
			continue
		}
		if !strings.Contains(r.note, "JetStream is off on the lab's server: turn it on with nats-server -js") {
			t.Errorf("%s: %q with the note %q", line, r.err, r.note)
		}
	}
}

// help's list of commands fits the pane's width, each summary wrapped in
// its own column: a longer line would fold back to the pane's first
// column, under the commands (leaf start | leaf stop … at 80 columns).
func TestHelpListFitsThePaneWidth(t *testing.T) {
	l := newLab(t)
	for _, w := range []int{60, 80, 100} {
		l.s.SetHelpWidth(w)
		out := l.must("help").out
		list := false
		for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
			if strings.HasSuffix(line, "commands:") || strings.HasSuffix(line, "optional):") {
				list = true
				continue
			}
			if line == "" || strings.HasPrefix(line, "help COMMAND") {
				continue
			}
			if text.Width(line) > w || (list && !strings.HasPrefix(line, "  ")) {
				t.Errorf("at %d columns %q is too wide, or starts under the commands", w, line)
			}
		}
	}
}

// The note on an object that is not there names the objects that are
// without making a consumer to read them (the library's List makes one,
// which the status bar's count of consumers would show for a moment): the
// server's audit of its JetStream API shows no consumer asked for.
func TestMissingObjectNoteMakesNoConsumer(t *testing.T) {
	l := newLab(t)
	file := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(file, []byte("notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l.must("object add FILES")
	l.must("object put FILES " + file + " --name notes.txt --no-progress")
	l.must("object put FILES " + file + " --name gone.txt --no-progress")
	l.must("object rm FILES gone.txt --force")

	audit := brokertest.AuditAPI(t, l.srv)

	r := l.run("object get FILES note.txt")
	if want := "there is no object note.txt in store FILES: did you mean notes.txt? (objects: notes.txt; object ls FILES lists them)"; !strings.Contains(r.note, want) {
		t.Fatalf("note %q, want %q", r.note, want)
	}

	for _, asked := range audit.Asked(t, "$JS.API.CONSUMER.") {
		t.Errorf("%s for the note", asked)
	}
}
