package reqreply

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"natslab/broker"
	"natslab/scenes/kit"
	"natslab/scenes/watch"
)

// The driver is the scene's NATS side. It learns of responders from the
// server's own connection list (Connz: who subscribes to the watched
// subject, in which queue group, and how many requests each was given), and
// of requests and replies from two tap subscriptions on a connection of its
// own: the watched subject, and _INBOX.> where replies travel.
//
// The taps exist only while somebody else subscribes to the subject. A tap
// is a subscriber like any other: left on the subject with no responder, it
// would swallow the requests the server should bounce at once with "no
// responders", and turn that bounce into a timeout. So with no responder
// the scene does not listen on the subject; the bounce then goes from the
// server to the requester alone, and what the scene draws of it is its own
// `ask` control's request.
type driver struct {
	*watch.Life
	dep  broker.Deployment
	feed *kit.Feed

	kick  watch.Kick
	tapOn watch.Kick // the taps came on: watchInterest counts often from now

	nc   *nats.Conn // taps
	asks *nats.Conn // the scene's own requester, for ask
	msgs chan *nats.Msg

	mu       sync.Mutex
	snap     Snapshot
	taps     []*nats.Subscription
	tapFor   string                // the subject the taps listen to, "" when off
	pending  map[string]*inflight  // by reply subject: requests seen, waiting for their reply
	names    map[string]string     // inbox prefix → the requester's connection name
	ownCids  map[uint64]bool       // the scene's connections, never responders
	served   map[uint64]int64      // responder cid → requests given, at the last look
	sent     map[uint64]int64      // cid → messages the connection had sent, at the last look
	early    map[string]earlyReply // replies seen before their request, by subject
	answered uint64                // the scene's own asks answered, to number them
}

// inflight is a request seen on the subject, waiting for its reply.
type inflight struct {
	at        time.Time
	requester string
}

// Channel sizes: the taps drop (and the scene samples) rather than hold up
// the server under a flood of requests.
const (
	tapBuffer    = 4096
	maxPending   = 1024
	pendingLimit = 30 * time.Second // a request unanswered this long is counted as such and forgotten
)

// Polling the connection list: it is in process and cheap, but never more
// often than minPoll. While the taps are on, the scene looks often, so the
// taps leave soon after the last responder does; otherwise less often.
const minPoll = 200 * time.Millisecond

// idlePoll is a variable so that tests can put the idle look out of reach
// and show that news alone brings what they wait for.
var idlePoll = 500 * time.Millisecond

func startDriver(dep broker.Deployment, feed *kit.Feed, subject string) (*driver, error) {
	d := &driver{
		Life: watch.NewLife(), dep: dep, feed: feed,
		kick:    watch.NewKick(),
		tapOn:   watch.NewKick(),
		msgs:    make(chan *nats.Msg, tapBuffer),
		pending: map[string]*inflight{},
		names:   map[string]string{},
		ownCids: map[uint64]bool{},
		served:  map[uint64]int64{},
		sent:    map[uint64]int64{},
		early:   map[string]earlyReply{},
	}
	d.snap = Snapshot{Subject: subject, ServerUp: dep.Running()}
	var err error
	d.nc, err = d.Connect(dep, "natslab scene request-reply", d.setServer)
	if err == nil {
		d.asks, err = d.Connect(dep, "natslab scene requester", nil)
	}
	if err != nil {
		d.Close()
		return nil, err
	}
	d.poll()
	// The connection's list is looked at at once when kicked and every
	// idlePoll (minPoll while the taps are on), never faster than minPoll.
	d.Poll(d.kick, minPoll, idlePoll, d.poll, func() time.Duration {
		d.mu.Lock()
		defer d.mu.Unlock()
		if d.tapFor != "" {
			return minPoll
		}
		return idlePoll
	})
	d.readTaps()
	// The connection notices a restart only when it next talks.
	d.FollowServer(dep, func() {
		if !dep.Running() {
			d.setServer(false)
		}
		d.poke()
	})
	d.Go(d.watchInterest)
	return d, nil
}

