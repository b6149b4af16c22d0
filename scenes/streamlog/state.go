package streamlog

import (
	"sort"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"natslab/scenes/watch"
)

// Snapshot is what the scene knows at one moment: every stream's config
// and state as the broker last reported them, and what the scene's taps
// saw of publishes and their acknowledgements.
type Snapshot struct {
	Focus    string // the stream watched, "" for all
	ServerUp bool
	Problem  string // why there is nothing to show (JetStream off, no stream …), or ""
	Streams  []Lane // in order of creation
	Story    string // the latest thing that happened, in words
	Sampled  uint64 // tap messages skipped under a flood (the broker's numbers stay exact)
}

// Lane is one stream.
type Lane struct {
	Name     string
	Subjects []string
	Storage  string // file, memory
	Retain   string // limits, interest, workqueue
	Discard  string // old, new
	MaxMsgs  int64
	PerSubj  int64
	MaxBytes int64
	MaxAge   time.Duration
	Dupes    time.Duration
	Created  time.Time

	First, Last, Msgs uint64    // from the broker
	Deleted           []uint64  // interior gaps, when few enough to list
	FirstTime         time.Time // when the oldest message was stored
	// From names the streams it copies: its mirror's origin, or its
	// sources. The server stores those copies; no publisher sends them.
	From   []string
	Mirror bool
	Gone   string // why the stream is no longer there ("" while it is)
	// Offline says which stopped nodes hold the stream, on the lab's
	// cluster, while none that does runs: the broker can read none of it
	// then, and the lane shows what it held when last read ("" online).
	Offline string
	// Unread: the scene never read the stream online, so its numbers are
	// unknown (it was offline from the scene's first look).
	Unread bool
	Had    uint64    // messages it held when last seen, for a gone stream
	Seen   TapCounts // what the taps saw since the scene opened (or reset)
}

// Copies reports a stream fed only by other streams (a mirror, or sources
// without subjects of its own): nothing publishes to it, and no one hears
// an acknowledgement from it.
func (l *Lane) Copies() bool { return len(l.From) > 0 && len(l.Subjects) == 0 }

// TapCounts are the publishes the scene saw reach a stream, and the
// acknowledgements the server sent back to --jetstream publishers.
type TapCounts struct {
	Published uint64 // messages on the stream's subjects
	Acked     uint64 // stored, as the acknowledgement said
	Dups      uint64 // acknowledged as duplicates: not stored again
	Refused   uint64 // refused with an error (discard new, …)
}

// Holds reports whether seq is stored.
func (l *Lane) Holds(seq uint64) bool {
	if seq < l.First || seq > l.Last || l.Msgs == 0 {
		return false
	}
	i := sort.Search(len(l.Deleted), func(i int) bool { return l.Deleted[i] >= seq })
	return i == len(l.Deleted) || l.Deleted[i] != seq
}

// maxDeletedDetails: a stream with more interior gaps is drawn without
// them (a lesson's streams have a handful).
const maxDeletedDetails = 2000

// offlineNodes names the nodes that hold a stream none of whose copies
// runs (the server lists such a stream with its configuration only, and
// no leader), or "" when it is online.
func offlineNodes(info *jetstream.StreamInfo) string {
	ci := info.Cluster
	if ci == nil || ci.Leader != "" || len(ci.Replicas) == 0 {
		return ""
	}
	var names []string
	for _, p := range ci.Replicas {
		if !p.Offline {
			return ""
		}
		names = append(names, p.Name)
	}
	return strings.Join(names, ", ")
}

// lane builds a lane from the broker's stream info.
func lane(info *jetstream.StreamInfo) Lane {
	c, s := info.Config, info.State
	l := Lane{
		Name: c.Name, Subjects: append([]string(nil), c.Subjects...),
		Storage: strings.ToLower(c.Storage.String()), Retain: watch.Retention(c.Retention), Discard: discard(c.Discard),
		MaxMsgs: c.MaxMsgs, PerSubj: c.MaxMsgsPerSubject, MaxBytes: c.MaxBytes, MaxAge: c.MaxAge, Dupes: c.Duplicates,
		Created: info.Created,
		First:   s.FirstSeq, Last: s.LastSeq, Msgs: s.Msgs, FirstTime: s.FirstTime,
	}
	if c.Mirror != nil {
		l.From, l.Mirror = []string{c.Mirror.Name}, true
	}
	for _, src := range c.Sources {
		l.From = append(l.From, src.Name)
	}
	if len(s.Deleted) > 0 {
		l.Deleted = append([]uint64(nil), s.Deleted...)
		sort.Slice(l.Deleted, func(i, j int) bool { return l.Deleted[i] < l.Deleted[j] })
	}
	return l
}

func discard(d jetstream.DiscardPolicy) string {
	if d == jetstream.DiscardNew {
		return "new"
	}
	return "old"
}
