package command_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker/brokertest"
	"natslab/broker/command"
)

// seedEvents is the tutorial's stream: three events in EVENTS.
func seedEvents(t *testing.T, l *lab) {
	addStream(t, l, jetstream.StreamConfig{Name: "EVENTS", Subjects: []string{"events.>"}},
		[2]string{"events.page_loaded", `{"page":"/home"}`},
		[2]string{"events.input_changed", `{"field":"email"}`},
		[2]string{"events.page_loaded", `{"page":"/pricing"}`})
}

func TestSubReplayAllTerminateAtEnd(t *testing.T) {
	l := newLab(t)
	seedEvents(t, l)
	start := time.Now()
	r := l.must(`sub "events.>" --all --terminate-at-end`)
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("replay of three messages took %s", d)
	}
	// The seed tutorial's output, numbers from the broker.
	want := "[#1] Received JetStream message: stream: EVENTS seq: 1 / pending: 2 / subject: events.page_loaded / time: DATE\n" +
		"{\"page\":\"/home\"}\n\n\n" +
		"[#2] Received JetStream message: stream: EVENTS seq: 2 / pending: 1 / subject: events.input_changed / time: DATE\n" +
		"{\"field\":\"email\"}\n\n\n" +
		"[#3] Received JetStream message: stream: EVENTS seq: 3 / pending: 0 / subject: events.page_loaded / time: DATE\n" +
		"{\"page\":\"/pricing\"}\n\n\n"
	if got := brokertest.Normalize(r.out); got != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", got, want)
	}
	if got, want := brokertest.Normalize(r.err), "TIME Subscribing to subject events.> from first received message \n"; got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
	// The time is the stream's, in natscli's format.
	if !regexp.MustCompile(`time: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\n`).MatchString(r.out) {
		t.Errorf("time format: %s", r.out)
	}
	// A replay reads; the messages are still there.
	again := l.must(`sub "events.>" --all -T`)
	if again.out != r.out && brokertest.Normalize(again.out) != want {
		t.Errorf("second replay differs:\n%s", again.out)
	}
}

func TestSubAllHonoursCount(t *testing.T) {
	l := newLab(t)
	var msgs [][2]string
	for i := 1; i <= 50; i++ {
		msgs = append(msgs, [2]string{"events.n", fmt.Sprintf("m%d", i)})
	}
	addStream(t, l, jetstream.StreamConfig{Name: "EVENTS", Subjects: []string{"events.>"}}, msgs...)
	r := l.must(`sub "events.>" --all --count 3`)
	if n := strings.Count(r.out, "Received JetStream message"); n != 3 {
		t.Errorf("--count 3 printed %d messages:\n%s", n, r.out)
	}
	if !strings.Contains(r.out, "seq: 3 / pending: 47") || strings.Contains(r.out, "seq: 4 ") {
		t.Errorf("want exactly sequences 1-3:\n%s", r.out)
	}
	// With -T as well, --count still wins when it comes first.
	r = l.must(`sub "events.>" --all -T --count 2 --start-sequence 10`)
	if n := strings.Count(r.out, "Received JetStream message"); n != 2 || !strings.Contains(r.out, "seq: 10 ") {
		t.Errorf("--start-sequence 10 --count 2:\n%s", r.out)
	}
}

// TestSubTerminateOnEmptyStreamEndsAtOnce: where the real CLI's -T waits
// for a message that never comes, the lab ends, and its note says why.
func TestSubTerminateOnEmptyStreamEndsAtOnce(t *testing.T) {
	l := newLab(t)
	addStream(t, l, jetstream.StreamConfig{Name: "EMPTY", Subjects: []string{"empty.>"}})
	for _, line := range []string{`sub 'empty.>' --all -T`, `sub empty.x --new -T`, `sub --stream EMPTY --last-per-subject -T`} {
		start := time.Now()
		r := l.must(line)
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s took %s on an empty stream", line, d)
		}
		if r.out != "" || !strings.Contains(r.note, "the real CLI would wait here") {
			t.Errorf("%s: stdout %q note %q", line, r.out, r.note)
		}
	}
	// An interest stream that never held a message: the real CLI's direct
	// read asks for sequence 0, which JetStream refuses.
	addStream(t, l, jetstream.StreamConfig{Name: "ALERTS", Subjects: []string{"alerts.>"}, Retention: jetstream.InterestPolicy, AllowDirect: true})
	l.fails(`sub 'alerts.>' --all -T`, "nats: error: invalid option: sequence number has to be greater than 0", "never held a message")
	// Without allow_direct the real CLI cannot read it at all.
	addStream(t, l, jetstream.StreamConfig{Name: "NODIRECT", Subjects: []string{"nodirect.>"}, Retention: jetstream.InterestPolicy})
	l.fails(`sub 'nodirect.>' --all -T`, "nats: error: cannot enable direct gets: allow_direct is not set to true for stream NODIRECT", "--allow-direct")
}