// How often the scene counts the subject's subscriptions: a counter the
// embedded server keeps, cheap to read in process.
// Often while the taps are on, so that the tap on the subject leaves within
// milliseconds of the last responder (the next request must bounce, not
// reach the tap); less often otherwise, to see a responder come.
const (
	tappedCount = 5 * time.Millisecond
	idleCount   = 100 * time.Millisecond
)

// othersListening is how many subscriptions, other than the scene's tap,
// a request on subject would reach now.
func (d *driver) othersListening(ns *broker.Monitor, subject string) int {
	d.mu.Lock()
	defer d.mu.Unlock() // the tap does not change while the count is read
	n := ns.Listeners(subject)
	if d.tapFor == subject {
		n--
	}
	return n
}

// watchInterest follows how many subscriptions a request on the subject
// would reach. With only the scene's tap left, the tap goes at once; any
// other change asks for a full look at the connections. It counts them
// again only when the account's number of subscriptions moved, or the
// subject or the taps did (the count walks every subscription); poll's
// regular look catches one subscription leaving as another comes.
func (d *driver) watchInterest() {
	t := time.NewTimer(idleCount)
	defer t.Stop()
	lastSubs, lastSubject, lastTapped := -1, "", false
	for {
		select {
		case <-d.Ctx.Done():
			return
		case <-t.C:
		case <-d.tapOn:
			// The taps just came on: count often from now, not at the
			// end of an idle wait.
			if !t.Stop() {
				select {
				case <-t.C:
				default:
				}
			}
		}
		d.mu.Lock()
		subject, tapped, known := d.snap.Subject, d.tapFor != "", len(d.snap.Responders)
		d.mu.Unlock()
		wait := idleCount
		if tapped {
			wait = tappedCount
		}
		t.Reset(wait)
		ns := d.dep.Monitor()
		if ns == nil {
			continue
		}
		subs := ns.Subscriptions()
		if subs == lastSubs && subject == lastSubject && tapped == lastTapped {
			continue
		}
		lastSubs, lastSubject, lastTapped = subs, subject, tapped
		others := d.othersListening(ns, subject)
		switch {
		case tapped && others <= 0:
			d.setTaps("")
			d.poke()
		case others != known:
			d.poke()
		}
	}
}

// Close implements kit.Driver.
func (d *driver) Close() { d.End() }

// Snapshot implements kit.Driver: it never waits on the network.
func (d *driver) Snapshot() Snapshot {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := d.snap
	s.Responders = append([]Responder(nil), d.snap.Responders...)
	s.Waiting = len(d.pending)
	return s
}

func (d *driver) poke() { d.kick.Poke() }

func (d *driver) setServer(up bool) {
	d.mu.Lock()
	d.feed.Server(&d.snap.ServerUp, up)
	if !up {
		d.snap.Story = "the server is down: requests cannot reach anyone"
	}
	d.mu.Unlock()
	d.feed.Poke()
	d.poke()
}

// poll reads who subscribes to the watched subject, turns the taps on or
// off to match, and forgets requests that waited too long.
func (d *driver) poll() {
	ns := d.dep.Monitor()
	d.mu.Lock()
	subject := d.snap.Subject
	d.mu.Unlock()
	if ns == nil || !d.nc.IsConnected() {
		d.setTaps("")
		return
	}
	d.refreshOwn()
	responders, ok := d.responders(subject)
	if !ok {
		return
	}
	if d.othersListening(ns, subject) <= 0 {
		// A connection on its way out may still be listed with its
		// subscriptions; the server's own count of them is the word.
		responders = nil
	}
	d.mu.Lock()
	watching := d.snap.Watching
	d.mu.Unlock()
	if len(responders) > 0 {
		d.setTaps(subject)
	} else {
		d.setTaps("")
	}
	d.mu.Lock()
	tapsMoved := d.snap.Watching != watching
	before := d.snap.Responders
	var served []Responder
	for i, r := range responders {
		prev, known := d.served[r.Cid]
		if known && r.Msgs > prev {
			responders[i].Served = true
			served = append(served, r)
		}
	}
	clear(d.served)
	for _, r := range responders {
		d.served[r.Cid] = r.Msgs
	}
	changed := !sameResponders(before, responders)
	if changed {
		d.feed.Send(kit.Event{Kind: kit.Changed, Note: "responders"})
	}
	for _, r := range served {
		d.feed.Send(kit.Event{Kind: kit.Pending, Client: r.Name, Seq: r.Cid, Note: "served"})
	}
	d.snap.Responders = responders
	if changed {
		d.snap.Story = respondersStory(subject, before, responders)
	}
	now := time.Now()
	expired := false
	for reply, f := range d.pending {
		if now.Sub(f.at) > pendingLimit {
			delete(d.pending, reply)
			d.snap.Unanswered++
			expired = true
		}
	}
	d.mu.Unlock()
	// The scene is woken only for news: this look runs twice a second
	// whether or not anything happens.
	if changed || tapsMoved || expired || len(served) > 0 {
		d.feed.Poke()
	}
}

