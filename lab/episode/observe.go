package episode

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/nats-io/nats-server/v2/server"

	"natslab/broker/command"
)

// Deliveries are seen two ways, and a check takes whichever saw more:
//
//   - the lab's own subscribers (sub, reply, kv watch … in the command pane)
//     report every message as a command.Event, with its subject and, from a
//     stream, its sequence;
//   - the server's subscription list (Subsz) counts what every client
//     subscription was given, whoever made it: a scene, or a real nats CLI
//     in another terminal. It is sampled, so it keeps the highest count seen
//     for each subscription, and knows no subjects or sequences.

// subscriber is one subscription's deliveries.
type subscriber struct {
	filter, queue string
	count         int64
	// server view: the account of the client that subscribed, and what
	// came in through its stream imports, by exporting account.
	account, user string
	from          map[string]int64
	// server view: accounts' published counts when the subscription was
	// first seen with them, and at the latest look that still saw it.
	pubFirst, pubLast map[string]int64
	// server view: streams' last sequences, likewise.
	storedFirst, storedLast map[string]uint64
	subjects                map[string]int64 // events view: per message subject
	// sent is, for a lab subscriber, what the lab's pub sent on each
	// subject while the subscriber's job ran: the subjects as published,
	// before any mapping of the server's (shared with observations.sent
	// while the job runs; read under observations.mu).
	sent       map[string]int64
	seqs       map[string]map[uint64]bool // events view: stream → sequences delivered
	fromStream map[string]int64           // events view: stream → messages
	// ended numbers the moment the subscription went away (0 while it
	// runs): ends are numbered in order, so the latest is the largest.
	// endViews are every subscriber of the same view at that moment, so a
	// check can count what came after it.
	ended    uint64
	endViews map[*subscriber]subscriberView
	// server view: the lab's publishes per subject, and the subscription's
	// count, when it was first seen (see attribute).
	pubBase   map[string]int64
	countBase int64
}

func newSubscriber(filter, queue string) *subscriber {
	return &subscriber{filter: filter, queue: queue, from: map[string]int64{}, pubFirst: map[string]int64{}, pubLast: map[string]int64{}, storedFirst: map[string]uint64{}, storedLast: map[string]uint64{}, subjects: map[string]int64{}, seqs: map[string]map[uint64]bool{}, fromStream: map[string]int64{}}
}

// maxTracked bounds what is remembered per subscriber, so a million-message
// publish in a lesson costs little memory.
const maxTracked = 100_000

// countBounded counts one more of key in m, unless m already counts most
// keys and not this one.
func countBounded(m map[string]int64, key string, most int) {
	if len(m) < most || m[key] > 0 {
		m[key]++
	}
}

// subKey identifies a server-side subscription across restarts.
type subKey struct {
	boot string
	cid  uint64
	sid  string
}

// observations is everything seen since the episode started.
type observations struct {
	mu      sync.Mutex
	session *command.Session

	jobs  map[jobSub]*subscriber // running lab jobs' subscribers
	lab   []*subscriber          // every lab subscriber, in order
	seen  map[subKey]*subscriber
	order []*subscriber // server-side subscriptions, in order first seen

	advisories map[string]int64    // "EVENT stream consumer" → count
	creates    map[createKey]int64 // consumers created, by stream and filter (the API audit)
	ends       uint64              // subscriptions ended so far
	published  map[PublishedCheck]int64
	misspelt   map[PublishedCheck]string // a header name that matched only ignoring case
	acks       map[ackKey]int64
	// ackedSeqs holds, per "stream consumer", the stream sequences of
	// the messages acknowledged to it; givenUp, the stream sequences its
	// max-deliveries advisories named.
	ackedSeqs map[string]map[uint64]bool
	givenUp   map[string]map[uint64]bool
	// sent: per running job, what the lab's pub sent on each subject
	// since the job started.
	sent map[int]map[string]int64
	// rejected counts the JetStream publishes of the lab's pub a stream
	// answered with an error.
	rejected map[rejectKey]int64

	unheard map[string]*unheardCounter
	// stopped holds the subjects of the lab's plain subscribers that
	// have ended (ctrl+c, stop, --count reached).
	stopped map[string]bool
	// pubs counts what the lab's pub sent on each subject (up to
	// maxPubSubjects subjects).
	pubs map[string]int64
	// heard counts, per subject, the messages the checker saw reach the
	// server on the subjects of the episode's published checks, whoever
	// sent them: another client, a stream's republish (up to
	// maxPubSubjects subjects).
	heard map[string]int64
}

