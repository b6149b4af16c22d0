package contrast

import "fmt"

// The names the scene works with. They are the ones the curriculum uses, so
// what the scene shows is what `nats stream info EVENTS` and
// `nats consumer info EVENTS app` show.
const (
	Watch          = "events.>"     // what the tap and the apps listen to
	PublishSubject = "events.click" // where the scene's own publisher publishes
	StreamName     = "EVENTS"       // the stream the scene creates when none captures events.>
	ConsumerName   = "app"          // the JetStream app's durable consumer
)

// Mode is which side of the contrast is shown.
type Mode uint8

// The modes.
const (
	Core Mode = iota
	JetStream
	Split
)

func (m Mode) String() string {
	switch m {
	case JetStream:
		return "jetstream"
	case Split:
		return "split"
	}
	return "core"
}

// ParseMode reads a mode as typed.
func ParseMode(s string) (Mode, error) {
	switch s {
	case "core":
		return Core, nil
	case "jetstream", "js":
		return JetStream, nil
	case "split", "both":
		return Split, nil
	}
	return Core, fmt.Errorf("mode %q: choose core, jetstream or split (for example: mode jetstream)", s)
}

// showsCore and showsJS say which lanes a mode puts on screen (and which
// app offline and online act on).
func (m Mode) showsCore() bool { return m != JetStream }
func (m Mode) showsJS() bool   { return m != Core }

// Snapshot is the scene's state at one moment. Every number is either the
// broker's own (stream and consumer state) or a count of messages some
// client of the scene actually received.
type Snapshot struct {
	Mode      Mode
	ServerUp  bool
	Published uint64 // messages on events.> the tap received since the last reset
	Core      CoreState
	JS        JSState
	Problem   string // why the JetStream side cannot work right now, or ""
	Sampled   uint64 // animation events skipped under a flood (counts stay exact)
}

// CoreState is the core subscriber's side.
type CoreState struct {
	Online   bool
	Received uint64 // messages its subscription received
	Lost     uint64 // messages the tap saw while it was unsubscribed
	Dropped  uint64 // messages its client dropped for being too slow (a real slow consumer), rarely > 0
}

// JSState is the JetStream subscriber's side.
type JSState struct {
	Active     bool   // the JetStream side has been asked for (mode jetstream or split)
	Ready      bool   // a stream captures events.> and the consumer exists
	Online     bool   // the app is fetching
	Stream     string // the stream that captures events.>
	FirstSeq   uint64 // the stream's first and last sequence, and how many it holds
	LastSeq    uint64
	Msgs       uint64
	Delivered  uint64 // the last stream sequence delivered to the consumer
	Received   uint64 // messages the app fetched since the last reset
	Pending    uint64 // the consumer's NumPending, as the broker says
	AckPending uint64 // the consumer's NumAckPending
	Known      bool   // Pending has been read from the broker
	NotStored  uint64 // the scene's own JetStream publishes no stream acknowledged since the last reset
}
