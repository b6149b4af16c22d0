package episode

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"natslab/broker/text"
)

// Check is one condition on the broker's real state. An entry may set
// several kinds; all of them must hold. Every kind reads what the broker
// holds or what was delivered, never what was typed, so a step ticks
// however the state came about: the command pane, a scene, or a real nats
// CLI in another terminal.
type Check struct {
	// JetStream is whether JetStream must be on or off.
	JetStream *bool `yaml:"jetstream"`
	// Restarted: the server has restarted since the previous step was done.
	Restarted bool `yaml:"restarted"`
	// Subscriptions counts the clients' live subscriptions.
	Subscriptions *SubsCheck `yaml:"subscriptions"`
	// Received counts what subscribers received.
	Received *ReceivedCheck `yaml:"received"`
	// Unheard counts messages that reached the server while nothing
	// subscribed to their subjects.
	Unheard *UnheardCheck `yaml:"unheard"`
	// Stream checks a stream's configuration and state.
	Stream *StreamCheck `yaml:"stream"`
	// Consumer checks a consumer's configuration and state.
	Consumer *ConsumerCheck `yaml:"consumer"`
	// Messages counts stored messages by subject and header.
	Messages *MessagesCheck `yaml:"messages"`
	// Replayed: a subscriber read every message a stream holds.
	Replayed *ReplayCheck `yaml:"replayed"`
	// Advisory counts JetStream advisories (max deliveries, naks, terms).
	Advisory *AdvisoryCheck `yaml:"advisory"`
	// KV checks a key-value bucket or key.
	KV *KVCheck `yaml:"kv"`
	// Published counts messages that reached the server on a subject,
	// whether or not anything stored or received them.
	Published *PublishedCheck `yaml:"published"`
	// Acks counts acknowledgements sent to a consumer, and whether the
	// sender asked the server to confirm them (a double ack).
	Acks *AcksCheck `yaml:"acks"`
	// Object checks an object store bucket, or an object in it.
	Object *ObjectCheck `yaml:"object"`
	// Service asks a micro service's instances for their stats, as
	// nats service stats does.
	Service *ServiceCheck `yaml:"service"`
	// Refused counts what the server refused and logged since the lesson
	// started: a client that failed to authenticate, a publish or a
	// subscription its user's permissions deny.
	Refused *RefusedCheck `yaml:"refused"`
	// Rejected counts JetStream publishes a stream refused: answered with
	// an error instead of stored.
	Rejected *RejectedCheck `yaml:"rejected"`
	// Mapping: the running server maps a subject (its configuration's
	// mappings, as its account reports them).
	Mapping *MappingCheck `yaml:"mapping"`
	// Account counts what the server counts of an account's clients.
	Account *AccountCheck `yaml:"account"`
	// Import counts what crossed one of an account's imports.
	Import *ImportCheck `yaml:"import"`
	// Leaf checks the lab's leaf node and its clients.
	Leaf *LeafCheck `yaml:"leaf"`
}

// AccountCheck describes an account by the server's own numbers.
type AccountCheck struct {
	Name      string `yaml:"name"`
	Published Cmp    `yaml:"published"` // messages its clients published, since the server started
}

// ImportCheck counts, by the server's own numbers, what crossed an
// import of an account's (since the server started).
type ImportCheck struct {
	Account string `yaml:"account"` // the importing account
	Subject string `yaml:"subject"` // the import's subject, as its exporter exports it
	// Messages counts, for a stream import, what it delivered to the
	// importer's subscriptions; for a service import, the requests that
	// crossed into the exporter. Default >= 1.
	Messages Cmp `yaml:"messages"`
	// Replies counts, for a service import, the replies that came back
	// (the server shares one reply subscription among an exporter's
	// service imports: with several, each counts them all).
	Replies Cmp `yaml:"replies"`
}