// maxPubSubjects bounds observations.pubs, copied for each subscription
// the server shows.
const maxPubSubjects = 256

// jobSub is a lab job's subscriber: the job, and for a sub on several
// subjects the one the message came through (each is a subscriber of its
// own, as the server counts it), "" otherwise.
type jobSub struct {
	job    int
	filter string
}

// rejectKey counts refused publishes per stream and error code.
type rejectKey struct {
	stream string
	code   uint16
}

func newObservations(s *command.Session) *observations {
	o := &observations{session: s}
	o.clear()
	return o
}

func (o *observations) clear() {
	o.jobs = map[jobSub]*subscriber{}
	o.lab = nil
	o.seen = map[subKey]*subscriber{}
	o.order = nil
	o.advisories = map[string]int64{}
	o.creates = map[createKey]int64{}
	o.published = map[PublishedCheck]int64{}
	o.misspelt = map[PublishedCheck]string{}
	o.acks = map[ackKey]int64{}
	o.ackedSeqs = map[string]map[uint64]bool{}
	o.givenUp = map[string]map[uint64]bool{}
	o.sent = map[int]map[string]int64{}
	o.rejected = map[rejectKey]int64{}
	o.unheard = map[string]*unheardCounter{}
	o.stopped = map[string]bool{}
	o.pubs = map[string]int64{}
	o.heard = map[string]int64{}
}

func (o *observations) reset() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.clear()
}

// event records one command.Event.
func (o *observations) event(ev command.Event) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch ev.Kind {
	case command.JobStarted:
		// Its subscribers are made on their first message, when their
		// subjects are known.
		o.sent[ev.Job] = map[string]int64{}
	case command.JobEnded:
		for k, sub := range o.jobs {
			if k.job == ev.Job {
				o.endLocked(sub, o.lab)
				delete(o.jobs, k)
			}
		}
		if o.session != nil {
			if j := o.session.Job(ev.Job); j != nil {
				if subjects, queue := j.Listening(); queue == "" {
					for _, subject := range strings.Fields(subjects) {
						o.stopped[subject] = true
					}
				}
			}
		}
		delete(o.sent, ev.Job)
	case command.Published:
		countBounded(o.pubs, ev.Subject, maxPubSubjects)
		for _, m := range o.sent {
			countBounded(m, ev.Subject, maxTracked)
		}
	case command.PublishRefused:
		o.rejected[rejectKey{ev.Stream, ev.Code}]++
	case command.Received:
		key := jobSub{ev.Job, ev.Filter}
		sub := o.jobs[key]
		if sub == nil {
			filter, queue := "", ev.Queue
			if o.session != nil {
				if j := o.session.Job(ev.Job); j != nil {
					filter, queue = j.Listening()
				}
			}
			if ev.Filter != "" {
				filter = ev.Filter
			}
			sub = newSubscriber(filter, queue)
			if o.sent[ev.Job] == nil { // a job from before the lesson's start
				o.sent[ev.Job] = map[string]int64{}
			}
			sub.sent = o.sent[ev.Job]
			o.jobs[key] = sub
			o.lab = append(o.lab, sub)
		}
		sub.count++
		countBounded(sub.subjects, ev.Subject, maxTracked)
		if ev.Stream != "" {
			sub.fromStream[ev.Stream]++
			set := sub.seqs[ev.Stream]
			if set == nil {
				set = map[uint64]bool{}
				sub.seqs[ev.Stream] = set
			}
			if len(set) < maxTracked {
				set[ev.Seq] = true
			}
		}
	}
}

