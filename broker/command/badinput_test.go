package command_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker/command"
)

// storeSnapshot is everything a bad command must not change.
func storeSnapshot(t *testing.T, l *lab) string {
	t.Helper()
	nc, err := l.srv.Connect("snapshot")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var rows []string
	for info := range js.ListStreams(ctx).Info() {
		rows = append(rows, fmt.Sprintf("stream %s subjects=%v msgs=%d bytes=%d first=%d last=%d consumers=%d",
			info.Config.Name, info.Config.Subjects, info.State.Msgs, info.State.Bytes, info.State.FirstSeq, info.State.LastSeq, info.State.Consumers))
		st, err := js.Stream(ctx, info.Config.Name)
		if err != nil {
			t.Fatal(err)
		}
		for ci := range st.ListConsumers(ctx).Info() {
			rows = append(rows, fmt.Sprintf("  consumer %s delivered=%d ackfloor=%d pending=%d", ci.Name, ci.Delivered.Stream, ci.AckFloor.Stream, ci.NumPending))
		}
	}
	sort.Strings(rows)
	return strings.Join(rows, "\n")
}

// badInputs generates malformed lines from the grammar itself, so every
// command that lands is covered.
func badInputs() []string {
	var lines []string
	for _, spec := range command.CommandSpecs() {
		path := strings.Join(spec.Path, " ")
		args := make([]string, len(spec.RequiredArgs))
		for i := range args {
			args[i] = "NOSUCH" + fmt.Sprint(i)
		}
		withArgs := strings.TrimSpace(path + " " + strings.Join(args, " "))
		lines = append(lines,
			withArgs+" --no-such-flag",
			withArgs+" --no-such-flag=3",
			withArgs+" -Z",
			withArgs+" 'unbalanced",
			withArgs+` "unbalanced`,
			withArgs+` trailing\`,
		)
		if len(spec.RequiredArgs) > 0 {
			lines = append(lines, path)
		}
		for _, f := range spec.Flags {
			if f.Boolean {
				lines = append(lines, withArgs+" --"+f.Name+"=maybe")
				continue
			}
			lines = append(lines, withArgs+" --"+f.Name) // value missing
			switch {
			case strings.Contains(f.TypeName, "int"), strings.Contains(f.TypeName, "Int"),
				strings.Contains(f.TypeName, "duration"), strings.Contains(f.TypeName, "float"),
				strings.Contains(f.TypeName, "enum"), strings.Contains(f.TypeName, "bytes"):
				lines = append(lines, withArgs+" --"+f.Name+" not-a-value!")
			}
		}
	}
	lines = append(lines,
		"pubb greet hi", "strem ls", "consumr ls", "nats nats pub x", "--help-me", "-J pub",
		`pub "orders.us created" x`, "pub orders..created x", "pub .orders x", "pub orders. x",
		"pub orders.> x", "pub orders.* x", "pub orders.a*b x",
		"pub "+strings.Repeat("x", command.MaxLineLength+10),
		"pub greet "+strings.Repeat("'", 3),
		"stop 99", "stop", "stop x", "jobs extra", "reset now", "restart please", "nats-server -x",
		"help no-such-command", "\x00\x01\x02", "pub \xff\xfe x",
	)
	return lines
}

func TestHundredsOfBadInputsGetOneClearLineAndChangeNothing(t *testing.T) {
	lines := badInputs()
	if len(lines) < 300 {
		t.Fatalf("only %d bad inputs generated", len(lines))
	}
	// A few generated lines are fine after all and never end by
	// themselves (subscribe --raw=maybe subscribes to maybe): each waits
	// out its run's 20 seconds. badInputLabs labs take the lines in turn,
	// each the next one as its last ends, so those waits overlap; each lab
	// is a server of its own, so no line meets another's subscription.
	const badInputLabs = 16
	labs := make([]*lab, badInputLabs)
	before := make([]string, badInputLabs)
	for i := range labs {
		labs[i] = newLab(t)
		keepSomething(t, labs[i])
		before[i] = storeSnapshot(t, labs[i])
	}
	next := make(chan string)
	var wg sync.WaitGroup
	for _, l := range labs {
		wg.Go(func() {
			for line := range next {
				oneClearLine(t, l, line)
			}
		})
	}
	for _, line := range lines {
		next <- line
	}
	close(next)
	wg.Wait()
	for i, l := range labs {
		if !l.srv.Running() {
			t.Fatal("the server stopped")
		}
		if after := storeSnapshot(t, l); after != before[i] {
			t.Fatalf("bad input changed the store:\nbefore:\n%s\nafter:\n%s", before[i], after)
		}
		// The lab still answers.
		l.must("pub keep.check still-here")
	}
	t.Logf("%d malformed lines, each answered with the real CLI's error and, where it is unclear, a note", len(lines))
}

// keepSomething gives a bad line something to damage: a stream with
// messages and a durable consumer.
func keepSomething(t *testing.T, l *lab) {
	t.Helper()
	nc, err := l.srv.Connect("setup")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "KEEP", Subjects: []string{"keep.>"}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		js.Publish(ctx, "keep.x", []byte("precious"))
	}
	st.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{Durable: "KEEPER", AckPolicy: jetstream.AckExplicitPolicy})
}

// oneClearLine runs a bad line in l: its error must be one clear line.
// It reports with t.Errorf only, so it may run beside others.
func oneClearLine(t *testing.T, l *lab, line string) {
	r := l.run(line)
	if r.e == nil {
		// Some generated lines are fine after all (a flag missing its
		// value on a command with optional args); they must still
		// leave the store alone, checked after all have run.
		return
	}
	// The real CLI's line is printed as it is, Go internals and all;
	// then the lab's note must say it clearly.
	msg := command.ErrorLine(r.e)
	note := command.ErrorNote(r.e)
	shown := line
	if len(shown) > 80 {
		shown = shown[:80] + "…"
	}
	switch {
	case strings.Contains(msg, "\n"):
		t.Errorf("%q: error spans lines: %q", shown, msg)
	case strings.Contains(msg, "internal error"), strings.Contains(msg, "panic"):
		t.Errorf("%q: %s", shown, msg)
	case (strings.Contains(msg, "strconv.") || strings.Contains(msg, "invalid syntax")) && note == "":
		t.Errorf("%q: the real CLI's error leaks Go internals and the lab adds no note: %s", shown, msg)
	case strings.Contains(note, "strconv."), strings.Contains(note, "invalid syntax"), strings.Contains(note, "fisk"):
		t.Errorf("%q: the lab's note leaks Go internals: %s", shown, note)
	case strings.Contains(msg, "fisk"):
		t.Errorf("%q: error leaks Go internals: %s", shown, msg)
	case len(msg) > 400, len(note) > 400:
		t.Errorf("%q: error too long (%d bytes, note %d): %s", shown, len(msg), len(note), msg[:min(len(msg), 200)])
	}
}

// A negative value after a space is read as a flag of its own, by the real
// CLI as by the lab: the note says to join it with =, and the notes that
// offer -1 for unlimited write it so; --dupe-window has no unlimited.
func TestNegativeValuesAreJoinedWithEquals(t *testing.T) {
	l := newLab(t)
	l.fails("stream add S --subjects s --max-bytes -1 --defaults", "expected argument for flag '--max-bytes'", "a value that starts with - is read as a flag", "--max-bytes=-1")
	l.fails("stream add S --subjects s --max-age -1h --defaults", "expected argument for flag '--max-age'", "--max-age=-1h")
	l.fails("stream add S --subjects s --max-bytes 1x --defaults", "or --max-bytes=-1 for unlimited")
	l.fails("stream add S --subjects s --max-msg-size 1x --defaults", "or --max-msg-size=-1 for unlimited")
	l.fails("stream add S --subjects s --max-age 1x --defaults", "or --max-age=-1 for unlimited")
	if msg := l.fails("stream add S --subjects s --dupe-window 1x --defaults", "--dupe-window takes a duration"); strings.Contains(msg, "unlimited") {
		t.Errorf("--dupe-window has no unlimited (the real CLI refuses --dupe-window=-1): %s", msg)
	}
	l.fails("stream add S --subjects s --dupe-window=-1 --defaults", "invalid duplicate window format")
	// What the notes say to type works.
	out := l.must("stream add S --subjects s --max-bytes=-1 --max-msg-size=-1 --max-age=-1 --defaults").out
	wantLines(t, "unlimited", out, "Maximum Bytes: unlimited\n", "Maximum Message Size: unlimited\n", "Maximum Age: unlimited\n")
	l.fails("consumer add S C --pull --max-deliver -1 --defaults", "expected argument for flag '--max-deliver'", "--max-deliver=-1")
	l.fails("consumer add S C --pull --deliver all --ack explicit --replay instant --filter ''", "--max-deliver=-1 for no limit")

	// stream add without --defaults, each value added as the note words it.
	line := "stream add FOLLOW --subjects follow --storage file --replicas 1 --retention limits --discard old"
	for range 12 {
		r := l.run(line)
		if r.e == nil {
			break
		}
		note := command.ErrorNote(r.e)
		_, give, ok := strings.Cut(note, "give ")
		give, _, _ = strings.Cut(give, ", or add --defaults")
		give, _, _ = strings.Cut(give, " (")
		if _, no, two := strings.Cut(give, " or "); two {
			give = no // --allow-rollup or --no-allow-rollup
		}
		if !ok || !strings.HasPrefix(give, "--") {
			t.Fatalf("%s: the note names no value to give: %s", line, note)
		}
		line += " " + give
	}
	wantLines(t, "followed the notes", l.must("stream info FOLLOW").out, "Maximum Messages: unlimited\n", "Maximum Bytes: unlimited\n", "Maximum Age: unlimited\n")
}
