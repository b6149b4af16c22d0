package replicas

import (
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker"
	"natslab/scenes"
	"natslab/scenes/kit"
	"natslab/scenes/watch"
)

// The driver watches the lab's cluster: it asks each running node, in
// process, which stream copies it holds (last sequence, leader or not), and
// turns what changed since the last look into events for the scene to
// animate. It also publishes for the scene's controls, on its own
// connection, counting what was acknowledged.

// Polling: quick while something is in motion (an election, a catch-up, a
// publish just made), slower when all is settled. A node stopping or
// starting wakes the poller at once through the server's Changed channel.
const (
	busyPoll   = 25 * time.Millisecond
	idlePoll   = 150 * time.Millisecond
	busyLinger = 2 * time.Second // how long after a change polling stays quick
	sampleMax  = 6               // at most this many messages animated per look
)

// Copy is one node's copy of one stream.
type Copy struct {
	Seq    uint64 // the last sequence this copy holds
	Msgs   uint64
	R      int  // the replicas the stream asks for
	Leader bool // this copy leads the stream
	Behind bool // a follower that does not yet hold what the leader does
	Stale  bool // the node is down: this is what it held when last seen
}

// NodeView is one node as the scene shows it.
type NodeView struct {
	Name   string
	Up     bool
	Copies map[string]Copy // by stream name
}

// Snapshot is the cluster as the scene last saw it.
type Snapshot struct {
	Nodes    []NodeView
	Streams  []string // every stream a node holds or held, sorted
	Leaders  map[string]string
	Subjects map[string][]string // what each stream captures, as last seen
	Focus    string              // the stream publish and stop leader act on; "" before any exists

	Published, Acked, Failed uint64 // the scene's own publishes
	Story                    string // the last thing that happened, in words
	StoryAt                  time.Time
}

// Leader is the node leading stream, or "".
func (s Snapshot) Leader(stream string) string { return s.Leaders[stream] }

// Unavailable lists the streams no running node holds.
func (s Snapshot) Unavailable() []string {
	var out []string
	for _, st := range s.Streams {
		live := false
		for _, n := range s.Nodes {
			if _, ok := n.Copies[st]; ok && n.Up {
				live = true
			}
		}
		if !live {
			out = append(out, st)
		}
	}
	return out
}

type driver struct {
	*watch.Life
	dep   broker.Deployment
	srv   broker.Cluster
	feed  *kit.Feed
	clock scenes.Clock
	nc    *nats.Conn
	js    jetstream.JetStream

	kick *watch.Busy // quick looks for busyLinger after a change

	mu     sync.Mutex
	snap   Snapshot
	focus  string              // chosen with the stream control; "" picks one
	rejoin map[string][]string // a node back up → the streams it held, to see it catch up on
}

func startDriver(dep broker.Deployment, feed *kit.Feed, clock scenes.Clock) (*driver, error) {
	life := watch.NewLife()
	nc, err := life.Connect(dep, "natslab scene replicas", nil)
	if err != nil {
		life.End()
		return nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		life.End()
		return nil, err
	}
	d := &driver{Life: life, dep: dep, srv: dep.Cluster(), feed: feed, clock: clock, nc: nc, js: js, kick: watch.NewBusy(), rejoin: map[string][]string{}}
	d.snap = Snapshot{Leaders: map[string]string{}, Subjects: map[string][]string{}}
	d.poll()
	d.Go(d.run)
	return d, nil
}

// Close implements kit.Driver.
func (d *driver) Close() { d.End() }

// poke asks for a look now, and quick looks for a while.
func (d *driver) poke() { d.kick.Poke(busyLinger) }

func (d *driver) run() {
	timer := time.NewTimer(idlePoll)
	defer timer.Stop()
	for {
		changed := d.dep.Changed()
		select {
		case <-d.Ctx.Done():
			return
		case <-changed:
			d.poke()
		case <-d.kick.Kick:
		case <-timer.C:
		}
		d.poll()
		timer.Reset(d.kick.Pace(busyPoll, idlePoll))
	}
}

