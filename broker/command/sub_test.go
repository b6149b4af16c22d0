package command_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker/brokertest"
	"natslab/broker/command"
	"natslab/broker/script"
)

// waitReady waits until a background job is subscribed.
func waitReady(t *testing.T, j *command.Job) {
	t.Helper()
	select {
	case <-j.Ready():
	case <-time.After(5 * time.Second):
		t.Fatalf("job %q never became ready", j.Line)
	}
}

// waitDone waits for a job to end by itself.
func waitDone(t *testing.T, j *command.Job) {
	t.Helper()
	select {
	case <-j.Done():
	case <-time.After(10 * time.Second):
		j.Stop()
		t.Fatalf("job %q did not end by itself", j.Line)
	}
}

func TestSubCoreReceivesPub(t *testing.T) {
	l := newLab(t)
	j, out := l.background(`sub 'greet.*' --count 4`)
	waitReady(t, j)
	l.must(`pub greet.hello 'Hello World'`)
	l.must(`pub greet.bob 'hi bob' -H X-Trace:abc -H Lang:en`)
	l.must(`pub greet.x '{"a":1}'`)
	l.must(`pub greet.y ''`)
	waitDone(t, j)
	if err := j.Err(); err != nil {
		t.Fatal(err)
	}
	want := "TIME Subscribing on greet.* \n" +
		"[#1] Received on \"greet.hello\"\nHello World\n\n\n" +
		"[#2] Received on \"greet.bob\"\nLang: en\nX-Trace: abc\n\nhi bob\n\n\n" +
		"[#3] Received on \"greet.x\"\n{\"a\":1}\n\n\n" +
		"[#4] Received on \"greet.y\"\nnil body\n\n\n"
	if got := brokertest.Normalize(out.String()); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if j.Received() != 4 {
		t.Errorf("job counted %d messages, want 4", j.Received())
	}
}

func TestSubRawAndHeadersOnly(t *testing.T) {
	l := newLab(t)
	raw, rawOut := l.background(`sub greet --raw --count 2`)
	hdrs, hdrsOut := l.background(`sub greet --headers-only --count 2`)
	waitReady(t, raw)
	waitReady(t, hdrs)
	l.must(`pub greet one -H K:v`)
	l.must(`pub greet ''`)
	waitDone(t, raw)
	waitDone(t, hdrs)
	if got, want := rawOut.String(), "one\nnil body\n"; got != want {
		t.Errorf("--raw printed %q, want %q", got, want)
	}
	want := "TIME Subscribing on greet \n[#1] Received on \"greet\"\nK: v\n\n[#2] Received on \"greet\"\n"
	if got := brokertest.Normalize(hdrsOut.String()); got != want {
		t.Errorf("--headers-only printed %q, want %q", got, want)
	}
}

func TestSubWildcards(t *testing.T) {
	l := newLab(t)
	star, starOut := l.background(`sub 'orders.*.created'`)
	tail, tailOut := l.background(`sub 'orders.>'`)
	waitReady(t, star)
	waitReady(t, tail)
	for _, subj := range []string{"orders.eu.created", "orders.us.cancelled", "orders.eu.x.created", "orders"} {
		l.must("pub " + subj + " x")
	}
	// Last, a message both match: a subscriber gets one publisher's
	// messages in order, so once it has this one it has had all it will.
	l.must("pub orders.end.created end")
	l.await("the last message on both", func() bool {
		return strings.Contains(starOut.String(), `"orders.end.created"`) && strings.Contains(tailOut.String(), `"orders.end.created"`)
	})
	if star.Received() != 2 || tail.Received() != 4 {
		t.Errorf("orders.*.created got %d (want 1 and the last), orders.> got %d (want 3 and the last)", star.Received(), tail.Received())
	}
}

func TestSubQueueGroupSplitsWork(t *testing.T) {
	l := newLab(t)
	a, outA := l.background(`sub tasks --queue workers`)
	b, outB := l.background(`sub tasks --queue workers`)
	waitReady(t, a)
	waitReady(t, b)
	if subj, q := a.Listening(); subj != "tasks" || q != "workers" {
		t.Errorf("job says it listens on %q in %q", subj, q)
	}
	l.must(`pub tasks 'task {{Count}}' --count 6`)
	l.await("six tasks handed out and printed", func() bool {
		return a.Received()+b.Received() >= 6 && strings.Count(outA.String()+outB.String(), "\ntask ") >= 6
	})
	seen := map[string]int{}
	for _, out := range []string{outA.String(), outB.String()} {
		for _, m := range regexp.MustCompile(`task \d+`).FindAllString(out, -1) {
			seen[m]++
		}
	}
	for i := 1; i <= 6; i++ {
		if n := seen[fmt.Sprintf("task %d", i)]; n != 1 {
			t.Errorf("task %d was received %d times, want once", i, n)
		}
	}
	if a.Received()+b.Received() != 6 {
		t.Errorf("group received %d+%d messages, want 6 in all", a.Received(), b.Received())
	}
}

