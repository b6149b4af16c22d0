package cursor

import (
	"slices"
	"time"
)

// Snapshot is what the scene draws: the watched stream's log and each of
// its durable consumers' positions on it, as the broker reported them at
// the last look, plus what the scene saw happen since (deliveries, acks,
// advisories). Every number is the broker's; times are on the scene clock.
type Snapshot struct {
	ServerUp bool
	Problem  string // why nothing can be shown (JetStream off, no stream yet), or ""

	Stream   string // the stream on screen, "" when there is none
	Auto     bool   // chosen by the scene (no watch STREAM given)
	Subjects []string
	FirstSeq uint64
	LastSeq  uint64
	Msgs     uint64
	// Held are the subjects the stream holds messages on, with counts (nil
	// when the stream holds too many subjects to list).
	Held map[string]uint64
	// Subj is the subject of each stored message the scene looked up (the
	// ones in view); a sequence missing here was not looked up or is gone.
	Subj map[uint64]string

	Consumers []Consumer
	Pulls     []Pull
	Story     []Line // what happened, newest last
	Others    []string
}

// Consumer is one durable consumer's state.
type Consumer struct {
	Name       string
	Filters    []string
	Pull       bool
	AckNone    bool // ack policy none: delivered is done
	AckWait    time.Duration
	BackOff    []time.Duration
	MaxDeliver int
	Created    time.Time // the broker's, to tell a recreated consumer

	Delivered   uint64 // the cursor: the last stream sequence delivered
	AckFloor    uint64 // every message up to here is settled
	Pending     uint64 // not delivered yet (NumPending)
	AckPending  uint64 // delivered, not acknowledged (NumAckPending)
	Redelivered uint64 // delivered more than once, not yet acknowledged
	Waiting     uint64 // pull requests waiting at the server

	Out   []Outstanding     // the messages awaiting an ack, by sequence
	Acked map[uint64]bool   // acknowledged above the ack floor, as the scene saw the acks
	Dead  map[uint64]string // never delivered again: "terminated", "max deliveries"
	// NoMatch is set when the stream holds messages and none of their
	// subjects matches the consumer's filter.
	NoMatch bool
	// Offline is set while every copy of the consumer is on a stopped node
	// of the lab's cluster: the server lists it with its configuration
	// alone, so the numbers above are as last seen, and there are none
	// when the scene never read them (Unread).
	Offline, Unread bool

	cseq uint64 // the broker's consumer sequence (every delivery counts) at the last look
	// Deliveries the scene learnt of from acks before a look counted them:
	// by consumer sequence, and the first deliveries by stream sequence.
	heard      map[uint64]bool
	heardFirst map[uint64]bool
	// unheard are the messages a look found settled before the scene heard
	// their ack, with the pull each went to: the ack, heard later, is
	// still told.
	unheard map[uint64]int
}

// Outstanding is a delivered message waiting for its ack.
type Outstanding struct {
	Seq      uint64
	Tries    int       // deliveries so far; 0 when the scene did not see them all
	Since    time.Time // when it was (last) delivered
	Deadline time.Time // when its ack wait runs out
	Pull     int       // the pull it went to (0: not known)
	Unsure   bool      // delivered before the scene looked: the time is the latest it can be
	Naked    bool      // the worker asked for it again (nak): it goes to the next pull
}

// Pull is one pull request a worker made on a consumer, as the scene saw
// it on the wire: each `consumer next` asks once per message.
type Pull struct {
	ID       int
	Consumer string
	Batch    int
	At       time.Time
	Got      []uint64 // stream sequences delivered to it
	Tries    []int    // the delivery count of each, as seen
	Waiting  bool     // still waiting at the server for a message
	Ended    bool     // satisfied, expired or withdrawn
	inbox    string
	expires  time.Duration
	lastSeen time.Time
	heard    time.Time // on the wall clock, to compare with the broker's times
}

// Line is one thing that happened, in words.
type Line struct {
	At   time.Time
	Text string
	Less string // the same in fewer words, for a pane with no rows for all of it; "" if none
	Bad  bool
}

// consumer finds a consumer by name.
func (s *Snapshot) consumer(name string) *Consumer {
	for i := range s.Consumers {
		if s.Consumers[i].Name == name {
			return &s.Consumers[i]
		}
	}
	return nil
}

// out finds an outstanding message.
func (c *Consumer) out(seq uint64) *Outstanding {
	for i := range c.Out {
		if c.Out[i].Seq == seq {
			return &c.Out[i]
		}
	}
	return nil
}

// drop forgets an outstanding message; false when it was not outstanding.
func (c *Consumer) drop(seq uint64) bool {
	for i := range c.Out {
		if c.Out[i].Seq == seq {
			c.Out = slices.Delete(c.Out, i, i+1)
			return true
		}
	}
	return false
}

// waitFor is the ack wait of a message on its nth delivery: the consumer's
// backoff list when it has one, else its ack wait.
func (c *Consumer) waitFor(tries int) time.Duration {
	if len(c.BackOff) > 0 {
		i := max(tries-1, 0)
		if i >= len(c.BackOff) {
			i = len(c.BackOff) - 1
		}
		return c.BackOff[i]
	}
	return c.AckWait
}

// clone copies a snapshot deeply enough that the scene can keep it while
// the driver goes on changing its own.
func (s Snapshot) clone() Snapshot {
	out := s
	out.Subjects = slices.Clone(s.Subjects)
	out.Others = slices.Clone(s.Others)
	out.Story = slices.Clone(s.Story)
	if s.Held != nil {
		out.Held = make(map[string]uint64, len(s.Held))
		for k, v := range s.Held {
			out.Held[k] = v
		}
	}
	out.Subj = make(map[uint64]string, len(s.Subj))
	for k, v := range s.Subj {
		out.Subj[k] = v
	}
	out.Consumers = make([]Consumer, len(s.Consumers))
	for i, c := range s.Consumers {
		c.Filters = slices.Clone(c.Filters)
		c.BackOff = slices.Clone(c.BackOff)
		c.Out = slices.Clone(c.Out)
		acked := make(map[uint64]bool, len(c.Acked))
		for k, v := range c.Acked {
			acked[k] = v
		}
		dead := make(map[uint64]string, len(c.Dead))
		for k, v := range c.Dead {
			dead[k] = v
		}
		c.Acked, c.Dead = acked, dead
		out.Consumers[i] = c
	}
	out.Pulls = make([]Pull, len(s.Pulls))
	for i, p := range s.Pulls {
		p.Got = slices.Clone(p.Got)
		p.Tries = slices.Clone(p.Tries)
		out.Pulls[i] = p
	}
	return out
}