// Snapshot implements kit.Driver: it never waits on the network.
func (d *driver) Snapshot() Snapshot {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.snap
}

// poll looks at every node and announces what changed.
func (d *driver) poll() {
	d.mu.Lock()
	old := d.snap
	d.mu.Unlock()
	next := Snapshot{Leaders: map[string]string{}, Subjects: map[string][]string{}, Published: old.Published, Acked: old.Acked, Failed: old.Failed, Story: old.Story, StoryAt: old.StoryAt}
	names := map[string]bool{}
	for _, st := range old.Streams {
		names[st] = true
	}
	var events []kit.Event
	var stories []string
	for i, name := range broker.NodeNames {
		nv := NodeView{Name: name, Up: d.srv.NodeUp(name), Copies: map[string]Copy{}}
		var was NodeView
		if i < len(old.Nodes) {
			was = old.Nodes[i]
		}
		if nv.Up {
			for _, r := range d.srv.Copies(name) {
				names[r.Stream] = true
				next.Subjects[r.Stream] = r.Subjects
				nv.Copies[r.Stream] = Copy{Seq: r.LastSeq, Msgs: r.Msgs, R: r.R, Leader: r.Leader}
				if r.Leader {
					next.Leaders[r.Stream] = name
				}
			}
		} else {
			// A stopped node shows what it held when last seen.
			for st, c := range was.Copies {
				c.Stale, c.Leader, c.Behind = true, false, false
				nv.Copies[st] = c
			}
		}
		if was.Name != "" && was.Up != nv.Up {
			if nv.Up {
				events = append(events, kit.Event{Kind: kit.ServerUp, Client: nv.Name})
				stories = append(stories, nv.Name+" is back: catching up")
				var held []string
				for st := range was.Copies {
					held = append(held, st)
				}
				d.rejoin[nv.Name] = held
			} else {
				delete(d.rejoin, nv.Name)
				events = append(events, kit.Event{Kind: kit.ServerDown, Client: nv.Name})
				stories = append(stories, nv.Name+" stopped")
			}
		}
		next.Nodes = append(next.Nodes, nv)
	}
	for st := range names {
		if !d.streamGone(st, next) {
			next.Streams = append(next.Streams, st)
			if _, seen := next.Subjects[st]; !seen {
				next.Subjects[st] = old.Subjects[st]
			}
		}
	}
	sort.Strings(next.Streams)
	markBehind(&next)
	events, stories = diff(old, next, events, stories)
	stories = append(stories, d.caughtUp(next)...)
	d.mu.Lock()
	next.Published, next.Acked, next.Failed = d.snap.Published, d.snap.Acked, d.snap.Failed
	next.Focus = pickFocus(d.focus, next)
	if len(stories) > 0 {
		next.Story, next.StoryAt = stories[len(stories)-1], d.clock.Now()
	}
	for _, e := range events {
		d.feed.Send(e)
	}
	d.snap = next
	if len(events) > 0 {
		d.kick.Linger(busyLinger)
	}
	d.mu.Unlock()
	d.feed.Poke()
}

// caughtUp reports the nodes back up whose copies now hold what their
// leaders do: every stream the node held when it stopped is there again,
// led by someone, and not behind.
func (d *driver) caughtUp(next Snapshot) []string {
	var out []string
	for _, n := range next.Nodes {
		held, ok := d.rejoin[n.Name]
		if !ok || !n.Up {
			continue
		}
		done := true
		for _, st := range held {
			c, ok := n.Copies[st]
			if !ok || c.Behind || next.Leaders[st] == "" {
				done = false
			}
		}
		if !done {
			continue
		}
		delete(d.rejoin, n.Name)
		// A node that leads a stream on its return (an R1 stream's one
		// copy, or the election after a restart) caught up with no one.
		var follows, leads []string
		for _, st := range held {
			if next.Leaders[st] == n.Name {
				leads = append(leads, st)
			} else {
				follows = append(follows, st)
			}
		}
		sort.Strings(follows)
		sort.Strings(leads)
		switch {
		case len(follows) > 0 && len(leads) > 0:
			out = append(out, n.Name+" caught up: its copy of "+strings.Join(follows, ", ")+" holds what the leader's does; it leads "+strings.Join(leads, ", "))
		case len(follows) > 0:
			out = append(out, n.Name+" caught up: its copy of "+strings.Join(follows, ", ")+" holds what the leader's does")
		case len(leads) > 0:
			out = append(out, n.Name+" is back and leads "+strings.Join(leads, ", "))
		}
	}
	return out
}

