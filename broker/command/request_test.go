package command_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"natslab/broker/brokertest"
	"natslab/broker/command"
)

// rtt is the round-trip line, whatever the duration.
var rttLine = regexp.MustCompile(`(?m)^TIME Received with rtt \S+$`)

func TestRequestReplyRoundTrip(t *testing.T) {
	l := newLab(t)
	rep, repOut := l.background(`reply svc.echo 'echo: {{Request}}'`)
	waitReady(t, rep)
	if subj, q := rep.Listening(); subj != "svc.echo" || q != "NATS-RPLY-22" {
		t.Errorf("reply listens on %q in %q", subj, q)
	}

	r := l.must(`req svc.echo hello`)
	if r.out != "echo: hello\n\n\n" {
		t.Errorf("stdout %q", r.out)
	}
	errText := brokertest.Normalize(r.err)
	if !strings.HasPrefix(errText, "TIME Sending request on \"svc.echo\"\n") || !rttLine.MatchString(errText) {
		t.Errorf("stderr %q", errText)
	}

	r = l.must(`req svc.echo hello --raw`)
	if r.out != "echo: hello\n\n\n" || r.err != "" {
		t.Errorf("--raw: stdout %q stderr %q", r.out, r.err)
	}

	r = l.must(`req svc.echo 'n {{Count}}' --count 2`)
	if r.out != "echo: n 1\n\n\necho: n 2\n\n\n" {
		t.Errorf("--count 2 with a template: %q", r.out)
	}

	l.must(`req svc.echo hello -H X:1`)
	l.await("five requests answered", func() bool { return rep.Received() == 5 })
	rep.Stop()
	waitDone(t, rep)
	out := brokertest.Normalize(repOut.String())
	for _, want := range []string{
		"TIME Listening on \"svc.echo\" in group \"NATS-RPLY-22\"\n",
		"TIME [#0] Received on subject \"svc.echo\":\n\nhello\n",
		"TIME [#4] Received on subject \"svc.echo\":\nTIME X: 1\n\nhello\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("replier output lacks %q:\n%s", want, out)
		}
	}
}

func TestRequestEchoShowsHeaders(t *testing.T) {
	l := newLab(t)
	rep, repOut := l.background(`reply svc.echo2 --echo --count 1`)
	waitReady(t, rep)
	r := l.must(`req svc.echo2 'hello there' -H Trace:abc`)
	want := "TIME Sending request on \"svc.echo2\"\nTIME Received with rtt DUR\nTIME NATS-Reply-Counter: 0\nTIME Trace: abc\nTIME \n"
	if got := brokertest.Normalize(r.err); got != want {
		t.Errorf("stderr:\n%q\nwant\n%q", got, want)
	}
	if r.out != "hello there\n\n\n" {
		t.Errorf("stdout %q", r.out)
	}
	waitDone(t, rep)
	// The real CLI ends with log.Fatalf("Exiting"): status 1, and no
	// error line beyond its own.
	var printed strings.Builder
	command.ReportError(command.Streams{Out: &printed, Err: &printed, Note: &printed}, rep.Err())
	if rep.Err() == nil || printed.Len() != 0 {
		t.Errorf("reply --count 1 should end with status 1 and print nothing more: %v %q", rep.Err(), printed.String())
	}
	if !strings.HasSuffix(brokertest.Normalize(repOut.String()), "TIME \nDraining...\nTIME Exiting\n") {
		t.Errorf("replier output:\n%q", repOut.String())
	}
}

func TestRequestNoResponders(t *testing.T) {
	l := newLab(t)
	r := l.must(`req svc.time 'what time'`)
	want := "TIME Sending request on \"svc.time\"\nTIME No responders are available\n"
	if got := brokertest.Normalize(r.err); got != want {
		t.Errorf("stderr %q\nwant   %q", got, want)
	}
	if want := "nobody subscribes to \"svc.time\"; start a service with: reply svc.time 'answer'\n"; r.note != want {
		t.Errorf("note %q\nwant %q", r.note, want)
	}
	if r.out != "" {
		t.Errorf("stdout %q", r.out)
	}
}

func TestRequestTimesOutClearly(t *testing.T) {
	l := newLab(t)
	// A subscriber that never answers.
	sub, _ := l.background(`sub svc.slow`)
	waitReady(t, sub)
	// The real CLI says nothing more when no reply comes in time, and
	// exits 0; the lab's note says what happened.
	start := time.Now()
	r := l.must(`req svc.slow x --timeout 300ms`)
	if got := brokertest.Normalize(r.err); got != "TIME Sending request on \"svc.slow\"\n" || r.out != "" {
		t.Errorf("printed %q %q", r.err, r.out)
	}
	wantLines(t, "note", r.note, "no reply", "svc.slow", "300ms", "--timeout")
	// A timeout shows that something listens (else: no responders) and no
	// answer came back: not that a service got the request and kept
	// quiet (a lost answer, or one it may not publish, looks the same).
	for _, want := range []string{"no responders", "slow", "lost"} {
		if !strings.Contains(r.note, want) {
			t.Errorf("note %q lacks %q", r.note, want)
		}
	}
	if strings.Contains(r.note, "did not answer in time") {
		t.Errorf("a timeout does not show that a service received the request: %q", r.note)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("--timeout 300ms took %s", d)
	}
}