// MappingCheck describes a subject mapping of the server's.
type MappingCheck struct {
	Source      string `yaml:"source"`
	Destination string `yaml:"destination"` // one of its destinations ("" for any)
	Weight      Cmp    `yaml:"weight"`      // that destination's weight, percent
	// Destinations counts the source's destinations (weighted: several).
	Destinations Cmp `yaml:"destinations"`
}

// RefusedCheck counts the server's refusals by its own log lines
// ("authentication error", "Publish Violation", "Subscription Violation").
type RefusedCheck struct {
	What    string `yaml:"what"`    // login, publish or subscribe
	User    string `yaml:"user"`    // the user refused ("" for any)
	Subject string `yaml:"subject"` // publish, subscribe: the subject refused, exactly ("" for any)
	Count   Cmp    `yaml:"count"`   // default >= 1
}

// RejectedCheck counts the JetStream publishes a stream answered with an
// error instead of storing them (a full stream whose discard policy is
// new, a message too large …), since the lesson started. Only the lab's
// own pub --jetstream counts, which reads the stream's answer: the answer
// to another client (a real nats CLI in another terminal) goes to that
// client's inbox, which the lab does not watch, and the server keeps no
// count of refusals. A plain pub asks for no answer, so nobody hears its
// refusal.
type RejectedCheck struct {
	Stream string `yaml:"stream"`
	// Code is the server's JetStream error code, the number the real CLI
	// prints after the error (10077: a limit reached); 0 for any.
	Code  uint16 `yaml:"code"`
	Count Cmp    `yaml:"count"` // default >= 1
}

// SubsCheck counts live subscriptions of clients (not the lab's own checker).
// A stream import's shadow subscriptions (broker.Monitor.AccountSubscriptions)
// are nobody's: they are never counted.
type SubsCheck struct {
	Account string  `yaml:"account"` // only those of clients of this account ("" for any)
	Subject string  `yaml:"subject"` // subscriptions on exactly this subject (wildcards included)
	Matches string  `yaml:"matches"` // or: subscriptions that a message on this subject would reach
	Queue   *string `yaml:"queue"`   // only this queue group ("" for none); any when unset
	Count   Cmp     `yaml:"count"`   // default >= 1
	// Others counts, with Queue set, the subscriptions on the same subject
	// outside that group: a stray group, or a plain subscriber, that gets
	// its own copy of every message.
	Others Cmp `yaml:"others"`
}

// ReceivedCheck counts messages delivered to subscribers.
type ReceivedCheck struct {
	Filter    string   `yaml:"filter"`    // subscribers on exactly this subject
	Subject   string   `yaml:"subject"`   // messages whose subject matches this pattern
	Subjects  []string `yaml:"subjects"`  // each of these subjects must have been received
	Queue     string   `yaml:"queue"`     // subscribers in this queue group
	Stream    string   `yaml:"stream"`    // messages delivered from this stream
	Count     Cmp      `yaml:"count"`     // total received; default >= 1
	Members   Cmp      `yaml:"members"`   // subscribers that received at least one
	Exclusive bool     `yaml:"exclusive"` // nobody outside Queue received messages on Filter
	Since     bool     `yaml:"since_previous"`
	// Mapped is the source of one of the server's mappings: only messages
	// that came through it count. The server keeps no count of what it
	// mapped, so the lab pairs what its subscriber received with what its
	// own pub sent while the subscriber ran: a message received on a
	// subject counts when the pub sent one on a subject the mapping turns
	// into it (for weighted destinations, any of them), each publish at
	// most once; one published on the destination subject itself does not.
	// What another client (a real nats CLI) publishes is not seen.
	Mapped string `yaml:"mapped"`
	// Account counts only subscriptions of clients of this account, as
	// the server counts their deliveries (a stream import's deliveries
	// are the importing subscription's).
	Account string `yaml:"account"`
	// User counts only subscriptions of clients logged in as this user.
	User string `yaml:"user"`
	// From counts, with Account, only messages that came from this
	// account through a stream import.
	From string `yaml:"from"`
	// WhilePublished counts, with Account, only subscriptions that were
	// in place while clients of this account published; there must be one,
	// so a count of 0 says a message was published and did not reach them.
	WhilePublished string `yaml:"while_published"`
	// WhileStored counts of each subscription at most as many messages as
	// this stream stored while it was in place, as the looks at the server
	// saw it: what a push consumer kept for a subscriber that was not there
	// and handed over when one came does not count. By the server's counts
	// of its subscriptions, whoever made them.
	WhileStored string `yaml:"while_stored"`
}

