package cursor

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker/text"
	"natslab/scenes/kit"
)

// The tracker turns what the broker reports into the picture: consumer
// info gives every number (cursor, ack floor, pending counts, the consumer
// sequence that counts each delivery, the time of the last delivery); the
// acks and pull requests seen on the wire and the server's advisories say
// which message each number is about. It runs on the driver's one loop
// goroutine.
type tracker struct {
	snap   Snapshot
	events []kit.Event
	pullID int
	// born are the consumers the scene saw created (the server's advisory):
	// they started with nothing delivered, so the first look at them can
	// tell each delivery, however many came before it.
	born map[string]bool
}

// resyncSlack is how far the scene's own idea of when the newest delivery
// happened may drift from the server's before the countdown is re-synced
// to the server's (a scene that saw the delivery late, or opened late).
var resyncSlack = 500 * time.Millisecond

// expiryGrace is how early an ack wait may count as run out when telling
// which message was redelivered: the scene saw the delivery a little after
// the server made it.
const expiryGrace = 500 * time.Millisecond

// maxStory is how many lines of what happened are kept.
const maxStory = 6

// maxPulls is how many pulls are kept on screen at most.
const maxPulls = 12

func (t *tracker) say(now time.Time, bad bool, format string, args ...any) {
	t.sayIn(now, bad, fmt.Sprintf(format, args...), "")
}

// sayIn is say in words of the scene's own, and in fewer (less) for a
// pane with no rows for all of them.
func (t *tracker) sayIn(now time.Time, bad bool, full, less string) {
	t.snap.Story = append(t.snap.Story, Line{At: now, Text: full, Less: less, Bad: bad})
	if n := len(t.snap.Story); n > maxStory {
		t.snap.Story = slices.Delete(t.snap.Story, 0, n-maxStory)
	}
}

func (t *tracker) emit(e kit.Event) { t.events = append(t.events, e) }

// takeEvents hands over what happened since the last call.
func (t *tracker) takeEvents() []kit.Event {
	ev := t.events
	t.events = nil
	return ev
}

// filters are the subjects a consumer reads.
func filters(cfg jetstream.ConsumerConfig) []string {
	if len(cfg.FilterSubjects) > 0 {
		return slices.Clone(cfg.FilterSubjects)
	}
	if cfg.FilterSubject != "" {
		return []string{cfg.FilterSubject}
	}
	return nil
}

// matches reports whether a consumer reads a subject; an unknown subject
// ("") counts as a match, so a message the scene has not looked up is
// never hidden.
func matches(fs []string, subject string) bool {
	if len(fs) == 0 || subject == "" {
		return true
	}
	for _, f := range fs {
		if server.SubjectMatchesFilter(subject, f) {
			return true
		}
	}
	return false
}

// candidates are the sequences in (from, to] the consumer reads.
func (t *tracker) candidates(c *Consumer, from, to uint64) []uint64 {
	var out []uint64
	if to <= from {
		return nil
	}
	// A stream of millions delivered at once: only the newest are tracked.
	if to-from > 256 {
		from = to - 256
	}
	for seq := from + 1; seq <= to; seq++ {
		if seq < t.snap.FirstSeq {
			continue // gone from the stream
		}
		if matches(c.Filters, t.snap.Subj[seq]) {
			out = append(out, seq)
		}
	}
	return out
}