func TestRequestCollectsManyReplies(t *testing.T) {
	l := newLab(t)
	a, _ := l.background(`reply svc.poll 'from a' --queue ''`)
	b, _ := l.background(`reply svc.poll 'from b' --queue ''`)
	waitReady(t, a)
	waitReady(t, b)
	r := l.must(`req svc.poll x --replies 0 --timeout 500ms --raw`)
	if !strings.Contains(r.out, "from a") || !strings.Contains(r.out, "from b") {
		t.Errorf("--replies 0 should collect both: %q", r.out)
	}
	r = l.must(`req svc.poll x --replies 2 --raw`)
	if strings.Count(r.out, "from ") != 2 {
		t.Errorf("--replies 2: %q", r.out)
	}
}

func TestReplyTemplatesAndCommand(t *testing.T) {
	l := newLab(t)
	rep, _ := l.background(`reply 'calc.>' --command "echo {{1}}:{{Request}}:{{Count}}"`)
	waitReady(t, rep)
	r := l.must(`req calc.add '1 2; rm -rf /tmp/x' --raw`)
	// The request is one argument to echo, never a second command.
	if r.out != "add:1 2; rm -rf /tmp/x:0\n\n" {
		t.Errorf("--command reply %q", r.out)
	}
	rep.Stop()
	waitDone(t, rep)

	cnt, _ := l.background(`reply svc.count 'reply {{Count}} to {{Request}}' -H 'N:{{Count}}'`)
	waitReady(t, cnt)
	// The real CLI offers {{Request}} only when the request has a body:
	// to an empty one, the template fails and goes out as typed.
	r = l.must(`req svc.count ''`)
	if r.out != "reply {{Count}} to {{Request}}\n\n\n" || !strings.Contains(r.err, "N: 0") {
		t.Errorf("template reply to an empty request: %q %q", r.out, r.err)
	}
	r = l.must(`req svc.count 'sue'`)
	if r.out != "reply 1 to sue\n\n\n" || !strings.Contains(r.err, "N: 1") {
		t.Errorf("template reply: %q %q", r.out, r.err)
	}
}

func TestReplyUsageErrors(t *testing.T) {
	l := newLab(t)
	l.fails(`reply`, "error: required argument 'subject' not provided", "reply needs <subject>", "reply svc.time")
	l.fails(`req`, "error: required argument 'subject' not provided", "request needs <subject>")
	// The real CLI refuses none of these: it sends, and says what came back.
	r := l.must(`req 'svc.>' x`)
	wantLines(t, "wildcard", brokertest.Normalize(r.err), "TIME No responders are available\n")
	r = l.must(`req svc.x --count 0`)
	wantLines(t, "--count 0", r.out, " [1 in ") // up to 32767 requests, the first answered by no responders
	// A subject nats.go refuses: the real CLI listens anyway, for nothing.
	var note syncBuf
	j := l.s.StartStreams(context.Background(), `reply 'svc x'`, command.Streams{Note: &note})
	waitReady(t, j)
	j.Stop()
	waitDone(t, j)
	wantLines(t, "note", note.String(), "space")
}

// A --command that runs longer than the session's timeout is stopped (the
// real CLI would wait for it): the status line is natscli's, saying how it
// ended, and the lab's words are a note.
func TestReplyCommandStoppedAfterTheTimeout(t *testing.T) {
	l := newLab(t)
	errs, note := &syncBuf{}, &syncBuf{}
	errs.written, note.written = l.poke, l.poke
	rep := l.s.StartStreams(context.Background(), `reply slow --command "sleep 30"`, command.Streams{Out: &syncBuf{}, Err: errs, Note: note})
	t.Cleanup(func() { rep.Stop(); <-rep.Done() })
	waitReady(t, rep)
	l.run("req slow hi")
	l.await("the reply's note on the stopped command", func() bool { return strings.Contains(note.String(), "so the lab stopped it") })
	if !regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d Command "sleep 30" failed to run: signal: killed$`).MatchString(errs.String()) {
		t.Errorf("want natscli's status line, got:\n%s", errs.String())
	}
	if !strings.Contains(note.String(), "ran longer than 2s") {
		t.Errorf("note: %q", note.String())
	}
}