func TestSubWorkQueueReadsWithoutConsuming(t *testing.T) {
	l := newLab(t)
	addStream(t, l, jetstream.StreamConfig{Name: "WQ", Subjects: []string{"wq.>"}, Retention: jetstream.WorkQueuePolicy, AllowDirect: true},
		[2]string{"wq.a", "one"}, [2]string{"wq.b", "two"}, [2]string{"wq.a", "three"})
	r := l.must(`sub 'wq.>' --all -T`)
	// The server's headers of each direct get come first, as the real CLI
	// prints them.
	head := func(seq, pending int, subject string) string {
		return fmt.Sprintf("[#%d] Received JetStream message (direct): stream: WQ seq %d / subject: %s / time: DATE\n"+
			"Nats-Last-Sequence: 0\nNats-Num-Pending: %d\nNats-Sequence: %d\nNats-Stream: WQ\nNats-Subject: %s\nNats-Time-Stamp: DATE\n\n", seq, seq, subject, pending, seq, subject)
	}
	want := head(1, 2, "wq.a") + "one\n\n\n" + head(2, 1, "wq.b") + "two\n\n\n" + head(3, 0, "wq.a") + "three\n\n\n"
	if got := brokertest.Normalize(r.out); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	// A subject filter: the real CLI's direct read shows the whole stream
	// all the same, and the note says so.
	addStream(t, l, jetstream.StreamConfig{Name: "WQ2", Subjects: []string{"wq2.>"}, Retention: jetstream.WorkQueuePolicy, AllowDirect: true},
		[2]string{"wq2.a", "one"}, [2]string{"wq2.b", "two"}, [2]string{"wq2.a", "three"})
	r = l.must(`sub 'wq2.a' --all -T --raw`)
	if r.out != "one\ntwo\nthree\n" || !strings.Contains(r.note, "not only those on wq2.a") {
		t.Errorf("filtered direct read printed %q, note %q", r.out, r.note)
	}
	// Both streams still hold everything.
	nc := brokertest.Connect(t, l.srv, "check")
	js, _ := jetstream.New(nc)
	for _, name := range []string{"WQ", "WQ2"} {
		st, err := js.Stream(context.Background(), name)
		if err != nil {
			t.Fatal(err)
		}
		if n := st.CachedInfo().State.Msgs; n != 3 {
			t.Errorf("%s holds %d messages after sub, want 3", name, n)
		}
	}
}

func TestSubDirectFollowsNewMessages(t *testing.T) {
	l := newLab(t)
	addStream(t, l, jetstream.StreamConfig{Name: "WQ", Subjects: []string{"wq.>"}, Retention: jetstream.WorkQueuePolicy, AllowDirect: true},
		[2]string{"wq.a", "one"})
	j, out := l.background(`sub 'wq.>' --all --count 2`)
	waitReady(t, j)
	l.await("the stored message", func() bool { return j.Received() == 1 })
	l.must(`pub wq.b two --jetstream`)
	waitDone(t, j)
	if !strings.Contains(out.String(), "seq 2 / subject: wq.b") {
		t.Errorf("output:\n%s", out.String())
	}
}

