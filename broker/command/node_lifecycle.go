package command

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"natslab/broker"
	"natslab/broker/text"
)

// Stopping and starting one node, and telling what followed: the elections
// for what it led, the streams it leaves without a copy, the catch-up when
// it returns. Each wait is for the condition, bounded by electionWait.

// electionWait bounds how long the verbs wait for an election or a
// catch-up. A graceful stop hands leadership over in milliseconds; only
// a group that must wait out Raft's election timeout takes seconds.
const electionWait = 10 * time.Second

// nodeStopLeader stops whichever node leads stream now.
func nodeStopLeader(c *Call, srv broker.Cluster, stream string) error {
	leader := srv.StreamLeader(stream)
	if leader == "" {
		// Let the JetStream API say whether the stream exists at all, with
		// its usual "not found, streams are …" error.
		if _, err := c.stream(stream); err != nil {
			return err
		}
		return fmt.Errorf("stream %s has no leader right now (its nodes are stopped, or an election is going on): see node ls", stream)
	}
	return nodeStop(c, srv, leader, stream)
}

// nodeStop stops one node and reports the elections that follow. why is
// the stream it was stopped for leading, or "".
func nodeStop(c *Call, srv broker.Cluster, name, why string) error {
	var before broker.NodeStatus
	for _, n := range srv.Nodes() {
		if n.Name == name {
			before = n
		}
	}
	var solo []string // R1 streams with their one copy on this node
	for _, r := range nodeCopies(srv, name) {
		if r.R <= 1 {
			solo = append(solo, r.Stream)
		}
	}
	soloConsumers := srv.SoloConsumers(name)
	led := leadership(before)
	switch {
	case why != "":
		also := ""
		if rest := without(led, why); len(rest) > 0 {
			also = " (it also leads " + joinAnd(rest) + ")"
		}
		c.Statusf("Stopping %s, the leader of %s%s", name, why, also)
	case len(led) > 0:
		c.Statusf("Stopping %s, which leads %s", name, joinAnd(led))
	default:
		c.Statusf("Stopping %s", name)
	}
	var elections []election
	if before.MetaLeader {
		elections = append(elections, election{what: "the meta group", leader: srv.MetaLeader})
	}
	for _, st := range before.Leads {
		if contains(solo, st) {
			continue
		}
		// A stream's election counts once publishes reach the new leader.
		elections = append(elections, election{what: st, leader: func() string {
			if !srv.Reachable(st) {
				return ""
			}
			return srv.StreamLeader(st)
		}})
	}
	start := c.Now()
	if err := srv.StopNode(name); err != nil {
		return err
	}
	down := c.Now()
	c.Statusf("%s stopped in %s", name, humanDuration(down.Sub(start).Round(time.Millisecond)))
	// A stopping server hands what it leads over before it shuts down, so
	// an election may be over by the time the node is down.
	for i := range elections {
		elections[i].early = elections[i].leader()
	}
	c.waitAttached(srv)

	up := 0
	for _, n := range srv.Nodes() {
		if n.Running {
			up++
		}
	}
	if up*2 <= broker.ClusterSize {
		c.Statusf("Only %d of %d nodes run: without a majority no leader can be elected, so replicated streams take no messages until a node is back (node start %s)", up, broker.ClusterSize, name)
		return nil
	}
	for _, e := range elections {
		reportElection(c, e, name, down)
	}
	for _, st := range solo {
		c.Statusf("%s has its only copy on %s (1 replica): it is unavailable until node start %s", st, name, name)
	}
	for _, cons := range soloConsumers {
		c.Statusf("Consumer %s has its only copy on %s (1 replica): it is offline until node start %s", cons, name, name)
	}
	return nil
}

// election is a group the stopped node led: what it is, who leads it now
// ("" while nobody does), and who did the moment the node was down.
type election struct {
	what   string
	leader func() string
	early  string
}

