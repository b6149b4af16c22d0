package command

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker"
)

// When a JetStream publish gets no acknowledgement, the real CLI prints
// what nats.go said ("no responders available for request", a timeout)
// and stops. In a cluster that usually means the stream that captures the
// subject has no leader: one is being elected, or too few of its replicas
// run to elect one (no quorum). The lab says which, from the nodes
// themselves when it runs the cluster, else from JetStream's own answers;
// and how many of the messages were stored before.

// diagnoseTimeout bounds each question asked to explain a failure: the
// publish itself has already waited its timeout.
const diagnoseTimeout = 2 * time.Second

// streamTrouble says why the stream that captures subject could not store
// a message, when the lab can tell. ok is false when no stream captures
// the subject (JetStream said so) or the stream looks well.
func (c *Call) streamTrouble(subject string) (why string, ok bool) {
	if cl := c.S.dep.Cluster(); cl != nil {
		if name := capturedBy(cl, subject); name != "" {
			return clusterStreamTrouble(cl, name)
		}
	}
	js, err := c.JS()
	if err != nil {
		return "", false
	}
	ctx, cancel := context.WithTimeout(c.Ctx, min(c.timeout, diagnoseTimeout))
	defer cancel()
	name, err := js.StreamNameBySubject(ctx, subject)
	switch {
	case errors.Is(err, jetstream.ErrStreamNotFound):
		return "", false
	case errors.Is(err, nats.ErrNoResponders):
		// Nobody serves the JetStream API: JetStream is off. An election
		// or a lost quorum leaves it served, and the question times out.
		return c.jetStreamOffNote(), true
	case errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount):
		return "this account has no JetStream, so no stream stores what it publishes: a server with accounts enables it account by account (jetstream: enabled in the account's configuration, or JetStream limits in its JWT)", true
	case err != nil && c.refusedPublish("$JS.API.STREAM.NAMES"):
		return fmt.Sprintf("no stream stored it, and this user may not ask JetStream which stream captures %q (the server refuses it the publish to $JS.API.STREAM.NAMES), so the lab cannot tell why", subject), true
	case err != nil:
		return fmt.Sprintf("JetStream does not answer which stream captures %q (%v): its servers may be electing a meta leader, or too few of them run for a quorum", subject, err), true
	}
	if t, ok := broker.StreamTrouble(c.S.dep.Log(), name, "restart the server (restart)"); ok {
		return t.Line, true // a write error, a full disk: it stays so until a restart
	}
	if cl := c.S.dep.Cluster(); cl != nil {
		// Known to JetStream, but no running node holds a copy.
		return clusterStreamTrouble(cl, name)
	}
	s, err := js.Stream(ctx, name)
	if err != nil {
		return fmt.Sprintf("stream %s does not answer (%v): its leader may be being elected, or too few of its replicas run for a quorum", name, err), true
	}
	ci := s.CachedInfo().Cluster
	if ci == nil || len(ci.Replicas) == 0 && ci.Leader != "" {
		return "", false // one server, answering: nothing the lab can add
	}
	replicas := len(ci.Replicas) + 1
	up := 0
	if ci.Leader != "" {
		up++
	}
	for _, p := range ci.Replicas {
		if !p.Offline {
			up++
		}
	}
	return quorumNote(name, replicas, up, ci.Leader), true
}

// errCodeClusterUnavailable is JetStream's "system temporarily
// unavailable": a cluster whose meta group has no leader, so no stream,
// consumer or bucket can be made or changed.
const errCodeClusterUnavailable = 10008

// errCodeConsumerOffline is JetStream's "consumer is offline": every copy
// of the consumer is on a server that is down.
const errCodeConsumerOffline = 10119

// noMetaLeader is err, JetStream's "temporarily unavailable" as the real
// CLI prints it, with the lab's note of why: from the lab's own nodes when
// it runs the cluster.
func (c *Call) noMetaLeader(err error) error {
	cl := c.S.dep.Cluster()
	if cl == nil {
		return explain(err, "the JetStream cluster has no meta leader right now (it places streams, consumers and buckets): one is being elected, or too few servers run for a quorum; try again in a moment")
	}
	nodes := cl.Nodes()
	up := runningNodes(nodes)
	if quorum := len(nodes)/2 + 1; up < quorum {
		return explain(err, "the cluster's meta group, which places streams, consumers and buckets, has no leader: %d of its %d nodes run, and it needs %d to elect one (node start starts those that are down)", up, len(nodes), quorum)
	}
	return explain(err, "the cluster's meta group, which places streams, consumers and buckets, is electing a leader: try again in a moment")
}

// runningNodes counts the nodes that run.
func runningNodes(nodes []broker.NodeStatus) int {
	up := 0
	for _, n := range nodes {
		if n.Running {
			up++
		}
	}
	return up
}

// errCodeNoPeers is JetStream's "no suitable peers for placement": too
// few servers run (or match) to hold every replica asked for.
const errCodeNoPeers = 10005