// UnheardCheck counts messages that found no subscriber.
type UnheardCheck struct {
	Subject string `yaml:"subject"` // the subjects nobody may listen to (wildcards allowed)
	Count   Cmp    `yaml:"count"`   // default >= 1
}

// StreamCheck describes a stream.
type StreamCheck struct {
	Name   string `yaml:"name"`
	Absent bool   `yaml:"absent"`
	// Lost: the stream kept nothing through a restart. A single server
	// forgets a memory stream altogether; a cluster keeps every stream's
	// definition in its meta group's log on disk, so the stream comes
	// back there, empty.
	Lost              bool     `yaml:"lost"`
	Subjects          []string `yaml:"subjects"` // the stream's subjects include each
	Captures          string   `yaml:"captures"` // a message on this subject would be stored
	Ignores           string   `yaml:"ignores"`  // a message on this subject would not be stored
	Storage           string   `yaml:"storage"`
	Retention         string   `yaml:"retention"`
	Discard           string   `yaml:"discard"`
	Messages          Cmp      `yaml:"messages"`
	NumSubjects       Cmp      `yaml:"num_subjects"`
	FirstSeq          Cmp      `yaml:"first_seq"`
	LastSeq           Cmp      `yaml:"last_seq"`
	Deleted           Cmp      `yaml:"deleted"`
	MaxMsgs           Cmp      `yaml:"max_msgs"`
	MaxMsgsPerSubject Cmp      `yaml:"max_msgs_per_subject"`
	MaxAge            Cmp      `yaml:"max_age"`
	DuplicateWindow   Cmp      `yaml:"duplicate_window"`
	Consumers         Cmp      `yaml:"consumers"`
	Replicas          Cmp      `yaml:"replicas"`
	// RepublishSource and RepublishDestination: the stream republishes
	// what it stores on the one to the other; RepublishHeaders, headers
	// only.
	RepublishSource      string `yaml:"republish_source"`
	RepublishDestination string `yaml:"republish_destination"`
	RepublishHeaders     *bool  `yaml:"republish_headers"`
	Current              Cmp    `yaml:"current"`        // replicas up to date, the leader included
	LeaderChanged        bool   `yaml:"leader_changed"` // since the previous step
	// Mirror is the stream this one mirrors; Sources the streams it
	// sources from (each must be among them).
	Mirror  string   `yaml:"mirror"`
	Sources []string `yaml:"sources"`
	// Lag is how many messages the copy knows it has yet to copy, as
	// stream info's Lag: the mirror's, or the largest of its sources'.
	Lag Cmp `yaml:"lag"`
}

