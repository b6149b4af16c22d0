package command_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/jsm.go/api"
	"github.com/nats-io/nats.go"

	"natslab/broker"
	"natslab/broker/brokertest"
	"natslab/broker/command"
)

// answerJetStreamAPI answers the JetStream API on a server without
// JetStream with the given replies, by API subject after $JS.API., and
// "not found" to anything else.
func answerJetStreamAPI(t *testing.T, nc *nats.Conn, replies map[string]any) {
	t.Helper()
	sub, err := nc.Subscribe("$JS.API.>", func(m *nats.Msg) {
		r, ok := replies[strings.TrimPrefix(m.Subject, "$JS.API.")]
		if !ok {
			t.Logf("unanswered: %s %s", m.Subject, m.Data)
			r = map[string]any{"error": map[string]any{"code": 404, "err_code": 10059, "description": "stream not found"}}
		}
		j, err := json.Marshal(r)
		if err != nil {
			t.Error(err)
			return
		}
		_ = m.Respond(j)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sub.Unsubscribe() })
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
}

// A stream moving between clusters, placements and retentions, its
// migration waiting on a peer that is offline: stream info's Cluster
// Migration Status block, every row of it, as the real CLI renders the
// same answer. (A live cluster shows the block for the second or so a
// replica change takes.)
func TestStreamInfoShowsTheMigrationAsTheRealCLI(t *testing.T) {
	srv := brokertest.Start(t, brokertest.WithoutJetStream())
	nc := brokertest.Connect(t, srv, "api")
	now := time.Now().UTC()
	info := cannedStream("GROW", 3, now)
	info.Config.Retention = api.WorkQueuePolicy
	info.Config.Placement = &api.Placement{Tags: []string{"ssd"}, Preferred: "n2"}
	info.Cluster = &api.ClusterInfo{
		Name: "east", RaftGroup: "S-R3F-abc", Leader: "n1",
		Replicas: []*api.PeerInfo{{Name: "n2", Current: true, Active: time.Second, Peer: "p2"}},
		Desired: &api.DesiredClusterInfo{
			Created: now.Add(-3 * time.Second), Name: "west",
			Replicas: []*api.DesiredPeerInfo{{Name: "n3", Offline: true, Peer: "p3"}, {Name: "n1", Peer: "p1"}, {Name: "n2", Peer: "p2"}},
			Origin:   &api.DesiredClusterInfoOrigin{Replicas: 1, Placement: &api.Placement{Tags: []string{"hdd", "old"}}, Retention: ptr(api.LimitsPolicy)},
			Status:   &api.DesiredClusterInfoStatus{Description: "waiting for catchup to add peer", Type: api.MigrationStatusCatchup, Err: "n3 is offline"},
		},
	}
	answerJetStreamAPI(t, nc, map[string]any{
		"STREAM.INFO.GROW": api.JSApiStreamInfoResponse{JSApiResponse: api.JSApiResponse{Type: "io.nats.jetstream.api.v1.stream_info_response"}, StreamInfo: &info},
	})
	l := newLabOn(t, srv)
	lab := l.must("stream info GROW")
	real := brokertest.RunRealCLI(t, srv.ClientURL(), "stream", "info", "GROW")
	if real.ExitCode != 0 {
		t.Fatalf("real CLI: %s", real.Stderr)
	}
	if !strings.Contains(real.Stdout, "Cluster Migration Status:") {
		t.Fatalf("the real CLI shows no migration:\n%s", real.Stdout)
	}
	streamCompare(t, "stream info GROW", "stdout", lab.out, real.Stdout)
}