// refreshOwn remembers the server's ids of the scene's connections, which
// change when the server restarts.
func (d *driver) refreshOwn() {
	own := map[uint64]bool{}
	for _, nc := range []*nats.Conn{d.nc, d.asks} {
		if id, err := nc.GetClientID(); err == nil {
			own[id] = true
		}
	}
	d.mu.Lock()
	d.ownCids = own
	d.mu.Unlock()
}

// setTaps subscribes the taps to subject, or unsubscribes them ("").
func (d *driver) setTaps(subject string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.tapFor == subject {
		return
	}
	for _, s := range d.taps {
		_ = s.Unsubscribe()
	}
	d.taps, d.tapFor = nil, ""
	if subject == "" {
		d.snap.Watching = false
		_ = d.nc.Flush()
		return
	}
	for _, subj := range []string{subject, "_INBOX.>"} {
		s, err := d.nc.ChanSubscribe(subj, d.msgs)
		if err != nil {
			for _, t := range d.taps {
				_ = t.Unsubscribe()
			}
			d.taps = nil
			return
		}
		_ = s.SetPendingLimits(tapBuffer, 8<<20)
		d.taps = append(d.taps, s)
	}
	if err := d.nc.Flush(); err != nil {
		return
	}
	d.tapFor = subject
	d.snap.Watching = true
	d.tapOn.Poke()
}

// readTaps handles what the taps see, in the order the server sent it: a
// request always comes before its reply.
func (d *driver) readTaps() {
	own := ""
	d.Each(d.msgs, func(m *nats.Msg) {
		if own == "" {
			own = inboxPrefix(d.asks.NewRespInbox())
		}
		if strings.HasPrefix(m.Subject, "_INBOX.") {
			d.onReply(m)
			return
		}
		if m.Reply == "" || inboxPrefix(m.Reply) == own {
			// A plain publish on the subject is no request; the
			// scene's own asks are drawn by ask itself.
			return
		}
		d.onRequest(m)
	})
}

func (d *driver) onRequest(m *nats.Msg) {
	name := d.requesterName(m.Subject, m.Reply)
	d.mu.Lock()
	if len(d.pending) >= maxPending {
		// Forget the oldest: a flood is sampled, never hoarded.
		var oldest string
		var at time.Time
		for r, f := range d.pending {
			if oldest == "" || f.at.Before(at) {
				oldest, at = r, f.at
			}
		}
		delete(d.pending, oldest)
		d.snap.Unanswered++
	}
	d.feed.Send(kit.Event{Kind: kit.Published, Subject: m.Subject, Client: name, Note: m.Reply})
	d.pending[m.Reply] = &inflight{at: time.Now(), requester: name}
	d.snap.Requests++
	d.snap.LastInbox = m.Reply
	d.snap.LastRequester = name
	d.snap.Story = name + " asks on " + m.Subject + ", reply to " + m.Reply
	early, ok := d.early[m.Reply]
	delete(d.early, m.Reply)
	d.mu.Unlock()
	if ok {
		d.onReply(early.msg)
	}
	d.poke() // see which responder was given it
}