// apply takes a fresh consumer info into the picture at scene time now;
// asked is when the info was asked for, on the wall clock.
func (t *tracker) apply(ci *jetstream.ConsumerInfo, now, asked time.Time) {
	c := t.snap.consumer(ci.Name)
	if c == nil {
		t.snap.Consumers = append(t.snap.Consumers, Consumer{Name: ci.Name})
		c = &t.snap.Consumers[len(t.snap.Consumers)-1]
	}
	if c.Offline {
		c.Offline = false
		t.say(now, false, "%s is online again: a node that holds it is back", ci.Name)
	}
	cfg := ci.Config
	fresh := c.Created.IsZero() || !c.Created.Equal(ci.Created) || ci.Delivered.Consumer < c.cseq
	if fresh {
		// New to the scene, or removed and added again under the same name.
		*c = Consumer{Name: ci.Name, Acked: map[uint64]bool{}, Dead: map[uint64]string{}}
		t.forgetPulls(ci, asked)
	}
	c.Filters = filters(cfg)
	c.Pull = cfg.DeliverSubject == ""
	c.AckNone = cfg.AckPolicy == jetstream.AckNonePolicy
	c.AckWait, c.BackOff, c.MaxDeliver, c.Created = cfg.AckWait, slices.Clone(cfg.BackOff), cfg.MaxDeliver, ci.Created

	prevCursor, prevCSeq := c.Delivered, c.cseq
	c.Delivered, c.AckFloor = ci.Delivered.Stream, ci.AckFloor.Stream
	c.Pending, c.AckPending = ci.NumPending, uint64(max(ci.NumAckPending, 0))
	c.Redelivered, c.Waiting = uint64(max(ci.NumRedelivered, 0)), uint64(max(ci.NumWaiting, 0))
	c.cseq = ci.Delivered.Consumer

	// When did the server last deliver, on the scene's clock: the age the
	// server reports, taken from now.
	var lastAt time.Time
	if ci.Delivered.Last != nil && !ci.TimeStamp.IsZero() {
		lastAt = now.Add(-max(ci.TimeStamp.Sub(*ci.Delivered.Last), 0))
	}

	if c.AckNone {
		c.Out = nil
		if !fresh && c.Delivered > prevCursor {
			t.delivered(c, t.candidates(c, prevCursor, c.Delivered), nil, now)
		}
		return
	}
	if fresh && !t.born[c.Name] {
		t.adopt(c, lastAt)
		return
	}
	delete(t.born, c.Name)

	// Every delivery moves the consumer sequence: those not explained by
	// the cursor moving on were redeliveries. (A consumer that starts at
	// the end of the stream has its cursor there before any delivery, so
	// only as many new messages as deliveries count.)
	newSeqs := t.candidates(c, prevCursor, c.Delivered)
	deliveries := int(c.cseq - prevCSeq)
	// Less those the acks already told of.
	for dseq := range c.heard {
		if dseq <= c.cseq {
			if dseq > prevCSeq {
				deliveries--
			}
			delete(c.heard, dseq)
		}
	}
	newSeqs = slices.DeleteFunc(newSeqs, func(seq uint64) bool { return c.heardFirst[seq] })
	for seq := range c.heardFirst {
		if seq <= c.Delivered {
			delete(c.heardFirst, seq)
		}
	}
	deliveries = max(deliveries, 0)
	if len(newSeqs) > deliveries {
		newSeqs = newSeqs[len(newSeqs)-deliveries:]
	}
	redeliveries := max(deliveries-len(newSeqs), 0)
	var again []uint64
	if redeliveries > 0 {
		again = t.redeliverable(c, now, redeliveries)
	}
	t.delivered(c, newSeqs, again, now)

	// Settled: everything up to the ack floor.
	for _, o := range slices.Clone(c.Out) {
		if o.Seq <= c.AckFloor {
			if c.Dead[o.Seq] == "" {
				t.acked(c, o.Seq, now, false)
			}
			c.drop(o.Seq)
		}
	}
	for seq := range c.Acked {
		if seq <= c.AckFloor {
			delete(c.Acked, seq)
		}
	}
	t.reconcile(c, lastAt)
	t.resync(c, lastAt)
}

// adopt takes a consumer the scene has just met: what lies between its ack
// floor and cursor is pending, as many as the broker says are.
func (t *tracker) adopt(c *Consumer, lastAt time.Time) {
	cands := t.candidates(c, c.AckFloor, c.Delivered)
	n := int(c.AckPending)
	if len(cands) > n {
		// Some were acknowledged out of order; workers mostly finish in
		// order, so the newest are the likeliest still out.
		cands = cands[len(cands)-n:]
	}
	tries := 0
	if c.Redelivered == 0 {
		tries = 1 // none was delivered twice
	}
	for _, seq := range cands {
		since := lastAt
		c.Out = append(c.Out, Outstanding{Seq: seq, Tries: tries, Since: since, Deadline: since.Add(c.waitFor(max(tries, 1))), Unsure: len(cands) > 1 || lastAt.IsZero()})
	}
	if n := len(c.Out); n > 0 && !lastAt.IsZero() {
		c.Out[n-1].Unsure = false // the newest delivery is the one the server timed
	}
}