func TestSubLiveJetStreamAndLast(t *testing.T) {
	l := newLab(t)
	seedEvents(t, l)
	r := l.must(`sub "events.>" --last -T`)
	if n := strings.Count(r.out, "Received JetStream"); n != 1 || !strings.Contains(r.out, "seq: 3 / pending: 0") {
		t.Errorf("--last -T:\n%s", r.out)
	}
	r = l.must(`sub "events.>" --last-per-subject -T --subjects-only`)
	if n := strings.Count(r.out, "Received JetStream"); n != 2 || strings.Contains(r.out, "{") {
		t.Errorf("--last-per-subject --subjects-only:\n%s", r.out)
	}
	j, out := l.background(`sub "events.>" --new --count 1`)
	waitReady(t, j)
	l.must(`pub events.later 'x' --jetstream`)
	waitDone(t, j)
	if !strings.Contains(out.String(), "seq: 4 / pending: 0 / subject: events.later") {
		t.Errorf("--new:\n%s", out.String())
	}
	r = l.must(`sub --stream EVENTS --since 1h -T --raw`)
	if strings.Count(r.out, "\n") != 4 {
		t.Errorf("--since 1h:\n%s", r.out)
	}
	// --stream alone reads from the start, without a status line.
	r = l.must(`sub --stream EVENTS -T`)
	if strings.Count(r.out, "Received JetStream message: stream: EVENTS") != 4 || r.err != "" {
		t.Errorf("--stream -T:\n%s%s", r.err, r.out)
	}
	// --direct reads without a consumer, in the direct format, where the
	// stream allows direct gets.
	l.fails(`sub "events.>" --direct --all -T`, "nats: error: cannot enable direct gets: allow_direct is not set to true for stream EVENTS")
	l.must(`stream edit EVENTS --allow-direct -f`)
	r = l.must(`sub "events.>" --direct --all -T`)
	if strings.Count(r.out, "Received JetStream message (direct): stream: EVENTS seq ") != 4 {
		t.Errorf("--direct:\n%s", r.out)
	}
}

// sub --durable creates what the real CLI creates: a consumer with a name
// but no durable name and no acks, which the server treats as ephemeral.
// Within its inactive threshold a second sub finds it, already past
// everything the first one read.
func TestSubDurableIsEphemeral(t *testing.T) {
	l := newLab(t)
	seedEvents(t, l)
	r := l.must(`sub --stream EVENTS --durable READER -T`)
	if !strings.Contains(r.out, "seq: 1 ") || !strings.Contains(r.out, "seq: 3 ") {
		t.Fatalf("first read:\n%s%s", r.err, r.out)
	}
	ci := consumerInfo(t, l, "EVENTS", "READER")
	cfg := ci.Config
	if cfg.Durable != "" || cfg.Name != "READER" || cfg.AckPolicy != jetstream.AckNonePolicy || cfg.InactiveThreshold != 5*time.Second || cfg.FilterSubject != ">" {
		t.Errorf("want an ephemeral consumer named READER, no acks, filter >, inactive after 5s; got durable %q name %q ack %v inactive %v filter %q",
			cfg.Durable, cfg.Name, cfg.AckPolicy, cfg.InactiveThreshold, cfg.FilterSubject)
	}
	r = l.must(`sub --stream EVENTS --durable READER -T`)
	if !strings.Contains(r.err, `using existing pull consumer "READER"`) || !strings.Contains(r.note, "the real CLI would wait here") || strings.Contains(r.out, "seq: ") {
		t.Errorf("second read within the threshold:\n%s%s", r.err, r.out)
	}
}

func TestSubJetStreamErrors(t *testing.T) {
	l := newLab(t)
	l.fails(`sub nosuch.subject --all`, "nats: error: no stream found with subject: nosuch.subject", "stream add")
	seedEvents(t, l)
	l.fails(`sub nosuch.subject --all`, "nats: error: no stream found with subject: nosuch.subject", "EVENTS stores events.>")
	l.fails(`sub --stream NOPE --all`, "nats: error: nats: API error: code=404 err_code=10059 description=stream not found", "no stream NOPE", "EVENTS")
	off := newLab(t, brokertest.WithoutJetStream())
	off.fails(`sub events.x --all`, "JetStream is off")
}