// serverLook is one look at the server's client subscriptions (see
// snapshot.clientSubs).
type serverLook struct {
	boot     string
	subs     []server.SubDetail
	imported map[subID]map[string]int64
	users    map[uint64]string // client connection → user
	// published holds, for the accounts a check asked about, the messages
	// their clients have published since the server started.
	published map[string]int64
	// stored holds, for the streams the episode's checks ask about (see
	// ReceivedCheck.WhileStored), their last sequences, read after subs.
	stored map[string]uint64
}

// sampleSubs records the server's client subscriptions and their counts.
func (o *observations) sampleSubs(look serverLook) {
	o.mu.Lock()
	defer o.mu.Unlock()
	present := make(map[*subscriber]bool, len(look.subs))
	known := o.knownSent()
	for _, sd := range look.subs {
		k := subKey{look.boot, sd.Cid, sd.Sid}
		sub := o.seen[k]
		if sub == nil {
			sub = newSubscriber(sd.Subject, sd.Queue)
			sub.account, sub.user = sd.Account, look.users[sd.Cid]
			sub.pubBase, sub.countBase = known, sd.Msgs
			o.seen[k] = sub
			o.order = append(o.order, sub)
		}
		sub.count = max(sub.count, sd.Msgs)
		// At every look, not only when the count grows: the checker hears
		// a message a moment after the server delivered it.
		o.attribute(sub, known)
		for exporter, n := range look.imported[subID{sd.Cid, sd.Sid}] {
			sub.from[exporter] = max(sub.from[exporter], n)
		}
		for acc, n := range look.published {
			if _, ok := sub.pubFirst[acc]; !ok {
				sub.pubFirst[acc] = n
			}
			sub.pubLast[acc] = n
		}
		for stream, seq := range look.stored {
			if _, ok := sub.storedFirst[stream]; !ok {
				sub.storedFirst[stream] = seq
			}
			sub.storedLast[stream] = seq
		}
		present[sub] = true
	}
	for _, sub := range o.order {
		if sub.ended == 0 && !present[sub] {
			o.endLocked(sub, o.order)
		}
	}
}

// endLocked marks sub as gone, remembering what every subscriber of its
// view had received then. o.mu is held.
func (o *observations) endLocked(sub *subscriber, view []*subscriber) {
	if sub.ended != 0 {
		return
	}
	o.ends++
	sub.ended = o.ends
	sub.endViews = make(map[*subscriber]subscriberView, len(view))
	for _, s := range view {
		sub.endViews[s] = s.view()
	}
}

// advisory records one JetStream advisory by its subject, and for a
// max-deliveries advisory the stream sequence of the message given up on.
func (o *observations) advisory(subject string, body []byte) {
	// $JS.EVENT.ADVISORY.CONSUMER.<EVENT>.<stream>.<consumer>
	t := strings.Split(subject, ".")
	if len(t) < 7 || t[3] != "CONSUMER" {
		return
	}
	stream, consumer := t[5], strings.Join(t[6:], ".")
	var dead struct {
		StreamSeq uint64 `json:"stream_seq"`
	}
	if t[4] == "MAX_DELIVERIES" {
		_ = json.Unmarshal(body, &dead) // one it cannot read names no sequence
	}
	o.mu.Lock()
	o.advisories[t[4]+" "+stream+" "+consumer]++
	if dead.StreamSeq > 0 {
		addSeq(o.givenUp, stream+" "+consumer, dead.StreamSeq)
	}
	o.mu.Unlock()
}

// createKey counts consumer creations by stream and filter subject.
type createKey struct{ stream, filter string }