// noPeers is err, JetStream's "no suitable peers" as the real CLI prints
// it, with the lab's note where its own cluster has nodes down.
func (c *Call) noPeers(err error) error {
	cl := c.S.dep.Cluster()
	if cl == nil {
		return err
	}
	nodes := cl.Nodes()
	up := runningNodes(nodes)
	if up == len(nodes) {
		return err
	}
	if up < len(nodes)/2+1 {
		return explain(err, "each replica needs a running node of its own, and %d of the cluster's %d nodes run: node start starts those that are down, or ask for fewer --replicas", up, len(nodes))
	}
	// With a majority up the meta leader still places a replica on a
	// stopped node it had a report from (the copy catches up when the
	// node returns); it refuses one it never heard from, as a leader
	// elected just after the cluster started may not have.
	var down []string
	for _, n := range nodes {
		if !n.Running {
			down = append(down, n.Name)
		}
	}
	return explain(err, "the meta leader, which places replicas, had no report from %s before it stopped: node start starts it, then try again, or ask for fewer --replicas", joinAnd(down))
}

// capturedBy is the stream that captures subject, as the cluster's running
// nodes hold it, or "".
func capturedBy(cl broker.Cluster, subject string) string {
	for _, n := range cl.Nodes() {
		if !n.Running {
			continue
		}
		for _, r := range cl.Copies(n.Name) {
			for _, f := range r.Subjects {
				if server.SubjectMatchesFilter(subject, f) {
					return r.Stream
				}
			}
		}
	}
	return ""
}

// clusterStreamTrouble reads a stream's state from the lab's own nodes.
func clusterStreamTrouble(cl broker.Cluster, stream string) (string, bool) {
	replicas, up, leader := 0, 0, ""
	var stopped []string
	for _, r := range cl.Replicas(stream) {
		switch {
		case r.Stream == "" && !cl.NodeUp(r.Node):
			stopped = append(stopped, r.Node)
		case r.Stream != "":
			up++
			replicas = max(replicas, r.R)
			if r.Leader {
				leader = r.Node
			}
		}
	}
	if replicas == 0 {
		return fmt.Sprintf("stream %s: none of the servers that hold it is running: start them again (node start %s)", stream, strings.Join(stopped, ", node start ")), true
	}
	why := quorumNote(stream, replicas, up, leader)
	if up < replicas/2+1 && len(stopped) > 0 {
		why += fmt.Sprintf(" (node start %s)", stopped[0])
	}
	return why, true
}

// quorumNote says what a stream of replicas copies, up of them running,
// can do now: without a leader and without a quorum, nothing; without a
// leader but with a quorum, it is electing one.
func quorumNote(stream string, replicas, up int, leader string) string {
	quorum := replicas/2 + 1
	switch {
	case up < quorum:
		// A leader that lost its quorum still calls itself leader for a
		// while; it can store nothing.
		return fmt.Sprintf("stream %s has no quorum: %d of its %d replicas run, and it needs %d to elect a leader, so nothing can be stored until another comes back", stream, up, replicas, quorum)
	case leader != "":
		return fmt.Sprintf("stream %s had no leader when this was published (an election: %s leads it now, with %d of its %d replicas running): publish again", stream, leader, up, replicas)
	default:
		return fmt.Sprintf("stream %s has no leader right now: %d of its %d replicas run, enough to elect one, and an election is under way: publish again in a moment", stream, up, replicas)
	}
}

// inFlight is what is known of messages sent when a publish failed.
type inFlight int

const (
	noneInFlight   inFlight = iota // the failure says the message reached no stream
	oneInFlight                    // the failed message's acknowledgement never came
	windowInFlight                 // asynchronous: a window of messages was on its way
)

// storedSoFar notes how many of total messages were stored (acknowledged)
// before a publish failed; nothing for a single message.
func storedSoFar(err error, stored, total int, stream string, first, last uint64, sent inFlight) error {
	if total <= 1 || err == nil {
		return err
	}
	var what string
	switch {
	case stored == 0:
		what = fmt.Sprintf("none of the %d messages was acknowledged as stored", total)
	case first == last:
		what = fmt.Sprintf("%d of the %d messages was stored (in %s, sequence %d)", stored, total, stream, first)
	default:
		what = fmt.Sprintf("%d of the %d messages were stored (in %s, sequences %d to %d)", stored, total, stream, first, last)
	}
	switch sent {
	case oneInFlight:
		what += " before this one, whose acknowledgement never came (it may have been stored too)"
	case windowInFlight:
		what += " before a publish failed; those still on their way then may have been stored too"
	default:
		what += " before this one failed"
	}
	return explain(err, "%s; the rest were not published", what)
}

// sentWhenFailed says what a failed synchronous publish leaves unknown.
func sentWhenFailed(err error) inFlight {
	if errors.Is(err, nats.ErrNoResponders) || errors.Is(err, jetstream.ErrNoStreamResponse) {
		return noneInFlight
	}
	return oneInFlight
}