func TestSubIgnoreAndTimestamps(t *testing.T) {
	l := newLab(t)
	seedEvents(t, l)
	r := l.must(`sub "events.>" --all -T -I events.input_changed -t`)
	if strings.Contains(r.out, "input_changed") || strings.Count(r.out, "Received JetStream") != 2 {
		t.Errorf("-I:\n%s", r.out)
	}
	if !regexp.MustCompile(`\[#1\] @ \w{3} [ \d]\d \d\d:\d\d:\d\d\.\d{6} Received JetStream`).MatchString(r.out) {
		t.Errorf("-t label:\n%s", r.out)
	}
	// Ignoring the last message still ends at the end.
	r = l.must(`sub "events.>" --all -T -I 'events.page_loaded'`)
	if strings.Count(r.out, "Received JetStream") != 1 {
		t.Errorf("-I of the last subject:\n%s", r.out)
	}
}

func TestSubDump(t *testing.T) {
	l := newLab(t)
	seedEvents(t, l)
	r := l.must(`sub "events.>" --all -T --dump=-`)
	parts := strings.Split(strings.TrimSuffix(r.out, "\x00"), "\x00")
	if len(parts) != 3 || !strings.HasPrefix(parts[0], `{"Subject":"events.page_loaded","Reply":"$JS.ACK.EVENTS.`) || !strings.HasSuffix(parts[0], `"Header":null,"Data":"eyJwYWdlIjoiL2hvbWUifQ==","Sub":null}`) {
		t.Errorf("--dump=-: %q", r.out)
	}
	dir := t.TempDir()
	l.must(`sub "events.>" --all -T --dump ` + dir)
	for i := 1; i <= 3; i++ {
		if _, err := os.ReadFile(fmt.Sprintf("%s/%d.json", dir, i)); err != nil {
			t.Error(err)
		}
	}
}

func TestSubAcksPushedMessages(t *testing.T) {
	l := newLab(t)
	seedEvents(t, l)
	nc := brokertest.Connect(t, l.srv, "setup")
	js, _ := jetstream.New(nc)
	ctx := context.Background()
	if _, err := js.CreateOrUpdatePushConsumer(ctx, "EVENTS", jetstream.ConsumerConfig{Durable: "PUSHY", DeliverSubject: "push.out", AckPolicy: jetstream.AckExplicitPolicy}); err != nil {
		t.Fatal(err)
	}
	r := l.must(`sub push.out --ack --count 3`)
	if !strings.Contains(r.err, "Subscribing on push.out with acknowledgement of JetStream messages") ||
		strings.Count(r.out, `Received on "events.`) != 3 || !strings.Contains(r.out, `with reply "$JS.ACK.EVENTS.PUSHY.`) {
		t.Errorf("sub --ack:\n%s%s", r.err, r.out)
	}
	// Taken in by the server once the sub has returned, as the real CLI's
	// next command finds them.
	c, err := js.PushConsumer(ctx, "EVENTS", "PUSHY")
	if err != nil {
		t.Fatal(err)
	}
	if info, err := c.Info(ctx); err != nil || info.NumAckPending != 0 || info.AckFloor.Stream != 3 {
		t.Errorf("after sub --ack, the consumer: %+v, %v", info, err)
	}

	// The same push consumer read with --durable: nothing left, -T ends.
	r = l.must(`sub --stream EVENTS --durable PUSHY -T`)
	if !strings.Contains(r.err, `using existing push consumer "PUSHY"`) || !strings.Contains(r.note, "the real CLI would wait here") {
		t.Errorf("--durable on a push consumer:\n%s%s", r.err, r.out)
	}
}

func TestSubTranslate(t *testing.T) {
	l := newLab(t)
	seedEvents(t, l)
	r := l.must(`sub "events.>" --all -T --count 1 --translate 'tr a-z A-Z'`)
	if !strings.Contains(r.out, "{\"PAGE\":\"/HOME\"}\n\n\n") {
		t.Errorf("--translate:\n%s", r.out)
	}
	r = l.must(`sub "events.>" --all -T --count 1 --raw --translate 'sh -c "exit 3"'`)
	if !strings.Contains(r.out, "Error while translating msg body: exit status 3") {
		t.Errorf("failing --translate:\n%s", r.out)
	}
}