// apiAudit records a consumer creation that the server's API audit
// advisory ($JS.EVENT.ADVISORY.API) reports, with the subjects it filters
// on: in the request's subject ($JS.API.CONSUMER.CREATE.<stream>.<name>.
// <filter>), else in its configuration (">" when it has none). A creation
// the server refused is not one.
func (o *observations) apiAudit(body []byte) {
	var a struct {
		Subject  string `json:"subject"`
		Request  string `json:"request"`
		Response string `json:"response"`
	}
	if json.Unmarshal(body, &a) != nil {
		return
	}
	rest, ok := strings.CutPrefix(a.Subject, "$JS.API.CONSUMER.CREATE.")
	if !ok {
		if rest, ok = strings.CutPrefix(a.Subject, "$JS.API.CONSUMER.DURABLE.CREATE."); !ok {
			return
		}
	}
	var resp struct {
		Error *struct{} `json:"error"`
	}
	if json.Unmarshal([]byte(a.Response), &resp) != nil || resp.Error != nil {
		return
	}
	t := strings.SplitN(rest, ".", 3)
	var filters []string
	if len(t) == 3 && strings.HasPrefix(a.Subject, "$JS.API.CONSUMER.CREATE.") {
		filters = []string{t[2]}
	} else {
		var req struct {
			Config struct {
				FilterSubject  string   `json:"filter_subject"`
				FilterSubjects []string `json:"filter_subjects"`
			} `json:"config"`
		}
		if json.Unmarshal([]byte(a.Request), &req) == nil {
			filters = append(filters, req.Config.FilterSubjects...)
			if req.Config.FilterSubject != "" {
				filters = append(filters, req.Config.FilterSubject)
			}
		}
		if len(filters) == 0 {
			filters = []string{">"}
		}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, f := range filters {
		o.creates[createKey{t[0], f}]++
	}
}

// createdCount counts the consumers created on stream whose filters lie
// within pattern.
func (o *observations) createdCount(stream, pattern string) int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	var n int64
	for k, c := range o.creates {
		if k.stream == stream && server.SubjectMatchesFilter(k.filter, pattern) {
			n += c
		}
	}
	return n
}

func (o *observations) advisoryCount(event, stream, consumer string) int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	var n int64
	for k, c := range o.advisories {
		f := strings.SplitN(k, " ", 3)
		if f[0] == event && (stream == "" || f[1] == stream) && (consumer == "" || f[2] == consumer) {
			n += c
		}
	}
	return n
}

// publishedKey is what a PublishedCheck counts by: its pattern and header.
func publishedKey(c *PublishedCheck) PublishedCheck {
	return PublishedCheck{Subject: c.Subject, Header: c.Header}
}

// publish records one message the checker's subscription on pattern saw
// reach the server, for each published check on that pattern it satisfies.
func (o *observations) publish(pattern string, header map[string][]string, checks []PublishedCheck) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, c := range checks {
		if c.Subject != pattern {
			continue
		}
		if c.Header != "" {
			k, v, _ := strings.Cut(c.Header, ":")
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			if !hasHeader(header, k, v) {
				for name, vals := range header {
					if strings.EqualFold(name, k) && slices.Contains(vals, v) {
						o.misspelt[c] = name
					}
				}
				continue
			}
		}
		o.published[c]++
	}
}

// hasHeader looks a header up by its exact name: NATS header names are
// case-sensitive, so Nats-Msg-ID is not Nats-Msg-Id.
func hasHeader(h map[string][]string, name, value string) bool {
	for _, v := range h[name] {
		if v == value {
			return true
		}
	}
	return false
}

// publishedCount is how many messages a published check counted, and a
// header name it saw spelt otherwise.
func (o *observations) publishedCount(c *PublishedCheck) (int64, string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.published[publishedKey(c)], o.misspelt[publishedKey(c)]
}

// publishedCounts is a copy of every published check's count so far.
func (o *observations) publishedCounts() map[PublishedCheck]int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return maps.Clone(o.published)
}

// rejectedCount is how many JetStream publishes stream refused with the
// error code (0: any), and what it refused with other codes.
func (o *observations) rejectedCount(stream string, code uint16) (n, other int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for k, c := range o.rejected {
		switch {
		case k.stream != stream:
		case code == 0 || k.code == code:
			n += c
		default:
			other += c
		}
	}
	return n, other
}

// viaMapping is, per lab subscriber, the messages it received on each
// subject that a publish the lab saw can account for through a mapping:
// dests gives the subjects the mapping turns a published subject into
// (none when it does not map it). A received subject counts at most as
// often as the lab's pub sent, while the subscriber ran, on subjects that
// map to it; a message published on the mapped subject itself is not one.
func (o *observations) viaMapping(dests func(subject string) []string) map[*subscriber]map[string]int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make(map[*subscriber]map[string]int64, len(o.lab))
	for _, sub := range o.lab {
		credit := map[string]int64{}
		for subj, n := range sub.sent {
			for _, d := range dests(subj) {
				credit[d] += n
			}
		}
		got := map[string]int64{}
		for subj, n := range sub.subjects {
			if c := min(n, credit[subj]); c > 0 {
				got[subj] = c
			}
		}
		out[sub] = got
	}
	return out
}