// earlyReply is a reply that reached the tap before the request it
// answers: the server hands a request to the tap and to the responder in
// one pass, and a quick responder may answer before the tap's copy is out.
type earlyReply struct {
	msg *nats.Msg
	at  time.Time
}

const maxEarly = 128

// keepEarlyLocked holds an unmatched reply a moment, in case its request
// follows.
func (d *driver) keepEarlyLocked(m *nats.Msg) {
	for r, e := range d.early {
		if time.Since(e.at) > 2*time.Second || len(d.early) >= maxEarly {
			delete(d.early, r)
		}
	}
	d.early[m.Subject] = earlyReply{msg: m, at: time.Now()}
}

func (d *driver) onReply(m *nats.Msg) {
	d.mu.Lock()
	f, ok := d.pending[m.Subject]
	if !ok {
		// Someone else's conversation (the JetStream API's, say), or
		// a reply ahead of its request.
		d.keepEarlyLocked(m)
		d.mu.Unlock()
		return
	}
	delete(d.pending, m.Subject)
	d.feed.Send(kit.Event{Kind: kit.Delivered, Client: f.requester, Note: m.Subject})
	rtt := time.Since(f.at)
	d.snap.Replies++
	d.snap.LastRTT = rtt
	d.snap.Story = "the reply reached " + f.requester + " on " + m.Subject + " after " + fmtRTT(rtt)
	d.mu.Unlock()
}

// closedListener is the name of the most recently closed connection that
// listened on reply (or its inbox prefix), or "".
func closedListener(ns *broker.Monitor, reply, prefix string) string {
	cz, err := ns.Connz(&server.ConnzOptions{State: server.ConnClosed, Sort: server.ByStop, Subscriptions: true, SubscriptionsDetail: true, Limit: 64})
	if err != nil {
		return ""
	}
	for _, c := range cz.Conns {
		for _, sd := range c.SubsDetail {
			if sd.Subject == reply || strings.HasPrefix(sd.Subject, prefix) {
				return connName(c.Name, c.Cid)
			}
		}
	}
	return ""
}

// requesterName asks the server which connection sent a request: the one
// listening on its reply subject if it still does, or did until it closed
// (a fast reply may have ended it already), else the one connection, not a responder, whose
// count of messages sent grew since the scene last looked. Names found are
// remembered by inbox prefix, which stays the same for one connection.
func (d *driver) requesterName(subject, reply string) string {
	prefix := inboxPrefix(reply)
	d.mu.Lock()
	name, ok := d.names[prefix]
	d.mu.Unlock()
	if ok {
		return name
	}
	ns := d.dep.Monitor()
	if ns == nil {
		return "requester"
	}
	cz, err := ns.Connz(connzOpts(0))
	if err != nil {
		return "requester"
	}
	name, grew := d.openListener(cz, subject, reply, prefix)
	if name == "" {
		// A quick requester may have had its answer and gone by now: the
		// server remembers closed connections, subscriptions included.
		name = closedListener(ns, reply, prefix)
	}
	if name == "" && len(grew) == 0 {
		// Or it is going right now: the server takes a connection off its
		// open ones before it lists it as closed (on a goroutine of its
		// own), so for a moment it is in neither list.
		broker.WaitFor(closingWait, func() bool {
			name = closedListener(ns, reply, prefix)
			return name != ""
		})
	}
	if name == "" && len(grew) == 1 {
		name = grew[0]
	}
	if name == "" {
		return "requester"
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.names) > 256 {
		clear(d.names)
	}
	d.names[prefix] = name
	return name
}

// closingWait bounds the look for a requester between the server's open
// and closed connections.
const closingWait = 250 * time.Millisecond