// A consumer moving to three replicas, its desired peers chosen, one of
// them offline: consumer info's Cluster Migration Status block as the real
// CLI renders the same answer.
func TestConsumerInfoShowsTheMigrationAsTheRealCLI(t *testing.T) {
	srv := brokertest.Start(t, brokertest.WithoutJetStream())
	nc := brokertest.Connect(t, srv, "api")
	now := time.Now().UTC()
	stream := cannedStream("GROW", 3, now)
	consumer := api.ConsumerInfo{
		Stream: "GROW", Name: "C", Created: now.Add(-time.Minute), TimeStamp: now,
		Config: api.ConsumerConfig{Durable: "C", Name: "C", AckPolicy: api.AckExplicit, AckWait: 30 * time.Second, MaxDeliver: -1, MaxAckPending: 1000, MaxWaiting: 512, Replicas: 3},
		Cluster: &api.ClusterInfo{
			Name: "east", RaftGroup: "C-R3F-abc", Leader: "n1",
			Replicas: []*api.PeerInfo{{Name: "n2", Current: true, Active: time.Second, Peer: "p2"}},
			Desired: &api.DesiredClusterInfo{
				Created: now.Add(-2 * time.Second), Name: "east",
				Replicas: []*api.DesiredPeerInfo{{Name: "n2", Peer: "p2"}, {Name: "n3", Offline: true, Peer: "p3"}, {Name: "n1", Peer: "p1"}},
				Origin:   &api.DesiredClusterInfoOrigin{Replicas: 1},
				Status:   &api.DesiredClusterInfoStatus{Description: "waiting for quorum to add peer", Type: api.MigrationStatusQuorum},
			},
		},
	}
	answerJetStreamAPI(t, nc, map[string]any{
		"STREAM.INFO.GROW":     api.JSApiStreamInfoResponse{JSApiResponse: api.JSApiResponse{Type: "io.nats.jetstream.api.v1.stream_info_response"}, StreamInfo: &stream},
		"CONSUMER.INFO.GROW.C": api.JSApiConsumerInfoResponse{JSApiResponse: api.JSApiResponse{Type: "io.nats.jetstream.api.v1.consumer_info_response"}, ConsumerInfo: &consumer},
	})
	l := newLabOn(t, srv)
	lab := l.must("consumer info GROW C")
	real := brokertest.RunRealCLI(t, srv.ClientURL(), "consumer", "info", "GROW", "C")
	if real.ExitCode != 0 {
		t.Fatalf("real CLI: %s", real.Stderr)
	}
	if !strings.Contains(real.Stdout, "Cluster Migration Status:") {
		t.Fatalf("the real CLI shows no migration:\n%s", real.Stdout)
	}
	streamCompare(t, "consumer info GROW C", "stdout", lab.out, real.Stdout)
}

func ptr[T any](v T) *T { return &v }

// cannedStream is a file stream's information with the server's defaults,
// as an answer of the test's own to STREAM.INFO gives it.
func cannedStream(name string, replicas int, now time.Time) api.StreamInfo {
	return api.StreamInfo{
		Config: api.StreamConfig{
			Name: name, Subjects: []string{strings.ToLower(name)}, Retention: api.LimitsPolicy, MaxConsumers: -1, MaxMsgs: -1, MaxBytes: -1,
			MaxMsgsPer: -1, MaxMsgSize: -1, Storage: api.FileStorage, Replicas: replicas, Duplicates: 2 * time.Minute,
		},
		Created: now.Add(-time.Minute), TimeStamp: now,
	}
}

// newLabOn is newLab on a server of the test's own.
func newLabOn(t *testing.T, srv *broker.Server) *lab {
	t.Helper()
	l := &lab{t: t, srv: srv, changed: make(chan struct{}, 1)}
	l.s = command.NewSession(srv, command.WithTimeout(2*time.Second), command.WithObserver(func(command.Event) { l.poke() }))
	t.Cleanup(l.s.Close)
	return l
}