// sentAsIs reports whether the lab's pub, while a lab subscriber on filter
// ran, sent a message on a subject that subscriber received and wanted
// accepts: a message published on its destination subject itself, which no
// mapping touched.
func (o *observations) sentAsIs(filter string, wanted func(subject string) bool) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, sub := range o.lab {
		if filter != "" && sub.filter != filter {
			continue
		}
		for subj, n := range sub.sent {
			if n > 0 && sub.subjects[subj] > 0 && wanted(subj) {
				return true
			}
		}
	}
	return false
}

// ackKey counts acknowledgements per consumer, apart by whether they
// asked for the server's confirmation.
type ackKey struct {
	stream, consumer string
	confirmed        bool
}

// ack records one message on a consumer's ack subject: an acknowledgement
// if its body is empty or +ACK (naks, terms and progress reports are not).
func (o *observations) ack(subject, reply string, body []byte) {
	if len(body) > 0 && !strings.HasPrefix(string(body), "+ACK") {
		return
	}
	// $JS.ACK.<stream>.<consumer>.<delivered>.<sseq>.<dseq>.<ts>.<pending>,
	// or with a domain and an account hash after ACK (and a token more).
	t := strings.Split(subject, ".")
	var stream, consumer, sseq string
	switch {
	case len(t) == 9:
		stream, consumer, sseq = t[2], t[3], t[5]
	case len(t) >= 11:
		stream, consumer, sseq = t[4], t[5], t[7]
	default:
		return
	}
	o.mu.Lock()
	o.acks[ackKey{stream, consumer, reply != ""}]++
	if n, err := strconv.ParseUint(sseq, 10, 64); err == nil {
		addSeq(o.ackedSeqs, stream+" "+consumer, n)
	}
	o.mu.Unlock()
}

// addSeq adds seq to the set of key, up to maxTracked sequences.
func addSeq(m map[string]map[uint64]bool, key string, seq uint64) {
	set := m[key]
	if set == nil {
		set = map[uint64]bool{}
		m[key] = set
	}
	if len(set) < maxTracked {
		set[seq] = true
	}
}

// ackedGivenUp reports, for consumer of stream, the stream sequences
// giver gave up on (in order), and whether consumer has acknowledged
// one of them.
func (o *observations) ackedGivenUp(stream, consumer, giver string) (dead []uint64, acked bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for seq := range o.givenUp[stream+" "+giver] {
		dead = append(dead, seq)
		acked = acked || o.ackedSeqs[stream+" "+consumer][seq]
	}
	slices.Sort(dead)
	return dead, acked
}

func (o *observations) ackCount(stream, consumer string, confirmedOnly bool) int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := o.acks[ackKey{stream, consumer, true}]
	if !confirmedOnly {
		n += o.acks[ackKey{stream, consumer, false}]
	}
	return n
}

// views returns copies of the two views of subscribers, for a check to
// count without holding the lock.
func (o *observations) views() (lab, server []subscriberView) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, s := range o.lab {
		lab = append(lab, s.view())
	}
	for _, s := range o.order {
		server = append(server, s.view())
	}
	return lab, server
}

// subscriberView is a copy of a subscriber at one moment.
type subscriberView struct {
	id            *subscriber
	filter, queue string
	account, user string
	from          map[string]int64
	// meanwhile: messages each account published while the subscription
	// was there (as far as the looks at the server saw it); stored, the
	// messages each stream stored meanwhile.
	meanwhile  map[string]int64
	stored     map[string]int64
	ended      uint64
	endViews   map[*subscriber]subscriberView // read only
	count      int64
	subjects   map[string]int64
	seqs       map[string]map[uint64]bool
	fromStream map[string]int64
}