func TestSubStopsOnStop(t *testing.T) {
	l := newLab(t)
	j, _ := l.background(`sub greet`)
	waitReady(t, j)
	j.Stop()
	waitDone(t, j)
	if err := j.Err(); err != nil {
		t.Errorf("a stopped sub should end cleanly, got %v", err)
	}
}

func TestSubWaitEndsAfterSilence(t *testing.T) {
	l := newLab(t)
	start := time.Now()
	l.must(`sub greet --wait 200ms`)
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("--wait 200ms took %s", d)
	}
}

func TestSubInbox(t *testing.T) {
	l := newLab(t)
	j, out := l.background(`sub --inbox --count 1`)
	waitReady(t, j)
	subj, _ := j.Listening()
	if !strings.HasPrefix(subj, "_INBOX.") {
		t.Fatalf("--inbox listens on %q", subj)
	}
	l.must("pub " + subj + " hi")
	waitDone(t, j)
	if !strings.Contains(out.String(), "Received on \""+subj+"\"\nhi\n") {
		t.Errorf("output:\n%s", out.String())
	}
}

func TestSubUsageErrors(t *testing.T) {
	l := newLab(t)
	r := l.run(`sub`)
	if r.e == nil || r.out != "No subjects or --stream flag provided.\n" && !strings.HasPrefix(r.out, "No subjects or --stream flag provided.\nusage: nats subscribe") {
		t.Errorf("sub alone: %v\n%s", r.e, r.all())
	}
	l.fails(`sub`, "error: required argument", "needs a subject", `sub "orders.>"`)
	l.fails(`sub --durable NEW`, "error: required argument", "needs a subject")
	l.fails(`sub greet -T`, "nats: error: --terminate-at-end is only supported for JetStream subscriptions", "--all")
	l.fails(`sub greet --all --new`, "nats: error: no stream found with subject: greet", "no streams yet")
	l.fails(`sub 'a b'`, "nats: error: nats: invalid subject", "space")
	// The server refuses it and closes the connection: its word, as the
	// real CLI prints it, not that the connection closed.
	l.fails(`sub 'a.>.b'`, "nats: error: nats: Invalid Subject\n", "> must be the last token")
	l.fails(`sub greet --queue w --all`, "nats: error: queue group subscriptions are not supported with JetStream", "--queue")
	l.fails(`sub greet -t -d`, "nats: error: timestamp and delta-time flags are mutually exclusive", "choose one")
	l.fails(`sub a b --all`, "nats: error: streams subscribe support only 1 subject", "one subject")
	l.must(`stream add GREET --subjects greet --defaults`)
	l.fails(`sub greet --since yesterday`, "nats: error: invalid duration", "--since", "10m")
}

func TestSubScriptWaitsForReady(t *testing.T) {
	l := newLab(t)
	var out, errb syncBuf
	src := "sub greet --count 2 &\npub greet one\npub greet two\n"
	res, err := script.Run(context.Background(), l.s, strings.NewReader(src), command.Streams{Out: &out, Err: &errb})
	if err != nil || res.Failed != 0 {
		t.Fatalf("script: %v, %d failed\n%s%s", err, res.Failed, errb.String(), out.String())
	}
	for _, want := range []string{"[#1] Received on \"greet\"\none\n", "[#2] Received on \"greet\"\ntwo\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("script output lacks %q:\n%s", want, out.String())
		}
	}
}