// openListener finds, among the open connections, the one listening on
// the reply subject; and the ones, not responders, whose count of
// messages sent grew since the scene last looked.
func (d *driver) openListener(cz *server.Connz, subject, reply, prefix string) (name string, grew []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, c := range cz.Conns {
		if d.ownCids[c.Cid] {
			continue
		}
		responder := false
		for _, sd := range c.SubsDetail {
			if sd.Subject == reply || strings.HasPrefix(sd.Subject, prefix) {
				name = connName(c.Name, c.Cid)
			}
			if server.SubjectMatchesFilter(subject, sd.Subject) {
				responder = true
			}
		}
		if prev, seen := d.sent[c.Cid]; c.InMsgs > prev || (!seen && c.InMsgs > 0) {
			if !responder {
				grew = append(grew, connName(c.Name, c.Cid))
			}
		}
		d.sent[c.Cid] = c.InMsgs
	}
	return name, grew
}

func connName(name string, cid uint64) string {
	if name == "" {
		return "client " + itoa(cid)
	}
	return name
}

// inboxPrefix is a reply subject less its last token: one connection's
// requests share it (nats.go's response inboxes are _INBOX.<id>.<n>).
func inboxPrefix(reply string) string {
	if i := strings.LastIndexByte(reply, '.'); i > len("_INBOX") {
		return reply[:i+1]
	}
	return reply
}

// ask sends one request of the scene's own on the watched subject and
// reports what came back: a reply with its round trip, or the server's
// instant "no responders".
func (d *driver) ask(body string, timeout time.Duration) (string, error) {
	d.poll() // the taps must be off if nobody responds, or they would take the request
	d.mu.Lock()
	subject := d.snap.Subject
	d.mu.Unlock()
	// A server restarting (a lesson switching its store area) is back in
	// milliseconds: give the connection a moment before giving up.
	if !d.AwaitConnected(d.asks, 3*time.Second) {
		if d.Ctx.Err() != nil {
			return "", errors.New("the scene closed")
		}
		return "", watch.ErrUnreachable
	}
	inbox := d.asks.NewRespInbox()
	d.mu.Lock()
	d.feed.Send(kit.Event{Kind: kit.Published, Subject: subject, Client: ownRequester, Note: inbox})
	d.snap.Requests++
	d.snap.LastInbox = inbox
	d.snap.LastRequester = ownRequester
	d.mu.Unlock()
	d.feed.Poke()
	sub, err := d.asks.SubscribeSync(inbox)
	if err != nil {
		return "", err
	}
	defer sub.Unsubscribe()
	start := time.Now()
	if err := d.asks.PublishRequest(subject, inbox, []byte(body)); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(d.Ctx, timeout)
	defer cancel()
	reply, err := sub.NextMsgWithContext(ctx)
	rtt := time.Since(start)
	switch {
	case errors.Is(err, nats.ErrNoResponders):
		d.mu.Lock()
		d.feed.Send(kit.Event{Kind: kit.Lost, Subject: subject, Client: ownRequester, Note: inbox})
		d.snap.Bounced++
		d.snap.LastRTT = rtt
		d.snap.Story = "no responders: the server bounced the request at once, after " + fmtRTT(rtt)
		d.mu.Unlock()
		d.feed.Poke()
		return "no responders: nobody subscribes to " + subject + ", and the server said so after " + fmtRTT(rtt), nil
	case err != nil:
		d.mu.Lock()
		d.snap.Unanswered++
		d.snap.Story = "no reply within " + timeout.String() + ": something listens, but no answer came back in time"
		d.mu.Unlock()
		d.feed.Poke()
		if d.Ctx.Err() != nil {
			return "", errors.New("the scene closed")
		}
		return "no reply on " + subject + " within " + timeout.String() + ": something listens there, but no answer came back in time (a slow or silent responder, or an answer lost on the way)", nil
	}
	d.mu.Lock()
	d.feed.Send(kit.Event{Kind: kit.Delivered, Client: ownRequester, Note: inbox})
	d.snap.Replies++
	d.snap.LastRTT = rtt
	d.answered++
	d.snap.Story = "the reply reached the scene's requester on " + inbox + " after " + fmtRTT(rtt)
	d.mu.Unlock()
	d.feed.Poke()
	d.poke()
	return "reply after " + fmtRTT(rtt) + " on " + inbox + ": " + kit.Clip(string(reply.Data), 60), nil
}

// ownRequester names the scene's own requester in stories and events.
const ownRequester = "the scene"
