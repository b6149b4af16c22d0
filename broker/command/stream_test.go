package command_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker/brokertest"
	"natslab/broker/command"
)

// streamInfo asks the server directly (not through the lab) for a
// stream's information, the truth the lab's output is checked against.
func streamInfo(t *testing.T, l *lab, name string) *jetstream.StreamInfo {
	t.Helper()
	nc := brokertest.Connect(t, l.srv, "check")
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st, err := js.Stream(ctx, name)
	if err != nil {
		t.Fatalf("stream %s: %v", name, err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

func wantLines(t *testing.T, what, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%s: lacks %q\n%s", what, w, got)
		}
	}
}

// The second seed tutorial's command: no --defaults, and the lab never
// prompts; it says in one status line which values it chose.
func TestStreamAddWithoutDefaultsSaysWhatItChose(t *testing.T) {
	l := newLab(t)
	r := l.must(`stream add ORDERS --subjects "orders.>" --storage file --retention limits`)
	if !strings.HasPrefix(r.out, "Stream ORDERS was created\n\nInformation for Stream ORDERS created ") {
		t.Fatalf("stdout:\n%s", r.out)
	}
	lines := strings.Split(strings.TrimSpace(r.err), "\n")
	if len(lines) != 1 {
		t.Fatalf("want one status line, got:\n%s", r.err)
	}
	wantLines(t, "status", lines[0], "Using defaults", "--replicas 1", "--discard old", "--dupe-window 2m0s", "--max-msgs", "--max-age", "--defaults")
	if strings.Contains(lines[0], "--storage") || strings.Contains(lines[0], "--retention") {
		t.Errorf("the note names values that were given: %s", lines[0])
	}
	info := streamInfo(t, l, "ORDERS")
	c := info.Config
	if c.MaxMsgs != -1 || c.MaxBytes != -1 || c.MaxMsgSize != -1 || c.MaxAge != 0 || c.Duplicates != 2*time.Minute || !c.AllowDirect || c.Storage != jetstream.FileStorage || c.Retention != jetstream.LimitsPolicy || c.Replicas != 1 {
		t.Errorf("config is not the real CLI's defaults: %+v", c)
	}
	// With --defaults: silent.
	r = l.must(`stream add EVENTS --subjects "events.>" --defaults`)
	if r.err != "" {
		t.Errorf("--defaults should add no note: %q", r.err)
	}
}

func TestStreamAddWithoutSubjectsUsesTheName(t *testing.T) {
	l := newLab(t)
	r := l.must("stream add NOSUBJ --defaults")
	wantLines(t, "status", r.err, "--subjects NOSUBJ")
	wantLines(t, "info", r.out, "Subjects: NOSUBJ")
	if got := streamInfo(t, l, "NOSUBJ").Config.Subjects; len(got) != 1 || got[0] != "NOSUBJ" {
		t.Errorf("subjects %v", got)
	}
}

func TestStreamAddOptions(t *testing.T) {
	l := newLab(t)
	r := l.must(`stream add EVENTS --subjects 'events.>' --storage m --retention work --max-age 1w --max-bytes 1GB --max-msgs 1000 --max-msgs-per-subject 10 --max-msg-size 1KB --dupe-window 5m --discard new --description 'Event log' --max-consumers 4 --allow-rollup --defaults`)
	wantLines(t, "add", r.out, "Description: Event log", "Storage: Memory", "Retention: WorkQueue", "Discard Policy: New",
		"Duplicate Window: 5m0s", "Allows Rollups: true", "Maximum Messages: 1,000", "Maximum Per Subject: 10",
		"Maximum Bytes: 1.0 GiB", "Maximum Age: 7d0h0m0s", "Maximum Message Size: 1.0 KiB", "Maximum Consumers: 4")
	c := streamInfo(t, l, "EVENTS").Config
	if c.MaxBytes != 1<<30 || c.MaxAge != 7*24*time.Hour || c.MaxMsgSize != 1024 || c.Retention != jetstream.WorkQueuePolicy || c.Storage != jetstream.MemoryStorage || c.Discard != jetstream.DiscardNew {
		t.Errorf("config %+v", c)
	}
	// The real CLI's spellings work too; a short max age shortens the
	// duplicate window, as the real CLI does.
	l.must(`stream add JOBS --subjects 'jobs.>' --retention work --storage file --max-age 30s --defaults`)
	if c := streamInfo(t, l, "JOBS").Config; c.Duplicates != 30*time.Second || c.Retention != jetstream.WorkQueuePolicy {
		t.Errorf("config %+v", c)
	}
}

func TestStreamAddErrors(t *testing.T) {
	l := newLab(t)
	l.must(`stream add ORDERS --subjects 'orders.*' --defaults`)
	l.fails(`stream add ORDERS2 --subjects orders.new --defaults`, "ORDERS already captures orders.*", "orders.new", "one stream")
	l.fails(`stream add R3 --subjects 'r3.>' --replicas 3 --defaults`, "--replicas 3", "single node", "--cluster 3")
	l.fails(`stream add my.stream --subjects foo --defaults`, `"my.stream" is not a valid stream name`)
	l.fails(`stream add 'my stream' --subjects foo --defaults`, `"my stream" is not a valid stream name`)
	l.fails(`stream add ORDERS --subjects 'other.*' --defaults`, "already exists with a different configuration", "orders.*", "stream edit ORDERS")
	l.fails(`stream add X --subjects x --max-bytes 1XB --defaults`, "--max-bytes", "1GB")
	l.fails(`stream add X --subjects x --max-age soon --defaults`, "--max-age", "1h")
	l.fails(`stream add X --subjects 'x.>.y' --defaults`, "> must be the last token")
	l.fails(`stream add X --subjects x --retention forever --defaults`, "enum value must be one of limits,interest,workq,work, got 'forever'", "--retention wants one of")
	l.fails(`stream add X --subjects x --replicas=-1 --defaults`, "--replicas must be 1 or more")
	l.fails(`stream add --defaults`, "stream add needs a stream name")
	l.fails(`stream add X --mirror ORDERS --defaults`, "not in the lab yet")
	l.fails(`stream add ALL --subjects '>' --defaults`, "cannot capture >", "API subjects")
	l.fails(`stream add DW --subjects dw --max-age 10s --dupe-window 1m --defaults`, "--dupe-window 1m0s is longer than --max-age 10s", "10s or less")
	l.fails(`stream edit ORDERS --storage memory -f`, "storage cannot change")
	// The same configuration again is fine, as in the real CLI.
	l.must(`stream add ORDERS --subjects 'orders.*' --defaults`)
	if n := len(strings.Fields(l.must("stream ls --names").out)); n != 1 {
		t.Errorf("%d streams after the errors, want 1", n)
	}
}

func TestStreamErrorsWhenJetStreamIsOff(t *testing.T) {
	l := newLab(t, brokertest.WithoutJetStream())
	for _, line := range []string{"stream ls", "stream report", "stream info ORDERS", "stream add ORDERS --subjects x --defaults", "stream rm ORDERS -f", "stream view ORDERS"} {
		l.fails(line, "JetStream is off", "nats-server -js")
	}
}

// fill creates ORDERS and EVENTS with known contents, through the lab.
func fill(t *testing.T, l *lab) {
	t.Helper()
	l.must(`stream add ORDERS --subjects 'orders.*' --defaults`)
	l.must(`stream add EVENTS --subjects 'events.>' --description 'Event log' --defaults`)
	l.must(`pub orders.new '{"id":{{Count}}}' --count 3 -J`)
	l.must(`pub orders.cancelled 'cancelled {{Count}}' --count 2 -J`)
	l.must(`pub orders.shipped 'shipped 1' -H Nats-Msg-Id:ship-1 -J`)
	l.must(`pub events.login 'sue' -J`)
}

func TestStreamInfoShowsTheBrokersState(t *testing.T) {
	l := newLab(t)
	fill(t, l)
	r := l.must("stream info ORDERS")
	info := streamInfo(t, l, "ORDERS")
	wantLines(t, "info", r.out,
		"Information for Stream ORDERS created "+info.Created.Local().Format("2006-01-02 15:04:05")+"\n",
		"Subjects: orders.*", "Retention: Limits", "Host Version: ",
		"Messages: 6\n", "Bytes: "+humanize.IBytes(info.State.Bytes)+"\n",
		"First Sequence: 1 @ ", "Last Sequence: 6 @ ", "Active Consumers: 0", "Number of Subjects: 3\n")
	if !strings.HasSuffix(r.out, "Number of Subjects: 3\n\n") {
		t.Errorf("info should end with a blank line, as the real CLI's does:\n%q", r.out[len(r.out)-40:])
	}
	if r.err != "" {
		t.Errorf("stderr: %q", r.err)
	}
	st := l.must("stream info ORDERS --state").out
	if !strings.HasPrefix(st, "State for Stream ORDERS created ") || strings.Contains(st, "Retention") {
		t.Errorf("--state:\n%s", st)
	}
	if l.must("stream state ORDERS").out != st {
		t.Error("stream state differs from stream info --state")
	}
	var js struct {
		Config struct{ Name string }
		State  struct{ Messages, Bytes uint64 }
	}
	if err := json.Unmarshal([]byte(l.must("stream info ORDERS --json").out), &js); err != nil {
		t.Fatal(err)
	}
	if js.Config.Name != "ORDERS" || js.State.Messages != 6 || js.State.Bytes != info.State.Bytes {
		t.Errorf("--json: %+v", js)
	}
	// Aliases as in the real CLI.
	if l.must("str i ORDERS").out != l.must("s info ORDERS").out {
		t.Error("aliases differ")
	}
}

func TestStreamNamesUnknownAndMissing(t *testing.T) {
	l := newLab(t)
	l.fails("stream info", "no streams yet", "stream add")
	l.fails("stream info NOPE", "stream NOPE not found", "no streams yet")
	fill(t, l)
	l.fails("stream info ORDRS", "stream ORDRS not found", "did you mean ORDERS?", "EVENTS, ORDERS")
	l.fails("stream info", "stream info needs a stream name", "EVENTS, ORDERS")
	l.fails("stream view", "stream view needs a stream name")
	l.fails("stream get NOPE 1", "stream NOPE not found")
	l.fails("stream purge NOPE -f", "stream NOPE not found")
	l.fails("stream rm NOPE -f", "stream NOPE not found")
	l.fails("stream rmm NOPE 1 -f", "stream NOPE not found")
	l.fails("stream subjects NOPE", "stream NOPE not found")
	l.fails("stream edit NOPE --description x -f", "stream NOPE not found")
	l.fails("stream info bad.name", "not a valid stream name")
	l.fails("stream lss", "did you mean ls?")
}

func TestStreamLsAndReport(t *testing.T) {
	l := newLab(t)
	if got := l.must("stream ls").out; got != "No Streams defined\n" {
		t.Errorf("empty ls: %q", got)
	}
	if got := l.must("stream report").out; got != "Obtaining Stream stats\n\nNo Streams defined\n" {
		t.Errorf("empty report: %q", got)
	}
	fill(t, l)
	orders, events := streamInfo(t, l, "ORDERS"), streamInfo(t, l, "EVENTS")
	ls := l.must("stream ls").out
	wantLines(t, "ls", ls, "Streams", "│ Name ", "│ Description", "│ Last Message │",
		"│ EVENTS │ Event log   │", "│ 1        │ "+humanize.IBytes(events.State.Bytes),
		"│ ORDERS │             │", "│ 6        │ "+humanize.IBytes(orders.State.Bytes))
	if strings.Index(ls, "EVENTS") > strings.Index(ls, "ORDERS") {
		t.Errorf("ls sorts by size, smallest first:\n%s", ls)
	}
	if got := l.must("stream ls --names").out; got != "EVENTS\nORDERS\n" {
		t.Errorf("--names: %q", got)
	}
	if got := l.must("stream ls -j").out; got != "[\n  \"EVENTS\",\n  \"ORDERS\"\n]\n" {
		t.Errorf("--json: %q", got)
	}
	wantLines(t, "ls --subject", l.must("stream ls --subject orders.new").out, "Streams matching orders.new", "ORDERS")
	rep := l.must("stream report").out
	wantLines(t, "report", rep, "Obtaining Stream stats\n\n", "Stream Report", "│ Stream │ Storage │ Placement │ Consumers │ Messages │ Bytes │ Lost │ Deleted │ API Level │ Replicas │",
		"│ ORDERS │ File    │           │ 0         │ 6        │ "+humanize.IBytes(orders.State.Bytes))
	// The streams behind KV buckets show with -a only, as in the real CLI.
	l.must("kv add CONFIG")
	if strings.Contains(l.must("stream ls").out, "KV_CONFIG") || !strings.Contains(l.must("stream ls -a").out, "KV_CONFIG") || !strings.Contains(l.must("stream -a ls").out, "KV_CONFIG") {
		t.Error("ls shows KV_CONFIG without -a, or hides it with -a")
	}
	l.fails("stream info", "EVENTS, ORDERS (")
}

func TestStreamSubjectsGetAndHeaders(t *testing.T) {
	l := newLab(t)
	fill(t, l)
	subj := l.must("stream subjects ORDERS").out
	wantLines(t, "subjects", subj, "3 Subjects in stream ORDERS", "│ orders.shipped │ 1     │ orders.cancelled │ 2     │ orders.new │ 3     │")
	if got := l.must("stream subjects ORDERS --names --sort name").out; got != "orders.cancelled\norders.new\norders.shipped\n" {
		t.Errorf("--names --sort name: %q", got)
	}
	if got := l.must("stream subjects ORDERS orders.new").out; !strings.Contains(got, "1 Subjects in stream ORDERS") {
		t.Errorf("filter: %s", got)
	}
	if got := l.must("stream subjects ORDERS nothing.here").out; got != "No subjects found matching nothing.here\n" {
		t.Errorf("no match: %q", got)
	}

	get := l.must("stream get ORDERS 6").out
	if !strings.HasPrefix(get, "Item: ORDERS#6 received ") || !strings.Contains(get, " on Subject orders.shipped\n\nHeaders:\n  Nats-Msg-Id: ship-1\n\nshipped 1\n\n\n") {
		t.Errorf("get:\n%q", get)
	}
	wantLines(t, "get -S", l.must("stream get ORDERS -S orders.new").out, "Item: ORDERS#3 ", "on Subject orders.new\n\n{\"id\":3}\n")
	var msg struct {
		Subject string
		Seq     uint64
		Data    []byte
	}
	if err := json.Unmarshal([]byte(l.must("stream get ORDERS 1 --json").out), &msg); err != nil || msg.Seq != 1 || string(msg.Data) != `{"id":1}` {
		t.Errorf("--json: %+v %v", msg, err)
	}
	l.fails("stream get ORDERS 99", "stream ORDERS has no message 99", "it holds 1 to 6")
	l.fails("stream get ORDERS -S orders.lost", "no message on subject orders.lost")
	l.fails("stream get ORDERS", "needs a message sequence or --last-for")
	l.fails("stream get ORDERS 0", "sequences start at 1")
}

func TestStreamRmmPurgeRmNeedForceInScripts(t *testing.T) {
	l := newLab(t)
	fill(t, l)
	l.fails("stream rmm ORDERS 2", "--force", "stream rmm ORDERS 2 --force")
	l.fails("stream purge ORDERS", "--force", "stream purge ORDERS --force")
	l.fails("stream rm ORDERS", "--force", "stream rm ORDERS --force")
	l.fails("stream edit ORDERS --max-msgs 5", "--force")
	if info := streamInfo(t, l, "ORDERS"); info.State.Msgs != 6 || info.Config.MaxMsgs != -1 {
		t.Fatalf("a refused command changed the stream: %+v", info.State)
	}

	l.must("stream rmm ORDERS 2 -f")
	wantLines(t, "after rmm", l.must("stream info ORDERS").out, "Messages: 5\n", "Deleted Messages: 1\n")
	l.fails("stream rmm ORDERS 2 -f", "stream ORDERS has no message 2")

	r := l.must("stream purge ORDERS --subject orders.new -f")
	wantLines(t, "purge subject", r.out, "Purged 2 messages from ORDERS\n\nState for Stream ORDERS created ", "Messages: 3\n")
	r = l.must("stream purge ORDERS -f")
	wantLines(t, "purge", r.out, "Purged 3 messages from ORDERS\n\n", "Messages: 0\n",
		"First Sequence: 7 (none stored: the next message gets 7)\n", "Last Sequence: 6 @ ")
	if strings.HasSuffix(r.out, "\n\n") {
		t.Errorf("purge output ends with a blank line, the real CLI's does not")
	}
	l.must("pub orders.new again -J")
	wantLines(t, "after purge and publish", l.must("stream info ORDERS").out, "First Sequence: 7 @ ", "Last Sequence: 7 @ ")

	r = l.must("stream rm ORDERS -f")
	if r.out != "" || r.err != "" {
		t.Errorf("rm prints nothing, as the real CLI: %q %q", r.out, r.err)
	}
	if got := l.must("stream ls -n").out; got != "EVENTS\n" {
		t.Errorf("after rm: %q", got)
	}
}

// In the TUI the session asks; the question is the real CLI's.
func TestStreamConfirmAsksInTheTUI(t *testing.T) {
	srv := brokertest.Start(t)
	var mu sync.Mutex
	var asked []string
	answer := false
	s := command.NewSession(srv, command.WithTimeout(2*time.Second), command.WithConfirm(func(q string) bool {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, q)
		return answer
	}))
	t.Cleanup(s.Close)
	l := &lab{t: t, srv: srv, s: s}
	fill(t, l)
	l.must("stream rm EVENTS")
	l.must("stream purge ORDERS")
	if n := streamInfo(t, l, "ORDERS").State.Msgs; n != 6 {
		t.Errorf("declined purge removed messages: %d left", n)
	}
	streamInfo(t, l, "EVENTS") // still there
	answer = true
	l.must("stream rm EVENTS")
	want := []string{"Really delete Stream EVENTS", "Really purge Stream ORDERS", "Really delete Stream EVENTS"}
	if strings.Join(asked, "|") != strings.Join(want, "|") {
		t.Errorf("asked %q, want %q", asked, want)
	}
	if got := l.must("stream ls -n").out; got != "ORDERS\n" {
		t.Errorf("after rm: %q", got)
	}
}

