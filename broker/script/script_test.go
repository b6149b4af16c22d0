package script_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"natslab/broker/brokertest"
	"natslab/broker/command"
	"natslab/broker/script"
)

// A script can wait: sleep DURATION is a line of its own, and a bad
// duration is one clear error while the script carries on.
func TestScriptsSleep(t *testing.T) {
	srv := brokertest.Start(t, brokertest.InProcessOnly())
	s := command.NewSession(srv)
	defer s.Close()
	var out, errb bytes.Buffer
	res, err := script.Run(context.Background(), s, strings.NewReader("sleep 10ms\nsleep soon\nsleep 2m\nsleep\npub greet hi\n"), command.Streams{Out: &out, Err: &errb})
	if err != nil {
		t.Fatal(err)
	}
	if res.Lines != 5 || res.Failed != 3 {
		t.Fatalf("want 5 lines, 3 failed: %+v\n%s", res, errb.String())
	}
	for _, want := range []string{`sleep wants a duration with a unit, like 500ms or 3s, got "soon"`, "sleep waits at most 1m0s, got 2m0s", "sleep takes one duration", `Published 2 bytes to "greet"`} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb.String())
		}
	}
}

// With the lab's notes on (natslab run --explain), output of a background
// job that follows another job's (or a command's) is led by a note naming
// the job, as the lab's command pane does: two subscribers on one subject
// each say which of them received the message. Without notes, the real
// CLI's lines come alone.
func TestNotesNameTheJobWhoseLinesFollow(t *testing.T) {
	srv := brokertest.Start(t, brokertest.InProcessOnly())
	s := command.NewSession(srv)
	defer s.Close()
	src := "sub greet &\nsub greet &\npub greet hi\n"
	var term bytes.Buffer // one terminal: stdout, stderr and the notes
	if _, err := script.Run(context.Background(), s, strings.NewReader(src), command.Streams{Out: &term, Err: &term, Note: command.MarkNotes(&term)}); err != nil {
		t.Fatal(err)
	}
	label := ""
	got := map[string]int{}
	for _, l := range strings.Split(term.String(), "\n") {
		if strings.HasPrefix(l, "» [") {
			label = strings.TrimPrefix(l, "» ")
			continue
		}
		if strings.Contains(l, `Received on "greet"`) {
			got[label]++
		}
	}
	if got["[1] sub greet"] != 1 || got["[2] sub greet"] != 1 {
		t.Errorf("each subscriber's message under its own name, got %v:\n%s", got, term.String())
	}

	s2 := command.NewSession(srv)
	defer s2.Close()
	var plain bytes.Buffer
	if _, err := script.Run(context.Background(), s2, strings.NewReader(src), command.Streams{Out: &plain, Err: &plain}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "[1] sub greet") || strings.Count(plain.String(), `Received on "greet"`) != 2 {
		t.Errorf("without notes, the real CLI's lines alone:\n%s", plain.String())
	}
}
