package retention

import (
	"sort"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
	"natslab/scenes/watch"
)

// Policies in the order the scene draws them.
var Policies = [3]string{"limits", "interest", "workqueue"}

// rules say each policy's rule in a few words, under its name: the long
// form where it fits, else the short one (wrapped where rows allow), else
// the fewest words.
var rules = map[string][3]string{
	"limits":    {"kept until a limit removes it", "kept until a limit", "until a limit"},
	"interest":  {"kept until every consumer acked it", "kept until all acked", "until all acked"},
	"workqueue": {"removed once one consumer acked it", "removed once acked", "gone once acked"},
}

// examples say how to make a stream for a policy's empty column.
var examples = map[string]string{
	"limits":    `stream add LIMITS --subjects "limits.>" --retention limits --defaults`,
	"interest":  `stream add INTEREST --subjects "news.>" --retention interest --defaults`,
	"workqueue": `stream add WORK --subjects "work.>" --retention work --defaults`,
}

// Snapshot is what the scene knows at one moment: for each policy the
// stream shown and its consumers, as the broker last reported them.
type Snapshot struct {
	ServerUp bool
	Problem  string    // why nothing can be shown (JetStream off), or ""
	Columns  [3]Column // limits, interest, workqueue
	Story    string    // the latest thing that happened, in words
}

// Column is one policy's stream.
type Column struct {
	Policy    string
	Stream    string // "" when no stream has this policy
	Others    int    // further streams with this policy, not shown
	Subjects  []string
	First     uint64
	Last      uint64
	Msgs      uint64
	Deleted   []uint64 // gaps inside, sorted
	Consumers []Consumer
	Acks      uint64 // acknowledgements the scene's tap saw since it opened
	Note      string // what the server refused this stream lately (a second work-queue consumer), or ""
}

// Consumer is one consumer of a stream, from consumer info.
type Consumer struct {
	Name       string
	Filter     string
	AckFloor   uint64 // the stream sequence up to which everything is acknowledged
	Delivered  uint64 // the last stream sequence delivered
	Pending    uint64 // not yet delivered
	AckPending int    // delivered, not yet acknowledged
	// Offline is set while every copy of the consumer is on a stopped node
	// of the lab's cluster: the server lists it with its configuration
	// alone, so it has no numbers.
	Offline bool
}

// Holds reports whether seq is stored.
func (c *Column) Holds(seq uint64) bool {
	if c.Msgs == 0 || seq < c.First || seq > c.Last {
		return false
	}
	i := sort.Search(len(c.Deleted), func(i int) bool { return c.Deleted[i] >= seq })
	return i == len(c.Deleted) || c.Deleted[i] != seq
}

// AckedByAll reports whether every consumer acknowledged seq.
func (c *Column) AckedByAll(seq uint64) bool {
	if len(c.Consumers) == 0 {
		return false
	}
	for _, k := range c.Consumers {
		if k.AckFloor < seq {
			return false
		}
	}
	return true
}

func column(info *jetstream.StreamInfo, consumers []*jetstream.ConsumerInfo) Column {
	s := info.State
	c := Column{
		Policy: watch.Retention(info.Config.Retention), Stream: info.Config.Name,
		Subjects: append([]string(nil), info.Config.Subjects...),
		First:    s.FirstSeq, Last: s.LastSeq, Msgs: s.Msgs,
	}
	if len(s.Deleted) > 0 {
		c.Deleted = append([]uint64(nil), s.Deleted...)
		sort.Slice(c.Deleted, func(i, j int) bool { return c.Deleted[i] < c.Deleted[j] })
	}
	for _, ci := range consumers {
		k := Consumer{
			Name: ci.Name, AckFloor: ci.AckFloor.Stream, Delivered: ci.Delivered.Stream,
			Pending: ci.NumPending, AckPending: ci.NumAckPending,
		}
		if name, offline := watch.OfflineConsumer(ci); offline {
			if name == "" {
				continue
			}
			k = Consumer{Name: name, Offline: true} // no numbers: they wait on its stopped nodes
		}
		k.Filter = ci.Config.FilterSubject
		if k.Filter == "" && len(ci.Config.FilterSubjects) > 0 {
			k.Filter = strings.Join(ci.Config.FilterSubjects, ",")
		}
		c.Consumers = append(c.Consumers, k)
	}
	sort.Slice(c.Consumers, func(i, j int) bool { return c.Consumers[i].Name < c.Consumers[j].Name })
	return c
}
