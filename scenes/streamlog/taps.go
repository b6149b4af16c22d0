package streamlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"natslab/scenes/kit"
)

// streamFor is the watched stream a subject belongs to (streams never
// share subjects), or "".
func (d *driver) streamFor(subject string) string {
	for _, l := range d.snap.Streams {
		if l.Gone != "" {
			continue
		}
		for _, f := range l.Subjects {
			if server.SubjectMatchesFilter(subject, f) {
				return l.Name
			}
		}
	}
	return ""
}

// readTaps handles publishes and acknowledgements in the order the server
// sent them: a publish always comes before its acknowledgement.
func (d *driver) readTaps() {
	d.Each(d.msgs, func(m *nats.Msg) {
		if strings.HasPrefix(m.Subject, "_INBOX.") {
			d.onAck(m)
		} else {
			d.onPublish(m)
		}
	})
}

func (d *driver) onPublish(m *nats.Msg) {
	d.mu.Lock()
	stream := d.streamFor(m.Subject)
	if stream == "" {
		d.mu.Unlock()
		return
	}
	d.feed.Send(kit.Event{Kind: kit.Published, Stream: stream, Subject: m.Subject, Note: m.Reply})
	if c := d.counts[stream]; c != nil {
		c.Published++
	}
	var early *nats.Msg
	if strings.HasPrefix(m.Reply, "_INBOX.") {
		if len(d.pending) >= maxPending {
			d.prunePendingLocked(true)
		}
		d.pending[m.Reply] = pubSeen{stream: stream, msgID: m.Header.Get("Nats-Msg-Id"), at: time.Now()}
		if o, ok := d.early[m.Reply]; ok {
			early = o.msg
			delete(d.early, m.Reply)
		}
	}
	d.mu.Unlock()
	if early != nil {
		d.onAck(early)
	}
	d.poke()
}

// earlyAck is an acknowledgement that reached the tap before the publish
// it answers. The server hands a message to the stream and to the tap in
// one pass, but the stream stores and answers on a goroutine of its own,
// which may beat the tap's copy of the publish.
type earlyAck struct {
	msg *nats.Msg
	at  time.Time
}

// maxEarly bounds the acknowledgements kept waiting for their publish.
const maxEarly = 256

// keepEarly holds what looks like a stream's acknowledgement (not an API
// response, which has a type) for a moment, in case its publish follows.
func (d *driver) keepEarly(m *nats.Msg) {
	if !bytes.HasPrefix(m.Data, []byte(`{"stream"`)) && !bytes.HasPrefix(m.Data, []byte(`{"error"`)) {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.early) >= maxEarly {
		for r, e := range d.early {
			if time.Since(e.at) > 2*time.Second || len(d.early) >= maxEarly {
				delete(d.early, r)
			}
		}
	}
	d.early[m.Subject] = earlyAck{msg: m, at: time.Now()}
}

// prunePendingLocked forgets publishes whose acknowledgement never came
// (the publisher gave up, the tap dropped it); all when the map is full
// of fresh ones, which only a flood does.
func (d *driver) prunePendingLocked(full bool) {
	for r, p := range d.pending {
		if full || time.Since(p.at) > 10*time.Second {
			delete(d.pending, r)
		}
	}
}

// pubAck is what a stream answers a --jetstream publish.
type pubAck struct {
	Stream    string `json:"stream"`
	Seq       uint64 `json:"seq"`
	Duplicate bool   `json:"duplicate"`
	Error     *struct {
		Code        int    `json:"code"`
		ErrCode     int    `json:"err_code"`
		Description string `json:"description"`
	} `json:"error"`
}

func (d *driver) onAck(m *nats.Msg) {
	d.mu.Lock()
	p, ok := d.pending[m.Subject]
	if ok {
		delete(d.pending, m.Subject)
	}
	d.mu.Unlock()
	if !ok {
		d.keepEarly(m) // someone else's conversation, or an ack ahead of its publish
		return
	}
	var ack pubAck
	if err := json.Unmarshal(m.Data, &ack); err != nil {
		return
	}
	d.mu.Lock()
	c := d.counts[p.stream]
	if c == nil {
		c = &TapCounts{}
		d.counts[p.stream] = c
	}
	switch {
	case ack.Error != nil:
		d.feed.Send(kit.Event{Kind: kit.Lost, Stream: p.stream, Note: m.Subject, Subject: ack.Error.Description})
		c.Refused++
		d.snap.Story = fmt.Sprintf("%s refused a publish: %s%s", p.stream, ack.Error.Description, refusalHint(ack.Error.Description))
	case ack.Duplicate:
		d.feed.Send(kit.Event{Kind: kit.Stored, Stream: p.stream, Seq: ack.Seq, Note: m.Subject, Client: "dup"})
		c.Dups++
		id := ""
		if p.msgID != "" {
			id = " (Nats-Msg-Id " + p.msgID + ")"
		}
		d.snap.Story = fmt.Sprintf("duplicate%s: already stored as #%d, acknowledged again and not stored twice", id, ack.Seq)
	default:
		d.feed.Send(kit.Event{Kind: kit.Stored, Stream: p.stream, Seq: ack.Seq, Note: m.Subject, Client: "ack"})
		c.Acked++
		d.acked[p.stream] = max(d.acked[p.stream], ack.Seq)
		d.snap.Story = fmt.Sprintf("%s stored the publish as #%d and acknowledged it", p.stream, ack.Seq)
	}
	d.mu.Unlock()
	d.poke()
}

// refusalHint adds why a full stream refuses: its discard policy is new.
func refusalHint(description string) string {
	if strings.HasPrefix(description, "maximum ") {
		return " (discard new: a full stream keeps what it has)"
	}
	return ""
}

// readAdvisories wakes the poller for what changes a stream without a
// publish: an edit, a purge, a removed message, a stream made or deleted.
func (d *driver) readAdvisories() {
	d.Each(d.advs, func(m *nats.Msg) {
		if m.Subject != "$JS.EVENT.ADVISORY.API" {
			d.poke() // a stream created, deleted, updated
			return
		}
		var audit struct {
			Subject string `json:"subject"`
		}
		if json.Unmarshal(m.Data, &audit) != nil {
			return
		}
		op, stream := apiOp(audit.Subject)
		if op == "" {
			return // a look, not a change: the scene's own polls are among them
		}
		d.mu.Lock()
		d.lastAPI[stream] = apiCall{op: op, at: time.Now()}
		d.mu.Unlock()
		d.poke()
	})
}

// apiOp names the stream-changing JetStream API calls: $JS.API.STREAM.PURGE.X
// is purge of X. Looks (INFO, NAMES, LIST, MSG.GET) are "".
func apiOp(subject string) (op, stream string) {
	rest, ok := strings.CutPrefix(subject, "$JS.API.STREAM.")
	if !ok {
		return "", ""
	}
	for _, p := range []struct{ prefix, op string }{
		{"PURGE.", "purge"}, {"MSG.DELETE.", "msg.delete"}, {"UPDATE.", "update"},
		{"CREATE.", "create"}, {"DELETE.", "delete"},
	} {
		if s, ok := strings.CutPrefix(rest, p.prefix); ok {
			return p.op, s
		}
	}
	return "", ""
}