func TestStreamViewPagesEverythingAndLeavesNoConsumer(t *testing.T) {
	l := newLab(t)
	l.must(`stream add ORDERS --subjects 'orders.*' --defaults`)
	l.must(`pub orders.new 'order {{Count}}' --count 30 -J`)
	l.must(`pub orders.shipped '' -H Nats-Msg-Id:ship-1 -J`)
	r := l.must("stream view ORDERS")
	for i := 1; i <= 30; i++ {
		wantLines(t, "view", r.out, fmt.Sprintf("[%d] Subject: orders.new Received: ", i), fmt.Sprintf("\norder %d\n\n\n", i))
	}
	wantLines(t, "view", r.out, "[31] Subject: orders.shipped Received: ", "\n\n  Nats-Msg-Id: ship-1\nnil body\n\n\n")
	if !strings.HasSuffix(strings.TrimSpace(r.err), "Reached apparent end of data") {
		t.Errorf("stderr: %q", r.err)
	}
	if n := streamInfo(t, l, "ORDERS").State.Consumers; n != 0 {
		t.Fatalf("stream view left %d consumers behind", n)
	}
	wantLines(t, "--subject", l.must("stream view ORDERS --subject orders.shipped").out, "[31] Subject: orders.shipped")
	if strings.Contains(l.must("stream view ORDERS --subject orders.shipped").out, "[1]") {
		t.Error("--subject did not filter")
	}
	byID := l.must("stream view ORDERS --id 29").out
	if strings.Contains(byID, "[28]") || !strings.Contains(byID, "[29]") {
		t.Errorf("--id 29:\n%s", byID)
	}
	if got := l.must("stream view ORDERS --id 30 --raw").out; got != "order 30\n\n" {
		t.Errorf("--raw: %q", got)
	}
	if got := l.must("stream view ORDERS --since 1h").out; !strings.Contains(got, "[1] ") {
		t.Errorf("--since 1h shows nothing")
	}
	r = l.must("stream view ORDERS 30")
	wantLines(t, "page 30", r.err, "Page size is limited to 25")
	l.fails("stream view ORDERS 0", "page size")
	l.fails("stream view ORDERS --since soon", "--since")

	// Interest and work-queue streams can be viewed too (the real CLI
	// refuses unless direct get is on).
	l.must(`stream add JOBS --subjects 'jobs.>' --retention work --no-allow-direct --defaults`)
	l.must(`pub jobs.a 'job' -J`)
	wantLines(t, "work queue", l.must("stream view JOBS").out, "[1] Subject: jobs.a")
	if n := streamInfo(t, l, "JOBS").State.Consumers; n != 0 {
		t.Fatalf("stream view left %d consumers on a work queue", n)
	}

	// In the TUI it asks before each next page; "no" stops.
	srv := l.srv
	pages := 0
	s := command.NewSession(srv, command.WithConfirm(func(q string) bool {
		if q != "Next Page?" {
			t.Errorf("asked %q", q)
		}
		pages++
		return pages < 2
	}))
	t.Cleanup(s.Close)
	var out strings.Builder
	if err := s.Run(context.Background(), "stream view ORDERS 10", &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "[20] ") || strings.Contains(out.String(), "[21] ") || pages != 2 {
		t.Errorf("paging: asked %d times, output ends %q", pages, out.String()[max(0, out.Len()-80):])
	}
}