// A --translate command that runs longer than the session's timeout is
// stopped (the real CLI would wait for it): natscli's lines say how it
// ended, the lab's words are a note.
func TestSubTranslateStoppedAfterTheTimeout(t *testing.T) {
	l := newLab(t)
	seedEvents(t, l)
	r := l.must(`sub "events.>" --all -T --count 1 --translate 'sleep 30'`)
	if !strings.HasSuffix(r.out, "\n\"\"\nError while translating msg body: signal: killed\n\n") {
		t.Errorf("want natscli's lines:\n%s", r.out)
	}
	if !strings.Contains(r.note, "the --translate command ran longer than 2s, so the lab stopped it") {
		t.Errorf("note: %q", r.note)
	}
}

// A --translate line that names no command (here once its template has
// run) crashes natscli v0.5.0 after the message's first line, so it has
// no line of its own to print: the lab shows that first line, then stops
// the sub with its own refusal, never a natscli-looking error.
func TestSubTranslateWithoutACommand(t *testing.T) {
	l := newLab(t)
	seedEvents(t, l)
	r := l.run(`sub "events.>" --all -T --translate '{{if false}}cat{{end}}'`)
	msg, ok := command.Refusal(r.e)
	if !ok || !strings.Contains(msg, "names no command to run") {
		t.Fatalf("want the lab's refusal, got %v\n%s", r.e, r.all())
	}
	if !strings.HasPrefix(command.ErrorLine(r.e), command.LabPrefix) {
		t.Errorf("the refusal reads as the real CLI's: %q", command.ErrorLine(r.e))
	}
	if n := strings.Count(r.out, "Received JetStream message"); n != 1 || strings.Contains(r.out, "Error while translating") {
		t.Errorf("want the first message's first line alone, then the end:\n%s", r.out)
	}
}

// firstPull runs line and returns the first pull request it made of a
// consumer of stream, as the server received it.
func firstPull(t *testing.T, l *lab, stream, line string) (batch, maxBytes int) {
	t.Helper()
	nc := brokertest.Connect(t, l.srv, "look")
	sub, err := nc.SubscribeSync("$JS.API.CONSUMER.MSG.NEXT." + stream + ".>")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	l.must(line)
	m, err := sub.NextMsg(5 * time.Second)
	if err != nil {
		t.Fatalf("%s: no pull request seen: %v", line, err)
	}
	var req struct {
		Batch    int `json:"batch"`
		MaxBytes int `json:"max_bytes"`
	}
	if err := json.Unmarshal(m.Data, &req); err != nil {
		t.Fatalf("%s: pull request %q: %v", line, m.Data, err)
	}
	return req.Batch, req.MaxBytes
}

// TestSubPullsABudgetOfBytesOrTheCount: a read of a stream through a
// consumer of sub's own keeps megabytes of small messages in flight
// (not natscli's 500, whose next batch a replay keeps waiting for), but
// with --count asks for no more than the count.
func TestSubPullsABudgetOfBytesOrTheCount(t *testing.T) {
	l := newLab(t)
	seedEvents(t, l)
	batch, maxBytes := firstPull(t, l, "EVENTS", `sub "events.>" --all -T`)
	if maxBytes < 8<<20 || batch < 500 {
		t.Errorf("replay's first pull: batch %d, max_bytes %d; want at least 500 messages and 8 MiB", batch, maxBytes)
	}
	batch, maxBytes = firstPull(t, l, "EVENTS", `sub "events.>" --all --count 2`)
	if batch != 2 || maxBytes != 0 {
		t.Errorf("--count 2's first pull: batch %d, max_bytes %d; want 2 messages, no byte limit", batch, maxBytes)
	}
}

// TestSubReadsAMessageAsLargeAsTheServerTakes: the pull's byte budget
// grows with the server's max_payload, or a message larger than the
// budget would never be delivered and the read would never end.
func TestSubReadsAMessageAsLargeAsTheServerTakes(t *testing.T) {
	l := newLab(t)
	l.must("config add max_payload: 12582912")
	addStream(t, l, jetstream.StreamConfig{Name: "BIG", Subjects: []string{"big.>"}},
		[2]string{"big.one", strings.Repeat("x", 10<<20)})
	r := l.must(`sub "big.>" --all -T`)
	if !strings.Contains(r.out, "seq: 1 / pending: 0 / subject: big.one") || !strings.Contains(r.out, strings.Repeat("x", 1000)) {
		t.Errorf("the 10 MiB message was not printed:\n%.300s", r.out)
	}
}