// Consumers the servers know of but cannot describe (in a cluster, while
// the servers that hold them are stopped), and offline ones: consumer ls
// and consumer report list them after the table, as the real CLI does
// with the same answer.
func TestConsumerListsNameTheInaccessibleAsTheRealCLI(t *testing.T) {
	srv := brokertest.Start(t, brokertest.WithoutJetStream())
	nc := brokertest.Connect(t, srv, "api")
	now := time.Now().UTC()
	stream := cannedStream("GROW", 1, now)
	stream.State = api.StreamState{Msgs: 4, Consumers: 6}
	here := &api.ConsumerInfo{
		Stream: "GROW", Name: "HERE", Created: now.Add(-time.Minute), TimeStamp: now, NumPending: 4,
		Config: api.ConsumerConfig{Durable: "HERE", Name: "HERE", AckPolicy: api.AckExplicit, AckWait: 30 * time.Second, MaxDeliver: -1, MaxAckPending: 1000, MaxWaiting: 512},
	}
	list := api.JSApiConsumerListResponse{
		JSApiResponse:         api.JSApiResponse{Type: "io.nats.jetstream.api.v1.consumer_list_response"},
		JSApiIterableResponse: api.JSApiIterableResponse{Total: 1, Offset: 0, Limit: 256},
		Consumers:             []*api.ConsumerInfo{here},
		Missing:               []string{"GONE5", "GONE1", "GONE3", "GONE2", "GONE4"},
		Offline:               map[string]string{"OLD": "unsupported - required API level 9, current level 5"},
	}
	answerJetStreamAPI(t, nc, map[string]any{
		"STREAM.INFO.GROW":   api.JSApiStreamInfoResponse{JSApiResponse: api.JSApiResponse{Type: "io.nats.jetstream.api.v1.stream_info_response"}, StreamInfo: &stream},
		"CONSUMER.LIST.GROW": list,
		"CONSUMER.NAMES.GROW": api.JSApiConsumerNamesResponse{
			JSApiResponse:         api.JSApiResponse{Type: "io.nats.jetstream.api.v1.consumer_names_response"},
			JSApiIterableResponse: api.JSApiIterableResponse{Total: 7, Offset: 0, Limit: 1024},
			Consumers:             []string{"GONE1", "GONE2", "GONE3", "GONE4", "GONE5", "HERE", "OLD"},
		},
		"CONSUMER.INFO.GROW.HERE": api.JSApiConsumerInfoResponse{JSApiResponse: api.JSApiResponse{Type: "io.nats.jetstream.api.v1.consumer_info_response"}, ConsumerInfo: here},
	})
	l := newLabOn(t, srv)
	for _, line := range []string{"consumer ls GROW", "consumer report GROW"} {
		lab := l.must(line)
		words := strings.Fields(line)
		real := brokertest.RunRealCLI(t, srv.ClientURL(), words...)
		if real.ExitCode != 0 {
			t.Fatalf("%s: real CLI: %s", line, real.Stderr)
		}
		if !strings.Contains(real.Stdout, "Inaccessible Consumers") || !strings.Contains(real.Stdout, "Offline Consumers") {
			t.Fatalf("%s: the real CLI names no missing consumers:\n%s", line, real.Stdout)
		}
		if lab.out != real.Stdout {
			t.Errorf("%s differs from the real CLI's (-real +lab):\n%s", line, brokertest.DiffLines(real.Stdout, lab.out))
		}
	}
}

// Streams the servers know of but cannot describe: stream ls lists them
// after the table in four columns filled column by column, as the real CLI
// does with the same answer.
func TestStreamLsNamesTheInaccessibleAsTheRealCLI(t *testing.T) {
	srv := brokertest.Start(t, brokertest.WithoutJetStream())
	nc := brokertest.Connect(t, srv, "api")
	now := time.Now().UTC()
	hereInfo := cannedStream("HERE", 1, now)
	here := &hereInfo
	answerJetStreamAPI(t, nc, map[string]any{
		"STREAM.LIST": api.JSApiStreamListResponse{
			JSApiResponse:         api.JSApiResponse{Type: "io.nats.jetstream.api.v1.stream_list_response"},
			JSApiIterableResponse: api.JSApiIterableResponse{Total: 1, Offset: 0, Limit: 256},
			Streams:               []*api.StreamInfo{here},
			Missing:               []string{"GONE5", "GONE1", "GONE3", "GONE2", "GONE4"},
		},
	})
	l := newLabOn(t, srv)
	lab := l.must("stream ls")
	real := brokertest.RunRealCLI(t, srv.ClientURL(), "stream", "ls")
	if real.ExitCode != 0 {
		t.Fatalf("real CLI: %s", real.Stderr)
	}
	if !strings.Contains(real.Stdout, "Inaccessible Streams") {
		t.Fatalf("the real CLI names no missing streams:\n%s", real.Stdout)
	}
	if lab.out != real.Stdout {
		t.Errorf("stream ls differs from the real CLI's (-real +lab):\n%s", brokertest.DiffLines(real.Stdout, lab.out))
	}
}