// ConsumerCheck describes a consumer.
type ConsumerCheck struct {
	Stream     string `yaml:"stream"`
	Name       string `yaml:"name"`
	Absent     bool   `yaml:"absent"`
	Pull       *bool  `yaml:"pull"`
	Ack        string `yaml:"ack"` // explicit, all, none
	Filter     string `yaml:"filter"`
	AckWait    Cmp    `yaml:"ack_wait"`
	MaxDeliver Cmp    `yaml:"max_deliver"`
	AckFloor   Cmp    `yaml:"ack_floor"` // stream sequence
	// Acked counts the deliveries acknowledged: the ack floor's consumer
	// sequence. Unlike the stream sequences it only grows with what the
	// consumer really handed out, so a consumer that skipped everything
	// (a filter fixed after a pull) has acked 0.
	Acked       Cmp `yaml:"acked"`
	Delivered   Cmp `yaml:"delivered"` // stream sequence of the last delivery
	Pending     Cmp `yaml:"pending"`   // not yet delivered
	AckPending  Cmp `yaml:"ack_pending"`
	Redelivered Cmp `yaml:"redelivered"`
	Waiting     Cmp `yaml:"waiting"` // pull requests waiting
	// Durable: the consumer has a durable name (true), or only a name, so
	// the server removes it once idle for its inactive threshold (false).
	Durable *bool `yaml:"durable"`
	// Deliver is where the consumer started: all, last, new,
	// by_start_sequence, by_start_time or last_per_subject.
	Deliver           string `yaml:"deliver"`
	StartSeq          Cmp    `yaml:"start_seq"` // with by_start_sequence
	MaxAckPending     Cmp    `yaml:"max_ack_pending"`
	InactiveThreshold Cmp    `yaml:"inactive_threshold"`
	// Idle is how long the consumer has gone without a delivery or an ack
	// (since it was created, if it has had neither).
	Idle Cmp `yaml:"idle"`
	// ExtraDeliveries counts deliveries beyond the first of each message
	// (the consumer sequence minus the stream sequence delivered last):
	// redeliveries, even after they were acknowledged. It is exact for an
	// unfiltered consumer of a stream that starts at sequence 1.
	ExtraDeliveries Cmp `yaml:"extra_deliveries"`
}

// PublishedCheck counts messages that reached the server on subjects
// matching Subject (with Header, when set), seen by the lesson's checker
// as a subscriber of its own: retries a stream deduplicated count too.
type PublishedCheck struct {
	Subject string `yaml:"subject"` // pattern
	Header  string `yaml:"header"`  // "Name: value"
	Count   Cmp    `yaml:"count"`   // default >= 1
	// Since counts only messages that reached the server since the
	// previous step was done: a look before the thing to look at was
	// there does not do.
	Since bool `yaml:"since_previous"`
}

// AcksCheck counts acknowledgements sent to a consumer ($JS.ACK.stream.consumer.…).
type AcksCheck struct {
	Stream   string `yaml:"stream"`
	Consumer string `yaml:"consumer"`
	// Confirmed counts only acks sent as requests, which the server
	// answers once it has recorded them (a double ack, AckSync).
	Confirmed bool `yaml:"confirmed"`
	Count     Cmp  `yaml:"count"` // default >= 1
	// GivenUpBy is another consumer of the stream: only the consumer's
	// acks of a message that one gave up on count (the stream sequence
	// its max-deliveries advisory names), so reading some other message
	// first does not do.
	GivenUpBy string `yaml:"given_up_by"`
}

// ObjectCheck describes an object store bucket, or an object in it.
type ObjectCheck struct {
	Bucket   string `yaml:"bucket"`
	Name     string `yaml:"name"`   // an object; "" for the bucket
	Absent   bool   `yaml:"absent"` // the bucket (no name) or the object is missing or deleted
	Sealed   *bool  `yaml:"sealed"`
	Objects  Cmp    `yaml:"objects"`  // objects in the bucket
	Watchers Cmp    `yaml:"watchers"` // consumers on the bucket's stream: watches in progress
	Size     Cmp    `yaml:"size"`     // the object's bytes
	Chunks   Cmp    `yaml:"chunks"`   // the object's chunks
	// Watched: the object went in while a watch of the bucket was in
	// progress (a consumer on its stream made before it), so a watcher
	// saw it arrive, not only listed it as there already.
	Watched bool `yaml:"watched"`
}