// redeliverable picks which outstanding messages the broker delivered
// again: those it was asked for again (nak) and those whose ack wait ran
// out, lowest sequence first, as the server redelivers them.
func (t *tracker) redeliverable(c *Consumer, now time.Time, n int) []uint64 {
	var naked, expired, rest []uint64
	for _, o := range c.Out {
		switch {
		case o.Naked:
			naked = append(naked, o.Seq)
		case !now.Before(o.Deadline.Add(-expiryGrace)):
			expired = append(expired, o.Seq)
		default:
			rest = append(rest, o.Seq)
		}
	}
	all := append(append(naked, expired...), rest...)
	return all[:min(n, len(all))]
}

// delivered records deliveries: new messages, then redelivered ones, each
// handed to the oldest pull still waiting, as the server hands them out.
func (t *tracker) delivered(c *Consumer, fresh, again []uint64, now time.Time) {
	give := func(seq uint64, tries int) int { return t.give(c, seq, tries) }
	for _, seq := range fresh {
		pull := give(seq, 1)
		// Acknowledged (or terminated) already: the ack was heard before
		// this look saw the delivery.
		if !c.AckNone && !c.Acked[seq] && c.Dead[seq] == "" && seq > c.AckFloor {
			c.drop(seq)
			c.Out = append(c.Out, Outstanding{Seq: seq, Tries: 1, Since: now, Deadline: now.Add(c.waitFor(1)), Pull: pull})
		}
		t.emit(kit.Event{Kind: kit.Delivered, Consumer: c.Name, Seq: seq, Client: pullName(pull)})
	}
	for _, seq := range again {
		if o := c.out(seq); o != nil {
			t.again(c, o, o.Tries+1, give, now)
		}
	}
	sort.Slice(c.Out, func(i, j int) bool { return c.Out[i].Seq < c.Out[j].Seq })
}

// again records a redelivery of o as its given try.
func (t *tracker) again(c *Consumer, o *Outstanding, tries int, give func(uint64, int) int, now time.Time) {
	from, naked := o.Pull, o.Naked
	if o.Tries > 0 {
		o.Tries = tries
	}
	o.Pull = give(o.Seq, o.Tries)
	o.Since, o.Deadline, o.Unsure, o.Naked = now, now.Add(c.waitFor(max(o.Tries, 1))), false, false
	t.emit(kit.Event{Kind: kit.Delivered, Consumer: c.Name, Seq: o.Seq, Client: pullName(o.Pull), Note: "again"})
	t.say(now, false, "#%d delivered again to %s%s%s", o.Seq, orName(pullName(o.Pull), "a worker"), triesText(o.Tries, c.MaxDeliver), wasText(from, o.Pull, naked))
}

// give hands a delivery to the oldest pull of the consumer still waiting,
// as the server does, and returns that pull (0 when the scene saw none).
func (t *tracker) give(c *Consumer, seq uint64, tries int) int {
	for i := range t.snap.Pulls {
		p := &t.snap.Pulls[i]
		if p.Consumer != c.Name || p.Ended || len(p.Got) >= p.Batch {
			continue
		}
		p.Got = append(p.Got, seq)
		p.Tries = append(p.Tries, tries)
		p.Waiting = false
		if len(p.Got) >= p.Batch {
			p.Ended = true
		}
		return p.ID
	}
	return 0
}

func wasText(from, to int, naked bool) string {
	switch {
	case from == 0 || from == to:
		return ""
	case naked:
		return "; " + pullName(from) + " nak'd it"
	}
	return "; " + pullName(from) + " never acked it"
}

func triesText(tries, maxDeliver int) string {
	switch {
	case tries <= 0:
		return ""
	case maxDeliver > 0:
		return fmt.Sprintf(" (try"+text.NoBreak+"%d of"+text.NoBreak+"%d)", tries, maxDeliver)
	}
	return fmt.Sprintf(" (try"+text.NoBreak+"%d)", tries)
}