// reportElection waits for e to name a leader, and says who was elected
// and when: while node was stopping, or how long after it was down.
func reportElection(c *Call, e election, node string, down time.Time) {
	if e.early != "" {
		c.Statusf("%s is the new leader of %s, elected while %s was stopping", e.early, e.what, node)
		return
	}
	var who string
	if broker.WaitFor(electionWait, func() bool { who = e.leader(); return who != "" }) {
		c.Statusf("%s is the new leader of %s, elected %s after the stop", who, e.what, humanDuration(c.Now().Sub(down).Round(time.Millisecond)))
		return
	}
	c.Statusf("%s has no leader yet after %s: an election is going on (see node ls)", e.what, humanDuration(electionWait))
}

// nodeStart starts a node and reports it catching up on each stream it
// holds a copy of.
func nodeStart(c *Call, srv broker.Cluster, name string) error {
	start := time.Now()
	if err := srv.StartNode(name); err != nil {
		return err
	}
	meta := srv.MetaLeader()
	if meta != "" && meta != name {
		c.Statusf("%s started in %s and rejoined the cluster; %s leads the meta group", name, humanDuration(time.Since(start).Round(time.Millisecond)), meta)
	} else {
		c.Statusf("%s started in %s", name, humanDuration(time.Since(start).Round(time.Millisecond)))
	}
	copies := nodeCopies(srv, name)
	sort.Slice(copies, func(i, j int) bool { return copies[i].Stream < copies[j].Stream })
	for _, r := range copies {
		if r.R <= 1 {
			if broker.WaitFor(electionWait, func() bool { return srv.Reachable(r.Stream) }) {
				c.Statusf("%s is available again: its only copy is on %s, with %s", r.Stream, name, text.Count(r.Msgs, "message", "messages"))
			} else {
				c.Statusf("%s is back on %s, but publishes do not reach it yet (see node ls)", r.Stream, name)
			}
			continue
		}
		reportCatchUp(c, srv, name, r.Stream, start)
	}
	c.waitAttached(srv)
	return nil
}

// reportCatchUp waits until the node's copy of stream holds what the
// leader's does and the leader calls it current, as stream info will.
func reportCatchUp(c *Call, srv broker.Cluster, name, stream string, start time.Time) {
	var mine, lead broker.Replica
	caughtUp := broker.WaitFor(electionWait, func() bool {
		mine, lead = broker.Replica{}, broker.Replica{}
		for _, r := range srv.Replicas(stream) {
			if r.Node == name {
				mine = r
			}
			if r.Leader {
				lead = r
			}
		}
		return lead.Stream != "" && mine.Stream != "" && mine.LastSeq >= lead.LastSeq && mine.Msgs == lead.Msgs && mine.Current
	})
	if caughtUp {
		c.Statusf("%s caught up on %s in %s: %s, last sequence %d", name, stream, humanDuration(time.Since(start).Round(time.Millisecond)), text.Count(mine.Msgs, "message", "messages"), mine.LastSeq)
		return
	}
	if lead.Stream == "" {
		c.Statusf("%s has no leader yet, so %s cannot catch up on it (see node ls)", stream, name)
		return
	}
	if mine.Stream != "" && mine.LastSeq >= lead.LastSeq {
		c.Statusf("%s holds every message of %s, but its leader does not count it current yet (see stream info)", name, stream)
		return
	}
	c.Statusf("%s is still catching up on %s: last sequence %d of %d", name, stream, mine.LastSeq, lead.LastSeq)
}

// nodeCopies are the stream copies a node holds (none while it is stopped).
func nodeCopies(srv broker.Cluster, name string) []broker.Replica { return srv.Copies(name) }

// leadership lists what a node leads: the meta group, then its streams.
func leadership(n broker.NodeStatus) []string {
	var parts []string
	if n.MetaLeader {
		parts = append(parts, "the meta group")
	}
	return append(parts, n.Leads...)
}

// waitAttached waits until the session's connection is on a running node,
// so the next line does not go out on the connection to a stopped one.
func (c *Call) waitAttached(srv broker.Cluster) {
	c.S.connMu.Lock()
	nc := c.S.nc
	c.S.connMu.Unlock()
	if nc == nil || nc.IsClosed() {
		return
	}
	broker.WaitFor(c.timeout, func() bool { return srv.Attached(nc) })
}

func joinAnd(parts []string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

func without(list []string, s string) []string {
	var out []string
	for _, x := range list {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