// ServiceCheck describes a micro service by what its instances answer.
type ServiceCheck struct {
	Name      string `yaml:"name"`
	Instances Cmp    `yaml:"instances"` // running instances; default >= 1
	Requests  Cmp    `yaml:"requests"`  // requests handled, over all instances
	Errors    Cmp    `yaml:"errors"`    // errors, over all instances
	// EachRequests holds for the requests of every instance: ">=1" is
	// every instance has handled one.
	EachRequests Cmp `yaml:"each_requests"`
}

// LeafCheck describes the lab's leaf node (broker.Leaf): whether it runs
// and has joined the lab's server, and what its own clients subscribe to
// and received, read from the leaf server itself.
type LeafCheck struct {
	Running   *bool `yaml:"running"`
	Connected *bool `yaml:"connected"` // joined to the lab's server
	// Subject: the leaf's clients' subscriptions on exactly this subject.
	Subject     string `yaml:"subject"`
	Subscribers Cmp    `yaml:"subscribers"` // how many; default >= 1 with Subject
	// Received counts what the leaf delivered to its clients subscribed on
	// Subject, since they connected.
	Received Cmp `yaml:"received"`
	// Sent counts the messages the leaf passed to the lab's server over its
	// leaf connection (since it joined), as the lab's server counts them.
	Sent Cmp `yaml:"sent"`
}

// MessagesCheck counts stored messages.
type MessagesCheck struct {
	Stream  string `yaml:"stream"`
	Subject string `yaml:"subject"` // pattern
	Header  string `yaml:"header"`  // "Name: value"
	Count   Cmp    `yaml:"count"`   // default >= 1
}

// ReplayCheck: something read every message the stream holds.
type ReplayCheck struct {
	Stream string `yaml:"stream"`
}

// AdvisoryCheck counts advisories the server published.
type AdvisoryCheck struct {
	Event    string `yaml:"event"` // max_deliveries, terminated, naked
	Stream   string `yaml:"stream"`
	Consumer string `yaml:"consumer"`
	Count    Cmp    `yaml:"count"` // default >= 1
	// Filter, with event created, counts only the consumers created to
	// read subjects within this pattern, as the server's API audit
	// advisory names the filter their creation asked for: an object's
	// chunks ($O.files.C.>), not the lab's own look at its descriptions.
	Filter string `yaml:"filter"`
}

// KVCheck describes a bucket, or a key in it.
type KVCheck struct {
	Bucket   string  `yaml:"bucket"`
	Key      string  `yaml:"key"`
	Absent   bool    `yaml:"absent"` // the bucket (no key) or the key is missing or deleted
	Value    *string `yaml:"value"`
	Revision Cmp     `yaml:"revision"`
	History  Cmp     `yaml:"history"`  // revisions kept for the key
	Watchers Cmp     `yaml:"watchers"` // watches in progress: consumers on the bucket's stream a client receives from
	// Watched: the key's value was stored while a watch of it (or of the
	// whole bucket) was in progress (a watcher made before it), so a
	// watcher saw it arrive, not only listed it as the value it found.
	Watched bool `yaml:"watched"`
}

var advisoryEvents = map[string]string{
	"max_deliveries": "MAX_DELIVERIES",
	"terminated":     "MSG_TERMINATED",
	"naked":          "MSG_NAKED",
	"created":        "CREATED",
	"deleted":        "DELETED",
}

// deliverPolicies are the names a ConsumerCheck's deliver may take.
var deliverPolicies = map[string]bool{
	"all": true, "last": true, "new": true, "by_start_sequence": true, "by_start_time": true, "last_per_subject": true,
}

