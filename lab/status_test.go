package lab

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"natslab/broker"
	"natslab/broker/brokertest"
)

func barText(f facts) string { return (&statusBar{f: f}).variants()[0] }

// An external deployment in trouble is not one with JetStream off: while
// the client reconnects the bar says so, and while JetStream cannot answer
// (a cluster without quorum) it says that.
func TestStatusBarTellsReconnectingAndSilenceFromJetStreamOff(t *testing.T) {
	t.Run("no quorum", func(t *testing.T) {
		srv := brokertest.Start(t, brokertest.Clustered())
		src := externalStatus(t, srv.ClientURL())
		cl := srv.Cluster()
		for _, n := range []string{"n2", "n3"} {
			if err := cl.StopNode(n); err != nil {
				t.Fatal(err)
			}
		}
		// The status connection may have been on a stopped node: once it
		// is back on n1, and n1 has noticed that no meta leader is left
		// (a leader that lost its quorum steps down after a while),
		// JetStream is there but cannot answer.
		if !broker.WaitFor(20*time.Second, func() bool { return src.nc != nil && srv.Attached(src.nc) }) {
			t.Fatal("the status connection did not come back")
		}
		if !broker.WaitFor(60*time.Second, func() bool { return cl.MetaLeader() == "" }) {
			t.Fatal("n1 still leads the meta group without a quorum")
		}
		bar := barText(src.read())
		if !strings.Contains(bar, "JetStream not answering") || strings.Contains(bar, "JetStream off") {
			t.Errorf("without quorum the bar says: %s", bar)
		}
	})
	t.Run("reconnecting", func(t *testing.T) {
		srv := brokertest.Start(t)
		src := externalStatus(t, srv.ClientURL())
		srv.Stop()
		if !broker.WaitFor(20*time.Second, func() bool { return src.nc.IsReconnecting() }) {
			t.Fatal("the status connection did not notice")
		}
		bar := barText(src.read())
		if !strings.Contains(bar, "reconnecting…") || strings.Contains(bar, "JetStream off") {
			t.Errorf("while the client reconnects the bar says: %s", bar)
		}
	})
}

// externalStatus is the status bar's source on a deployment dialled at
// url, as natslab --server makes it, checked to show JetStream first.
func externalStatus(t *testing.T, url string) *statsSource {
	t.Helper()
	ext, err := broker.Dial(broker.ExternalOptions{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	src := &statsSource{dep: ext}
	t.Cleanup(src.close)
	if bar := barText(src.read()); !strings.Contains(bar, "JetStream on") {
		t.Fatalf("before: %s", bar)
	}
	return src
}

// However narrow the window, the status bar cuts no number or word short:
// "1…" could be a job, a stream or a connection, and "JS…" says nothing.
// What does not fit goes whole, the jobs (the pane's running row lists
// them) first, the place last.
func TestStatusBarNeverCutsANumberOrAWord(t *testing.T) {
	for _, f := range []facts{
		{running: true, jetstream: true, streams: 1, consumers: 2, conns: 3, jobs: 1},
		{running: true, jetstream: true, streams: 12, consumers: 2, conns: 3, jobs: 11, store: "/tmp/store"},
		{url: "nats://127.0.0.1:4222", running: true, jetstream: true, streams: 1, consumers: 0, conns: 1, jobs: 2},
		{url: "nats://127.0.0.1:44071", running: true, jetstream: true, streams: 1, consumers: 0, conns: 1},
		{url: "nats://127.0.0.1:14222,nats://127.0.0.1:46063,nats://127.0.0.1:38815", running: true, jetstream: true, streams: 2, consumers: 1, conns: 3, jobs: 1,
			nodes: 3, nodesUp: 2, nodeURL: "nats://127.0.0.1:46063"},
	} {
		b := &statusBar{st: DefaultStyles(), f: f}
		whole := map[string]bool{}
		for _, v := range b.variants() {
			whole[v] = true
		}
		for w := 40; w <= 120; w++ {
			b.SetSize(w)
			left := strings.TrimRight(strings.TrimSuffix(ansi.Strip(b.Line()), " ?/f1 keys "), " ")
			if !whole[left] {
				t.Errorf("at %d columns the bar cuts its text short: %q", w, left)
			}
		}
	}
}

// On the lab's cluster the bar counts the nodes up, and where the three
// URLs and the rest do not fit side by side, a running node's URL stands
// for them (the cluster tells a client of the others): the lesson and the
// counts stay in view at 100 columns.
func TestStatusBarOnTheClusterCountsTheNodesAndKeepsTheLesson(t *testing.T) {
	srv := brokertest.Start(t, brokertest.Clustered())
	if err := srv.StopNode("n1"); err != nil {
		t.Fatal(err)
	}
	src := &statsSource{dep: srv}
	f := src.read()
	n2 := srv.Nodes()[1].ClientURL
	if f.nodes != 3 || f.nodesUp != 2 || f.nodeURL != n2 {
		t.Fatalf("with n1 stopped: %d nodes, %d up, URL %q (n2's is %q)", f.nodes, f.nodesUp, f.nodeURL, n2)
	}
	b := &statusBar{st: DefaultStyles(), f: f, lesson: "replicas 3/5"}
	b.SetSize(100)
	if bar := ansi.Strip(b.Line()); !strings.Contains(bar, n2+" │ 2/3 up │ JS on │ 0 str · 0 cons · ") || !strings.Contains(bar, "│ lesson replicas 3/5") {
		t.Errorf("at 100 columns: %s", bar)
	}
	b.SetSize(220)
	if bar := ansi.Strip(b.Line()); !strings.Contains(bar, f.url+" │ 2 of 3 nodes up │ JetStream on │ 0 streams") {
		t.Errorf("at 220 columns: %s", bar)
	}
}

// Where the whole bar does not fit, the store goes before any word is cut
// short: the counts in words matter more than where the store lives.
func TestStatusBarDropsTheStoreBeforeShorteningWords(t *testing.T) {
	b := &statusBar{st: DefaultStyles(), f: facts{
		url: "nats://127.0.0.1:14222,nats://127.0.0.1:46433,nats://127.0.0.1:38815", running: true, jetstream: true,
		streams: 1, consumers: 0, conns: 1, nodes: 3, nodesUp: 3, nodeURL: "nats://127.0.0.1:46433", store: "/tmp/lab",
	}}
	b.SetSize(100)
	bar := ansi.Strip(b.Line())
	if !strings.Contains(bar, "nats://127.0.0.1:46433 │ 3/3 up │ JetStream on │ 1 stream · 0 consumers · 1 connection") || strings.Contains(bar, "store") {
		t.Errorf("at 100 columns: %s", bar)
	}
}