func (s *subscriber) view() subscriberView {
	v := subscriberView{id: s, filter: s.filter, queue: s.queue, account: s.account, user: s.user, from: maps.Clone(s.from), meanwhile: map[string]int64{}, stored: map[string]int64{}, ended: s.ended, endViews: s.endViews, count: s.count,
		subjects: make(map[string]int64, len(s.subjects)), seqs: map[string]map[uint64]bool{}, fromStream: map[string]int64{}}
	for k, n := range s.subjects {
		v.subjects[k] = n
	}
	for st, set := range s.seqs {
		c := make(map[uint64]bool, len(set))
		for q := range set {
			c[q] = true
		}
		v.seqs[st] = c
	}
	for k, n := range s.fromStream {
		v.fromStream[k] = n
	}
	for acc, n := range s.pubLast {
		v.meanwhile[acc] = n - s.pubFirst[acc]
	}
	for stream, seq := range s.storedLast {
		// A stream made again starts its sequences over: nothing counts
		// as stored since then until it passes where it was.
		v.stored[stream] = int64(seq) - int64(min(seq, s.storedFirst[stream]))
	}
	return v
}

// unheardCounter counts messages that entered the server while no client
// subscription could receive them. It compares the clients' inbound message
// counters between two samples; when neither sample saw a listener, what
// came in between went unheard. Samples come after every command and once
// a second, so a publish in the same second as the last listener leaving
// (from another terminal) is not counted: the next one is.
type unheardCounter struct {
	started bool
	quiet   bool
	in      map[connKey]int64
	count   int64
}

type connKey struct {
	boot string
	cid  uint64
}

// sampleUnheard updates the counter for subject with the clients' inbound
// counters (open and recently closed connections) and whether anything
// listens now.
func (o *observations) sampleUnheard(subject string, boot string, in map[uint64]int64, listening bool) int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	u := o.unheard[subject]
	if u == nil {
		u = &unheardCounter{in: map[connKey]int64{}}
		o.unheard[subject] = u
	}
	var grew int64
	for cid, n := range in {
		k := connKey{boot, cid}
		prev, known := u.in[k]
		if !known && !u.started {
			prev = n // already there when counting began: not news
		}
		if n > prev {
			grew += n - prev
		}
		u.in[k] = n
	}
	if u.started && u.quiet && !listening {
		u.count += grew
	}
	u.started, u.quiet = true, !listening
	return u.count
}

// restartUnheard forgets the counts, so a step counts from when it began.
func (o *observations) restartUnheard() {
	o.mu.Lock()
	o.unheard = map[string]*unheardCounter{}
	o.mu.Unlock()
}

// hadStopped reports whether a plain subscriber of the lab's on subject
// has ended.
func (o *observations) hadStopped(subject string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.stopped[subject]
}

// hear records a message the checker saw reach the server on subject.
func (o *observations) hear(subject string) {
	o.mu.Lock()
	countBounded(o.heard, subject, maxPubSubjects)
	o.mu.Unlock()
}

// knownSent is, per subject, what is known to have reached the server: what
// the lab's pub sent, or what the checker heard, whichever is more (the
// checker hears the lab's pub too, a moment later). o.mu is held.
func (o *observations) knownSent() map[string]int64 {
	known := maps.Clone(o.pubs)
	for subj, n := range o.heard {
		known[subj] = max(known[subj], n)
	}
	return known
}

// attribute gives a server subscription, which the server counts but
// whose subjects it does not keep (a nats CLI in another terminal), the
// subjects of what reached the server that it matches (known: the lab's
// publishes, what the checker heard), when the messages it had since it
// was first seen are exactly those: anything else (a publish the lab
// neither sent nor heard, a queue group's share) leaves its subjects
// unknown. o.mu is held.
func (o *observations) attribute(sub *subscriber, known map[string]int64) {
	if sub.pubBase == nil || sub.queue != "" {
		return
	}
	var matching int64
	got := map[string]int64{}
	for subj, n := range known {
		if d := n - sub.pubBase[subj]; d > 0 && server.SubjectMatchesFilter(subj, sub.filter) {
			matching += d
			got[subj] = d
		}
	}
	if matching > 0 && sub.count-sub.countBase == matching {
		sub.subjects = got
	}
}