func (c Check) validate() error {
	kinds := 0
	count := func(set bool) {
		if set {
			kinds++
		}
	}
	count(c.JetStream != nil)
	count(c.Restarted)
	count(c.Subscriptions != nil)
	count(c.Received != nil)
	count(c.Unheard != nil)
	count(c.Stream != nil)
	count(c.Consumer != nil)
	count(c.Messages != nil)
	count(c.Replayed != nil)
	count(c.Advisory != nil)
	count(c.KV != nil)
	count(c.Published != nil)
	count(c.Acks != nil)
	count(c.Object != nil)
	count(c.Service != nil)
	count(c.Refused != nil)
	count(c.Rejected != nil)
	count(c.Mapping != nil)
	count(c.Account != nil)
	count(c.Import != nil)
	count(c.Leaf != nil)
	if kinds == 0 {
		return fmt.Errorf("a check says nothing to check")
	}
	switch {
	case c.Subscriptions != nil && (c.Subscriptions.Subject == "") == (c.Subscriptions.Matches == ""):
		return fmt.Errorf("subscriptions needs subject or matches (one of them)")
	case c.Subscriptions != nil && c.Subscriptions.Others.Set() && c.Subscriptions.Queue == nil:
		return fmt.Errorf("subscriptions others needs a queue: the group the others are outside")
	case c.Received != nil && (c.Received.From != "" || c.Received.WhilePublished != "") && c.Received.Account == "":
		return fmt.Errorf("received from and while_published need an account: the server's counts say whose subscriptions they are")
	case c.Received != nil && (c.Received.Account != "" || c.Received.User != "") && (c.Received.Subject != "" || len(c.Received.Subjects) > 0 || c.Received.Stream != ""):
		return fmt.Errorf("received with an account or a user counts by the server's numbers, which know no subjects or streams: use filter")
	case c.Received != nil && c.Received.Mapped != "" && (c.Received.Account != "" || c.Received.User != "" || c.Received.Stream != "" || c.Received.Since):
		return fmt.Errorf("received mapped pairs the lab's own publishes and deliveries: it takes no account, user, stream or since_previous")
	case c.Received != nil && c.Received.WhileStored != "" && (c.Received.Mapped != "" || c.Received.Stream != "" || c.Received.Subject != "" || len(c.Received.Subjects) > 0):
		return fmt.Errorf("received while_stored counts by the server's numbers, which know no subjects or streams: use filter")
	case c.Rejected != nil && c.Rejected.Stream == "":
		return fmt.Errorf("rejected needs a stream")
	case c.Unheard != nil && c.Unheard.Subject == "":
		return fmt.Errorf("unheard needs a subject")
	case c.Stream != nil && c.Stream.Name == "":
		return fmt.Errorf("stream needs a name")
	case c.Consumer != nil && (c.Consumer.Stream == "" || c.Consumer.Name == ""):
		return fmt.Errorf("consumer needs a stream and a name")
	case c.Messages != nil && c.Messages.Stream == "":
		return fmt.Errorf("messages needs a stream")
	case c.Replayed != nil && c.Replayed.Stream == "":
		return fmt.Errorf("replayed needs a stream")
	case c.KV != nil && c.KV.Bucket == "":
		return fmt.Errorf("kv needs a bucket")
	case c.KV != nil && c.KV.Watched && c.KV.Key == "":
		return fmt.Errorf("kv watched needs a key: the value a watcher saw stored")
	case c.Messages != nil && c.Messages.Header != "" && !strings.Contains(c.Messages.Header, ":"):
		return fmt.Errorf("messages header is Name: value")
	case c.Published != nil && c.Published.Subject == "":
		return fmt.Errorf("published needs a subject")
	case c.Published != nil && c.Published.Header != "" && !strings.Contains(c.Published.Header, ":"):
		return fmt.Errorf("published header is Name: value")
	case c.Acks != nil && (c.Acks.Stream == "" || c.Acks.Consumer == ""):
		return fmt.Errorf("acks needs a stream and a consumer")
	case c.Object != nil && c.Object.Bucket == "":
		return fmt.Errorf("object needs a bucket")
	case c.Object != nil && c.Object.Watched && c.Object.Name == "":
		return fmt.Errorf("object watched needs a name: the object a watcher saw go in")
	case c.Service != nil && c.Service.Name == "":
		return fmt.Errorf("service needs a name")
	case c.Import != nil && (c.Import.Account == "" || c.Import.Subject == ""):
		return fmt.Errorf("import needs an account (the importer) and a subject")
	case c.Account != nil && c.Account.Name == "":
		return fmt.Errorf("account needs a name")
	case c.Mapping != nil && c.Mapping.Source == "":
		return fmt.Errorf("mapping needs a source")
	case c.Refused != nil && c.Refused.What != "login" && c.Refused.What != "publish" && c.Refused.What != "subscribe":
		return fmt.Errorf("refused what %q is not one of login, publish, subscribe", c.Refused.What)
	case c.Consumer != nil && c.Consumer.Deliver != "" && !deliverPolicies[c.Consumer.Deliver]:
		return fmt.Errorf("consumer deliver %q is not one of all, last, new, by_start_sequence, by_start_time, last_per_subject", c.Consumer.Deliver)
	}
	if c.Advisory != nil {
		if _, ok := advisoryEvents[c.Advisory.Event]; !ok {
			return fmt.Errorf("advisory event %q is not one of max_deliveries, terminated, naked, created, deleted", c.Advisory.Event)
		}
		if c.Advisory.Filter != "" && (c.Advisory.Event != "created" || c.Advisory.Stream == "" || c.Advisory.Consumer != "") {
			return fmt.Errorf("advisory filter counts consumers created on a stream: it needs event created and a stream, and takes no consumer")
		}
	}
	return nil
}