func TestStreamEdit(t *testing.T) {
	l := newLab(t)
	fill(t, l)
	r := l.must("stream edit ORDERS --max-msgs 4 --description 'Orders, newest 4' --force")
	wantLines(t, "edit", r.out, "Differences (-old +new):\n", "MaxMsgs:", "Stream ORDERS was updated\n\n", "Maximum Messages: 4\n", "Description: Orders, newest 4", "Messages: 4\n")
	if strings.Contains(r.out, "Metadata") {
		t.Errorf("the diff shows server metadata it did not change:\n%s", r.out)
	}
	if c := streamInfo(t, l, "ORDERS").Config; c.MaxMsgs != 4 || c.Description != "Orders, newest 4" {
		t.Errorf("config %+v", c)
	}
	if got := l.must("stream edit ORDERS --max-msgs 4 -f").out; got != "No difference in configuration\n" {
		t.Errorf("no change: %q", got)
	}
	r = l.must("stream edit ORDERS --max-age 1h --dry-run")
	if !strings.Contains(r.out, "MaxAge:") || strings.Contains(r.out, "was updated") || streamInfo(t, l, "ORDERS").Config.MaxAge != 0 {
		t.Errorf("--dry-run:\n%s", r.out)
	}
	l.fails("stream edit ORDERS --subjects 'events.x' -f", "EVENTS already captures events.>")
	l.fails("stream edit ORDERS -i", "no editor")
}

// BenchmarkStreamInfo is one stream info, in process: parse, one request
// to the server, render.
func BenchmarkStreamInfo(b *testing.B) {
	srv := brokertest.Start(b)
	s := command.NewSession(srv)
	b.Cleanup(s.Close)
	ctx := context.Background()
	for _, line := range []string{`stream add ORDERS --subjects 'orders.*' --defaults`, `pub orders.new x --count 10 -J`} {
		if err := s.Run(ctx, line, io.Discard, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.Run(ctx, "stream info ORDERS", io.Discard, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
