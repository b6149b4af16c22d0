package kit

// Kind says what happened on the broker.
type Kind uint8

// The broker events scenes animate.
const (
	Published  Kind = iota + 1 // a message was published on Subject (seen by a tap)
	Lost                       // a message reached the server and went to nobody (Client names who missed it)
	Stored                     // a stream stored a message: Stream, Seq
	Delivered                  // Client received a message: Subject, and Seq for a stream's message
	Pending                    // a consumer's Pending / AckPending changed
	ClientUp                   // Client connected, subscribed or started fetching
	ClientDown                 // Client disconnected, unsubscribed or stopped fetching
	ServerUp                   // the server came (back) up
	ServerDown                 // the server went down
	Changed                    // something else about the scene changed (mode, reset)
)

var kindNames = [...]string{"", "published", "lost", "stored", "delivered", "pending", "client up", "client down", "server up", "server down", "changed"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// Event is one thing that happened on the broker, as a scene animates it.
// Numbers in it come from the broker (a stream's sequence, a consumer's
// pending count), never from the scene's own bookkeeping.
type Event struct {
	Kind       Kind
	Subject    string
	Stream     string
	Consumer   string
	Seq        uint64 // stream sequence, 0 when there is none
	Client     string // which client: a scene's own name for it ("core", "jetstream")
	Pending    uint64
	AckPending uint64
	Note       string // for Changed: what changed ("mode", "reset")
}

// ServerEvent is the event of the server going down, or coming back up.
func ServerEvent(up bool) Event {
	if up {
		return Event{Kind: ServerUp}
	}
	return Event{Kind: ServerDown}
}