// Cmp compares a number or a duration: "3" (exactly), ">=3", "<=5", ">0",
// "<10s". Unset, it accepts anything (or a default the check chooses).
type Cmp struct {
	op  string // "", "=", ">=", "<=", ">", "<"
	n   int64
	dur bool
}

// UnmarshalYAML reads 3, ">=3" or "<=10s".
func (c *Cmp) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: want a number or a comparison like \">=3\"", n.Line)
	}
	v, err := parseCmp(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*c = v
	return nil
}

func parseCmp(s string) (Cmp, error) {
	s = strings.TrimSpace(s)
	c := Cmp{op: "="}
	for _, op := range []string{">=", "<=", ">", "<", "="} {
		if strings.HasPrefix(s, op) {
			c.op, s = op, strings.TrimSpace(s[len(op):])
			break
		}
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		c.n = n
		return c, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return Cmp{}, fmt.Errorf("%q is neither a number nor a duration", s)
	}
	c.n, c.dur = int64(d), true
	return c, nil
}

// Set reports whether the comparison says anything.
func (c Cmp) Set() bool { return c.op != "" }

// Or returns c, or def when c is unset.
func (c Cmp) Or(def string) Cmp {
	if c.Set() {
		return c
	}
	d, err := parseCmp(def)
	if err != nil {
		panic(err)
	}
	return d
}

// Holds reports whether v satisfies the comparison.
func (c Cmp) Holds(v int64) bool {
	switch c.op {
	case "":
		return true
	case "=":
		return v == c.n
	case ">=":
		return v >= c.n
	case "<=":
		return v <= c.n
	case ">":
		return v > c.n
	case "<":
		return v < c.n
	}
	return false
}

// HoldsU is Holds for unsigned counters.
func (c Cmp) HoldsU(v uint64) bool { return c.Holds(int64(min(v, 1<<62))) }

// Want says in words what the comparison wants: "3", "at least 3", "at most 10s".
func (c Cmp) Want() string {
	v := strconv.FormatInt(c.n, 10)
	if c.dur {
		v = time.Duration(c.n).String()
	}
	// The number stays with its words where the sentence wraps.
	switch c.op {
	case ">=":
		return "at least" + text.NoBreak + v
	case "<=":
		return "at most" + text.NoBreak + v
	case ">":
		return "more than" + text.NoBreak + v
	case "<":
		return "fewer than" + text.NoBreak + v
	}
	return v
}