func orName(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

func pullName(id int) string {
	if id == 0 {
		return ""
	}
	return "pull " + strconv.Itoa(id)
}

// acked records a message settled by an ack: seen on the wire, or found
// settled by a look (its ack may yet be heard).
func (t *tracker) acked(c *Consumer, seq uint64, now time.Time, seen bool) {
	if !seen {
		c.settledUnheard(seq)
	}
	c.drop(seq)
	if seq > c.AckFloor {
		c.Acked[seq] = true
	}
	t.emit(kit.Event{Kind: kit.Pending, Consumer: c.Name, Seq: seq, Note: "ack"})
}

// settledUnheard notes that a look found seq settled before its ack was
// heard. Only the newest are kept: an ack that never comes (one ack for
// all before it) leaves its message here until it is far behind.
func (c *Consumer) settledUnheard(seq uint64) {
	if c.unheard == nil {
		c.unheard = map[uint64]int{}
	}
	pull := 0
	if o := c.out(seq); o != nil {
		pull = o.Pull
	}
	c.unheard[seq] = pull
	for s := range c.unheard {
		if s+maxUnheard < seq {
			delete(c.unheard, s)
		}
	}
}

// maxUnheard is how far behind the newest settled message an unheard one
// is forgotten.
const maxUnheard = 256

// reconcile makes the outstanding list agree with the broker's count.
func (t *tracker) reconcile(c *Consumer, lastAt time.Time) {
	n := int(c.AckPending)
	if len(c.Out) > n {
		// Acknowledged above the floor without the scene seeing the ack
		// (it arrived between two looks): the oldest deliveries go first.
		byAge := slices.Clone(c.Out)
		sort.SliceStable(byAge, func(i, j int) bool { return byAge[i].Since.Before(byAge[j].Since) })
		for _, o := range byAge[:len(c.Out)-n] {
			c.settledUnheard(o.Seq)
			c.drop(o.Seq)
			c.Acked[o.Seq] = true
		}
	}
	if len(c.Out) < n {
		// Delivered without the scene seeing it (before a restart of the
		// scene's view): what lies between floor and cursor and is neither
		// acknowledged nor dead.
		for _, seq := range t.candidates(c, c.AckFloor, c.Delivered) {
			if len(c.Out) >= n {
				break
			}
			if c.out(seq) != nil || c.Acked[seq] || c.Dead[seq] != "" {
				continue
			}
			c.Out = append(c.Out, Outstanding{Seq: seq, Since: lastAt, Deadline: lastAt.Add(c.waitFor(1)), Unsure: true})
		}
		sort.Slice(c.Out, func(i, j int) bool { return c.Out[i].Seq < c.Out[j].Seq })
	}
}

// resync moves the newest delivery's countdown to the server's timing when
// the two disagree by more than resyncSlack.
func (t *tracker) resync(c *Consumer, lastAt time.Time) {
	if lastAt.IsZero() || len(c.Out) == 0 {
		return
	}
	newest := 0
	for i := range c.Out {
		if c.Out[i].Since.After(c.Out[newest].Since) {
			newest = i
		}
	}
	o := &c.Out[newest]
	if d := o.Since.Sub(lastAt); d > resyncSlack || d < -resyncSlack {
		o.Since, o.Deadline = lastAt, lastAt.Add(c.waitFor(max(o.Tries, 1)))
	}
}

// ack handles an acknowledgement seen on the wire: body is what the worker
// sent; the server put in the ack subject which try of the message it was
// and the consumer sequence of that delivery.
func (t *tracker) ack(consumer string, seq uint64, tries int, dseq uint64, body string, now time.Time) {
	c := t.snap.consumer(consumer)
	if c == nil || c.AckNone {
		return
	}
	o := c.out(seq)
	if dseq > c.cseq && !c.heard[dseq] {
		// A delivery made since the last look, settled before the next:
		// the ack tells of it first.
		if c.heard == nil {
			c.heard, c.heardFirst = map[uint64]bool{}, map[uint64]bool{}
		}
		c.heard[dseq] = true
		give := func(seq uint64, n int) int { return t.give(c, seq, n) }
		switch {
		case o != nil:
			t.again(c, o, tries, give, now)
		case tries <= 1:
			c.heardFirst[seq] = true
			pull := give(seq, 1)
			c.Out = append(c.Out, Outstanding{Seq: seq, Tries: 1, Since: now, Deadline: now.Add(c.waitFor(1)), Pull: pull})
			t.emit(kit.Event{Kind: kit.Delivered, Consumer: c.Name, Seq: seq, Client: pullName(pull)})
		default:
			c.Out = append(c.Out, Outstanding{Seq: seq, Tries: tries - 1})
			t.again(c, &c.Out[len(c.Out)-1], tries, give, now)
		}
		sort.Slice(c.Out, func(i, j int) bool { return c.Out[i].Seq < c.Out[j].Seq })
		o = c.out(seq)
	}
	if o != nil && tries > 0 {
		o.Tries = tries
	}
	kind := strings.TrimSpace(body)
	switch {
	case kind == "" || kind == "+ACK" || strings.HasPrefix(kind, "+NXT"):
		if o == nil && (seq <= c.AckFloor || c.Acked[seq]) {
			// Settled already: by a look that came before this ack
			// (told now, once), or acknowledged twice.
			pull, unheard := c.unheard[seq]
			if unheard {
				delete(c.unheard, seq)
				t.say(now, false, "#%d acknowledged%s", seq, byText(&Outstanding{Pull: pull}))
			}
			return
		}
		t.acked(c, seq, now, true)
		t.say(now, false, "#%d acknowledged%s", seq, byText(o))
	case strings.HasPrefix(kind, "-NAK"):
		if o != nil {
			o.Naked = true
			o.Deadline = now
		}
		t.emit(kit.Event{Kind: kit.Pending, Consumer: consumer, Seq: seq, Note: "nak"})
	case strings.HasPrefix(kind, "+TERM"):
		c.drop(seq)
		c.Dead[seq] = "terminated"
		t.emit(kit.Event{Kind: kit.Pending, Consumer: consumer, Seq: seq, Note: "term"})
	case strings.HasPrefix(kind, "+WPI"):
		if o != nil {
			o.Since, o.Deadline = now, now.Add(c.waitFor(max(o.Tries, 1)))
		}
		t.emit(kit.Event{Kind: kit.Pending, Consumer: consumer, Seq: seq, Note: "progress"})
		t.say(now, false, "#%d still being worked on: its ack wait starts again", seq)
	}
}

func byText(o *Outstanding) string {
	if o == nil || o.Pull == 0 {
		return ""
	}
	return " by " + pullName(o.Pull)
}

// advisory handles one of the server's consumer advisories about a message.
func (t *tracker) advisory(kind, consumer string, seq uint64, deliveries int, reason string, now time.Time) {
	c := t.snap.consumer(consumer)
	if c == nil {
		return
	}
	switch kind {
	case "MAX_DELIVERIES":
		c.drop(seq)
		c.Dead[seq] = "max deliveries"
		t.emit(kit.Event{Kind: kit.Pending, Consumer: consumer, Seq: seq, Note: "dead"})
		tries := text.Unbroken(text.Count(deliveries, "try", "tries"))
		t.sayIn(now, true, fmt.Sprintf("#%d given up after %s: the server's max-deliveries advisory; it is never delivered again", seq, tries),
			fmt.Sprintf("#%d given up after %s: the server's advisory; it is never delivered again", seq, tries))
	case "MSG_NAKED":
		t.say(now, false, "#%d nak'd on try"+text.NoBreak+"%d (advisory): it goes to the next pull at once", seq, deliveries)
	case "MSG_TERMINATED":
		c.drop(seq)
		c.Dead[seq] = "terminated"
		why := ""
		if reason != "" {
			why = ": " + reason
		}
		t.sayIn(now, true, fmt.Sprintf("#%d terminated on try"+text.NoBreak+"%d (advisory)%s; it is never delivered again", seq, deliveries, why),
			fmt.Sprintf("#%d terminated on try"+text.NoBreak+"%d; it is never delivered again", seq, deliveries))
	}
}

// pulled records a pull request seen on the wire, heard at the wall
// clock's time heard.
func (t *tracker) pulled(consumer, inbox string, batch int, expires time.Duration, now, heard time.Time) {
	t.pullID++
	t.snap.Pulls = append(t.snap.Pulls, Pull{ID: t.pullID, Consumer: consumer, Batch: max(batch, 1), At: now, Waiting: true, inbox: inbox, expires: expires, lastSeen: now, heard: heard})
	// Only the newest are kept; those still waiting or holding an
	// unacknowledged message stay longest.
	for len(t.snap.Pulls) > maxPulls {
		drop := 0
		for i, p := range t.snap.Pulls {
			if p.Ended || len(p.Got) == 0 {
				drop = i
				break
			}
		}
		t.snap.Pulls = slices.Delete(t.snap.Pulls, drop, drop+1)
	}
	t.emit(kit.Event{Kind: kit.ClientUp, Consumer: consumer, Client: pullName(t.pullID)})
}

// forgetPulls drops the pulls made on ci's name surely before ci was
// created: a consumer of that name removed since had them, not this one,
// which may have been added between two looks (the server's advisory of
// the removal, when it came, dropped them already). The times compare on
// the server's clock: the info was stamped after it was asked for, so a
// pull heard at h was at most h + (stamp - asked) there; one heard later
// than that bound allows may be this consumer's, and stays.
func (t *tracker) forgetPulls(ci *jetstream.ConsumerInfo, asked time.Time) {
	if ci.TimeStamp.IsZero() || asked.IsZero() {
		return
	}
	ahead := ci.TimeStamp.Sub(asked)
	t.snap.Pulls = slices.DeleteFunc(t.snap.Pulls, func(p Pull) bool {
		return p.Consumer == ci.Name && !p.heard.IsZero() && p.heard.Add(ahead).Before(ci.Created)
	})
}

// removed forgets a consumer the server said it removed at (its clock),
// with its pulls: one added again under its name before the next look is
// another, which never had them. A consumer of that name the scene has
// already seen created after at is that other one: a look took it in
// before the news came, and it stays.
func (t *tracker) removed(name string, at time.Time) {
	if c := t.snap.consumer(name); c != nil && !at.IsZero() && c.Created.After(at) {
		return
	}
	t.snap.Consumers = slices.DeleteFunc(t.snap.Consumers, func(c Consumer) bool { return c.Name == name })
	t.snap.Pulls = slices.DeleteFunc(t.snap.Pulls, func(p Pull) bool { return p.Consumer == name })
}

// settlePulls marks which pulls still wait, from the broker's count of
// waiting pulls, asked for at asked: the newest unsatisfied ones are the
// ones it still holds. A pull heard after the question may not be in the
// answer yet: it is left waiting, for the next look to settle.
func (t *tracker) settlePulls(c *Consumer, asked time.Time) {
	waiting := int(c.Waiting)
	for i := len(t.snap.Pulls) - 1; i >= 0; i-- {
		p := &t.snap.Pulls[i]
		if p.Consumer != c.Name || p.Ended || p.heard.After(asked) {
			continue
		}
		if waiting > 0 {
			p.Waiting = true
			waiting--
			continue
		}
		p.Waiting, p.Ended = false, true
	}
}

// offline takes a consumer the server lists with its configuration alone
// (every copy on a stopped node): what the scene last read of it stays, as
// last seen; one never read shows no numbers.
func (t *tracker) offline(ci *jetstream.ConsumerInfo, now time.Time) {
	c := t.snap.consumer(ci.Name)
	if c == nil {
		t.snap.Consumers = append(t.snap.Consumers, Consumer{Name: ci.Name, Unread: true, Acked: map[uint64]bool{}, Dead: map[uint64]string{}})
		c = &t.snap.Consumers[len(t.snap.Consumers)-1]
		c.Filters = filters(ci.Config)
		c.Pull = ci.Config.DeliverSubject == ""
	}
	if !c.Offline {
		c.Offline = true
		t.say(now, true, "%s is offline: every copy of it is on a stopped node, and its cursor and ack floor wait there", ci.Name)
	}
}