// addStream creates a stream with the client library directly, as a lesson
// or another command would, and publishes bodies to subjects in turn.
func addStream(t testing.TB, l *lab, cfg jetstream.StreamConfig, msgs ...[2]string) {
	t.Helper()
	nc := brokertest.Connect(t, l.srv, "test setup")
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := js.CreateStream(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if _, err := js.Publish(ctx, m[0], []byte(m[1])); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSwitchesTakeNoValue: fisk reads "--raw=maybe" as --raw and the
// argument "maybe", in the real CLI as in the lab; the note says so.
func TestSwitchesTakeNoValue(t *testing.T) {
	l := newLab(t)
	for line, want := range map[string]string{
		`sub --raw=maybe`:            "--raw on its own",
		`sub greet --ack=false`:      "--no-ack",
		`reply svc.x --echo=yes`:     "--echo is a switch",
		`sub greet --headers-only=1`: "--headers-only is a switch",
	} {
		var note syncBuf
		j := l.s.StartStreams(context.Background(), line, command.Streams{Note: &note})
		waitReady(t, j)
		j.Stop()
		waitDone(t, j)
		if !strings.Contains(note.String(), want) {
			t.Errorf("%s: note %q lacks %q", line, note.String(), want)
		}
	}
	r := l.must(`req svc.x --templates=false`) // "false" is the body
	if !strings.Contains(r.note, "--no-templates") {
		t.Errorf("note %q", r.note)
	}
}

func TestSubCountInQueueGroupLosesNothing(t *testing.T) {
	l := newLab(t)
	a, _ := l.background(`sub jobs --queue workers --count 2`)
	b, _ := l.background(`sub jobs --queue workers`)
	waitReady(t, a)
	waitReady(t, b)
	l.must(`pub jobs 'job {{Count}}' --count 20`)
	waitDone(t, a)
	l.await("all 20 jobs handled", func() bool { return a.Received()+b.Received() == 20 })
	if a.Received() != 2 {
		t.Errorf("the --count 2 member handled %d", a.Received())
	}
}

// consumerInfo asks the server about a consumer on a connection of its own.
func consumerInfo(t testing.TB, l *lab, stream, name string) *jetstream.ConsumerInfo {
	t.Helper()
	nc := brokertest.Connect(t, l.srv, "test check")
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := js.Consumer(ctx, stream, name)
	if err != nil {
		t.Fatalf("consumer %s > %s: %v", stream, name, err)
	}
	return c.CachedInfo()
}

// A publish takes * and > as plain characters, and a subject with an
// empty token matches no subscription at all: the publish succeeds either
// way, as the real CLI says, and the lab's note says where it went.
func TestPubOnAWildcardOrAnEmptyTokenSaysWhereItWent(t *testing.T) {
	l := newLab(t)
	concrete, concreteOut := l.background(`sub orders.us.created`)
	star, starOut := l.background(`sub 'orders.*.created'`)
	all, allOut := l.background(`sub '>'`)
	waitReady(t, concrete)
	waitReady(t, star)
	waitReady(t, all)

	r := l.must(`pub 'orders.*.created' wild`)
	if !strings.Contains(r.note, `the server took "orders.*.created" as a literal subject`) || !strings.Contains(r.note, "not one on orders.x.created") {
		t.Errorf("pub 'orders.*.created': note %q", r.note)
	}
	for _, line := range []string{"pub orders..created empty", "pub .orders lead", "pub orders. trail"} {
		r := l.must(line)
		if !strings.Contains(r.out+r.err, "Published") || !strings.Contains(r.note, "has an empty token") || !strings.Contains(r.note, "reached nobody") {
			t.Errorf("%s: printed %q, note %q", line, r.out+r.err, r.note)
		}
	}
	// Last, a message all three match: each gets one publisher's messages
	// in order, so once it has this one it has had all it will.
	l.must("pub orders.us.created end")
	l.await("the last message on all three", func() bool {
		return strings.Contains(concreteOut.String(), "end") && strings.Contains(starOut.String(), "end") && strings.Contains(allOut.String(), "end")
	})
	if concrete.Received() != 1 {
		t.Errorf("orders.us.created got %d messages, want only the last:\n%s", concrete.Received(), concreteOut.String())
	}
	if star.Received() != 2 || !strings.Contains(starOut.String(), `Received on "orders.*.created"`) {
		t.Errorf("orders.*.created got %d messages, want the literal orders.*.created and the last:\n%s", star.Received(), starOut.String())
	}
	if all.Received() != 2 || strings.Contains(allOut.String(), "empty") {
		t.Errorf("> got %d messages, want orders.*.created and the last, none with an empty token:\n%s", all.Received(), allOut.String())
	}
}

// A subscription that looks like a pattern and is none, a wildcard joined
// to text or a subject inside typographic quotes, gets a note: the real
// CLI subscribes to it as written, and nothing on the subject meant
// arrives.
func TestSubOnALiteralLookalikeSaysSo(t *testing.T) {
	l := newLab(t)
	for _, c := range []struct{ line, subject, note string }{
		{`sub 'orders>'`, "orders>", `token 1 ("orders>") mixes a wildcard with text, so it is no wildcard`},
		{`sub “orders.>”`, "“orders.>”", "this subscription is on “orders.>”, not orders.>"},
	} {
		var out, note syncBuf
		j := l.s.StartStreams(context.Background(), c.line, command.Streams{Out: &out, Err: &out, Note: &note})
		waitReady(t, j)
		if !strings.Contains(out.String(), "Subscribing on "+c.subject) || !strings.Contains(note.String(), c.note) {
			t.Errorf("%s: printed %q, note %q, want one with %q", c.line, out.String(), note.String(), c.note)
		}
	}
	r := l.must(`pub orders.x x`)
	if r.note != "" {
		t.Errorf("an ordinary publish got a note: %q", r.note)
	}
	r = l.must(`pub “orders.us.created” x`)
	if !strings.Contains(r.note, "a subscriber on orders.us.created does not get it") {
		t.Errorf("pub in typographic quotes: note %q", r.note)
	}
	var out, note syncBuf
	j := l.s.StartStreams(context.Background(), `sub 'orders.*.created'`, command.Streams{Out: &out, Err: &out, Note: &note})
	waitReady(t, j)
	if note.String() != "" {
		t.Errorf("a wildcard subscription got a note: %q", note.String())
	}
}