// streamGone reports whether a stream remembered from before no longer
// exists: every node that held it is up and none holds it now (it was
// deleted, or the store area changed).
func (d *driver) streamGone(st string, next Snapshot) bool {
	for _, n := range next.Nodes {
		if _, ok := n.Copies[st]; ok {
			return false
		}
	}
	for _, n := range next.Nodes {
		if !n.Up {
			return false // it may live on the node that is down
		}
	}
	return true
}

// markBehind flags the followers that hold less than their leader.
func markBehind(s *Snapshot) {
	for st, leader := range s.Leaders {
		var lead Copy
		for _, n := range s.Nodes {
			if n.Name == leader {
				lead = n.Copies[st]
			}
		}
		for i := range s.Nodes {
			c, ok := s.Nodes[i].Copies[st]
			if !ok || c.Leader || c.Stale {
				continue
			}
			c.Behind = c.Seq < lead.Seq
			s.Nodes[i].Copies[st] = c
		}
	}
}

// diff turns two looks into events: messages stored by a leader, copied by
// a follower, a new leader; and the story in words.
func diff(old, next Snapshot, events []kit.Event, stories []string) ([]kit.Event, []string) {
	oldCopy := func(node, st string) (Copy, bool) {
		for _, n := range old.Nodes {
			if n.Name == node {
				c, ok := n.Copies[st]
				return c, ok
			}
		}
		return Copy{}, false
	}
	for _, st := range next.Streams {
		leader := next.Leaders[st]
		if was := old.Leaders[st]; leader != "" && was != leader && len(old.Nodes) > 0 {
			if _, existed := oldCopy(leader, st); existed || was != "" {
				events = append(events, kit.Event{Kind: kit.Changed, Note: "leader", Stream: st, Client: leader})
				stories = append(stories, leader+" now leads "+st)
			}
		}
		for _, n := range next.Nodes {
			c, ok := n.Copies[st]
			if !ok || c.Stale {
				continue
			}
			prev, had := oldCopy(n.Name, st)
			from := uint64(0)
			if had {
				from = prev.Seq
			}
			if c.Seq <= from {
				continue
			}
			kind := kit.Delivered // a follower copied
			if c.Leader {
				kind = kit.Stored
			}
			for seq := max(from+1, c.Seq-min(c.Seq, sampleMax-1)); seq <= c.Seq; seq++ {
				events = append(events, kit.Event{Kind: kind, Stream: st, Seq: seq, Client: n.Name})
			}
		}
	}
	return events, stories
}

// pickFocus is the stream the controls act on: the one chosen, else the
// first replicated one, else the first.
func pickFocus(chosen string, s Snapshot) string {
	for _, st := range s.Streams {
		if st == chosen {
			return st
		}
	}
	for _, st := range s.Streams {
		for _, n := range s.Nodes {
			if c, ok := n.Copies[st]; ok && c.R > 1 {
				return st
			}
		}
	}
	if len(s.Streams) > 0 {
		return s.Streams[0]
	}
	return chosen
}

// counted adds the outcome of the scene's publishes.
func (d *driver) counted(published, acked, failed uint64) {
	d.mu.Lock()
	d.snap.Published += published
	d.snap.Acked += acked
	d.snap.Failed += failed
	d.mu.Unlock()
}
