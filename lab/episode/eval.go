package episode

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker/text"
)

// mark is what the lab knew when a step was done, for checks that speak of
// "since the previous step".
type mark struct {
	boot      string
	views     map[*subscriber]subscriberView
	leaders   map[string]string
	published map[PublishedCheck]int64 // by publishedKey
}

// check evaluates one Check: ok, or why not in words that name what the
// broker's state lacks.
func (s *snapshot) check(c Check, prev mark) (bool, string) {
	type part func() (bool, string)
	var parts []part
	if c.JetStream != nil {
		parts = append(parts, func() (bool, string) { return s.checkJetStream(*c.JetStream) })
	}
	if c.Restarted {
		parts = append(parts, func() (bool, string) { return s.checkRestarted(prev) })
	}
	if c.Subscriptions != nil {
		parts = append(parts, func() (bool, string) { return s.checkSubs(c.Subscriptions) })
	}
	if c.Received != nil {
		parts = append(parts, func() (bool, string) { return s.checkReceived(c.Received, prev) })
	}
	if c.Unheard != nil {
		parts = append(parts, func() (bool, string) { return s.checkUnheard(c.Unheard) })
	}
	if c.Stream != nil {
		parts = append(parts, func() (bool, string) { return s.checkStream(c.Stream, prev) })
	}
	if c.Consumer != nil {
		parts = append(parts, func() (bool, string) { return s.checkConsumer(c.Consumer) })
	}
	if c.Messages != nil {
		parts = append(parts, func() (bool, string) { return s.checkMessages(c.Messages) })
	}
	if c.Replayed != nil {
		parts = append(parts, func() (bool, string) { return s.checkReplayed(c.Replayed) })
	}
	if c.Advisory != nil {
		parts = append(parts, func() (bool, string) { return s.checkAdvisory(c.Advisory) })
	}
	if c.KV != nil {
		parts = append(parts, func() (bool, string) { return s.checkKV(c.KV) })
	}
	if c.Published != nil {
		parts = append(parts, func() (bool, string) { return s.checkPublished(c.Published, prev) })
	}
	if c.Acks != nil {
		parts = append(parts, func() (bool, string) { return s.checkAcks(c.Acks) })
	}
	if c.Object != nil {
		parts = append(parts, func() (bool, string) { return s.checkObject(c.Object) })
	}
	if c.Leaf != nil {
		parts = append(parts, func() (bool, string) { return s.checkLeaf(c.Leaf) })
	}
	if c.Service != nil {
		parts = append(parts, func() (bool, string) { return s.checkService(c.Service) })
	}
	if c.Refused != nil {
		parts = append(parts, func() (bool, string) { return s.checkRefused(c.Refused) })
	}
	if c.Rejected != nil {
		parts = append(parts, func() (bool, string) { return s.checkRejected(c.Rejected) })
	}
	if c.Mapping != nil {
		parts = append(parts, func() (bool, string) { return s.checkMapping(c.Mapping) })
	}
	if c.Account != nil {
		parts = append(parts, func() (bool, string) { return s.checkAccount(c.Account) })
	}
	if c.Import != nil {
		parts = append(parts, func() (bool, string) { return s.checkImport(c.Import) })
	}
	for _, p := range parts {
		if ok, why := p(); !ok {
			return false, why
		}
	}
	return true, ""
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func (s *snapshot) checkJetStream(want bool) (bool, string) {
	if s.ns == nil && s.l.env.Deployment.Own() {
		return false, "the server is not running right now"
	}
	if got := s.jetStreamOn(); got != want {
		return false, "JetStream is " + onOff(got)
	}
	return true, ""
}

func (s *snapshot) checkRestarted(prev mark) (bool, string) {
	b := s.boot()
	if b == "" {
		return false, "the server is not running right now"
	}
	if b == prev.boot {
		return false, "the server has not restarted since the previous step"
	}
	return true, ""
}

func (s *snapshot) checkSubs(c *SubsCheck) (bool, string) {
	if s.ns == nil {
		return false, "the server is not running right now"
	}
	subs := s.clientSubs()
	var n, outside int64
	var on, strays []string
	others := map[string]int64{}
	for _, sd := range subs {
		if strings.HasPrefix(sd.Subject, "_INBOX.") || c.Account != "" && sd.Account != c.Account {
			continue
		}
		match := sd.Subject == c.Subject
		if c.Matches != "" {
			match = server.SubjectMatchesFilter(c.Matches, sd.Subject)
		}
		if match && (c.Queue == nil || sd.Queue == *c.Queue) {
			n++
			on = append(on, describeSub(sd.Subject, sd.Queue))
			continue
		}
		if match {
			outside++
			strays = append(strays, describeSub(sd.Subject, sd.Queue))
		}
		others[describeSub(sd.Subject, sd.Queue)]++
	}
	want := c.Count.Or(">=1")
	if want.Holds(n) && c.Others.Holds(outside) {
		return true, ""
	}
	what := c.Subject
	if c.Matches != "" {
		what = c.Matches
	}
	if c.Account != "" {
		what += " in account " + c.Account
	}
	if want.Holds(n) {
		sort.Strings(strays)
		group := "no queue group"
		if c.Queue != nil && *c.Queue != "" {
			group = "queue group " + *c.Queue
		}
		return false, fmt.Sprintf("%s on %s outside %s (%s), wants %s: each gets its own copy of every message", text.Count(outside, "subscription", "subscriptions"), what, group, strings.Join(strays, "; "), c.Others.Want())
	}
	var why string
	switch {
	case c.Queue != nil && *c.Queue != "":
		why = fmt.Sprintf("queue group %s on %s has %s, wants %s", *c.Queue, what, text.Count(n, "member", "members"), want.Want())
	case n == 0:
		why = "nothing subscribes to " + what
	case c.Matches != "":
		sort.Strings(on)
		verb := "receives"
		if n > 1 {
			verb = "receive"
		}
		why = fmt.Sprintf("%s (on %s) still %s %s, wants %s", text.Count(n, "subscription", "subscriptions"), strings.Join(on, ", "), verb, what, want.Want())
	default:
		why = fmt.Sprintf("%s on %s, wants %s", text.Count(n, "subscription", "subscriptions"), what, want.Want())
	}
	if len(others) > 0 && n < want.n {
		keys := make([]string, 0, len(others))
		for k, m := range others {
			if m > 1 {
				k = fmt.Sprintf("%s ×%d", k, m)
			}
			keys = append(keys, k)
		}
		sort.Strings(keys)
		why += " (subscriptions: " + strings.Join(keys, "; ") + ")"
	}
	return false, why
}

func describeSub(subject, queue string) string {
	if queue != "" {
		return subject + " in queue group " + queue
	}
	return subject
}

// tally is what one view of the subscribers adds up to for a check.
type tally struct {
	count     int64
	members   int64
	subjects  map[string]bool
	outsiders map[string]int64 // "subject in queue group q" → messages
	exposed   int64            // with WhilePublished: subscribers there while it published
}

// filterCount is what the subscribers on filter ("" for any) received in
// all.
func filterCount(view []subscriberView, filter string) int64 {
	var n int64
	for _, v := range view {
		if filter == "" || v.filter == filter {
			n += v.count
		}
	}
	return n
}

// wants reports whether a message on subject is one the check counts.
func (rc *ReceivedCheck) wants(subject string) bool {
	switch {
	case len(rc.Subjects) > 0:
		return slices.Contains(rc.Subjects, subject)
	case rc.Subject != "":
		return server.SubjectMatchesFilter(subject, rc.Subject)
	}
	return true
}

func (rc *ReceivedCheck) measure(v subscriberView) int64 {
	switch {
	case rc.From != "":
		return v.from[rc.From]
	case rc.Stream != "":
		return v.fromStream[rc.Stream]
	case rc.Subject != "":
		var n int64
		for subj, c := range v.subjects {
			if server.SubjectMatchesFilter(subj, rc.Subject) {
				n += c
			}
		}
		return n
	}
	return v.count
}

func (rc *ReceivedCheck) tally(view []subscriberView, prev mark) tally {
	t := tally{subjects: map[string]bool{}, outsiders: map[string]int64{}}
	base := rc.fixed(view)
	for _, v := range view {
		if rc.Filter != "" && v.filter != rc.Filter || rc.Account != "" && v.account != rc.Account || rc.User != "" && v.user != rc.User {
			continue
		}
		if rc.WhilePublished != "" {
			if v.meanwhile[rc.WhilePublished] <= 0 {
				continue
			}
			t.exposed++
		}
		n, before := rc.measure(v), int64(0)
		stored, storedBefore := v.stored[rc.WhileStored], int64(0)
		if rc.Since {
			if p, ok := prev.views[v.id]; ok {
				before, storedBefore = rc.measure(p), p.stored[rc.WhileStored]
			}
		}
		if b, ok := base[v.id]; ok {
			before = max(before, rc.measure(b))
		}
		n -= before
		if rc.WhileStored != "" {
			n = min(n, stored-storedBefore)
		}
		if rc.Queue != "" && v.queue != rc.Queue {
			if n > 0 {
				t.outsiders[describeSub(v.filter, v.queue)] += n
			}
			continue
		}
		t.count += n
		if n > 0 {
			t.members++
		}
		for _, subj := range rc.Subjects {
			if v.subjects[subj] > 0 {
				t.subjects[subj] = true
			}
		}
	}
	return t
}

// fixed is, for an exclusive check, what every subscriber had received
// when the last subscriber outside the queue group stopped: the moment the
// learner fixed a stray group. Counting starts there, so what a stopped
// stray got earlier no longer holds the step back. nil when no outsider
// has stopped.
func (rc *ReceivedCheck) fixed(view []subscriberView) map[*subscriber]subscriberView {
	if !rc.Exclusive {
		return nil
	}
	var base map[*subscriber]subscriberView
	var latest uint64
	for _, v := range view {
		if (rc.Filter != "" && v.filter != rc.Filter) || v.queue == rc.Queue {
			continue
		}
		if v.ended > latest {
			latest, base = v.ended, v.endViews
		}
	}
	return base
}

// lookAtSubs records what the server delivered to every client
// subscription (a real nats CLI's, a scene's) for rc to count. Every look
// at a step with rc takes it, before any of the step's checks, as one that
// fails first does not stop it: what a subscription had when first seen
// is what later counts start from.
func (s *snapshot) lookAtSubs(rc *ReceivedCheck) {
	if s.ns != nil {
		subs := s.clientSubs() // before reading what it fills in
		look := serverLook{boot: s.boot(), subs: subs, imported: s.imported, users: s.users}
		if acc := rc.WhilePublished; acc != "" {
			if st, ok, err := s.ns.Account(acc); err == nil && ok {
				look.published = map[string]int64{acc: st.Published}
			}
		}
		// Read after the subscriptions: a message stored between the two
		// reads counts as stored before a subscription first seen now.
		for _, name := range s.l.whileStored {
			if info, _ := s.stream(name); info != nil {
				if look.stored == nil {
					look.stored = map[string]uint64{}
				}
				look.stored[name] = info.State.LastSeq
			}
		}
		s.l.obs.sampleSubs(look)
	}
}

func (s *snapshot) checkReceived(rc *ReceivedCheck, prev mark) (bool, string) {
	lab, srv := s.l.obs.views()
	var direct []subscriberView // with Mapped: the lab's views as received, mapped or not
	if rc.Mapped != "" {
		via, why := s.viaMapping(rc.Mapped)
		if via == nil {
			return false, why
		}
		direct = lab
		lab = mappedViews(lab, via)
	}
	views := [][]subscriberView{lab}
	switch {
	case rc.Mapped != "": // only the lab pairs publishes with deliveries
	case rc.Account != "" || rc.User != "":
		views = [][]subscriberView{srv} // only the server knows whose they are
	case rc.WhileStored != "":
		views = [][]subscriberView{srv} // only the looks at the server know when they came
	case rc.Stream == "" && rc.Subject == "" && len(rc.Subjects) == 0:
		views = append(views, srv) // the server's counts know no subjects
	case rc.Stream == "":
		// The server's subscriptions with the subjects of the lab's
		// publishes they took, where their counts tell (a nats CLI's).
		views = append(views, srv)
	}
	want := rc.Count.Or(">=1")
	var best tally
	okAny := false
	outsiders := map[string]int64{}
	for i, view := range views {
		t := rc.tally(view, prev)
		for k, n := range t.outsiders {
			outsiders[k] = max(outsiders[k], n)
		}
		ok := want.Holds(t.count) && rc.Members.Holds(t.members) && len(t.subjects) == len(rc.Subjects) && (rc.WhilePublished == "" || t.exposed > 0)
		if ok && !okAny {
			okAny, best = true, t
		}
		if !okAny && (i == 0 || t.count > best.count) {
			best = t
		}
	}
	if okAny && (!rc.Exclusive || len(outsiders) == 0) {
		return true, ""
	}
	if rc.Exclusive && len(outsiders) > 0 {
		// A copy outside the group is the fault to name first: however
		// the members shared, every message was handled twice.
		var parts []string
		for k, n := range outsiders {
			parts = append(parts, fmt.Sprintf("%s got %d", k, n))
		}
		sort.Strings(parts)
		return false, fmt.Sprintf("subscribers outside queue group %s received the same messages (%s): each group, and each plain subscriber, gets its own copy", rc.Queue, strings.Join(parts, "; "))
	}
	who := "subscribers"
	switch {
	case rc.Stream != "" && rc.Filter == "" && rc.Queue == "":
		// consumer next is how a stream's messages are read here, and
		// a learner who ran it has no subscriber in mind.
		who = "readers"
	case rc.Filter != "" && rc.Queue != "":
		who = "subscribers on " + rc.Filter + " in queue group " + rc.Queue
	case rc.Filter != "":
		who = "subscribers on " + rc.Filter
	case rc.Queue != "":
		who = "queue group " + rc.Queue
	}
	switch {
	case rc.Account != "":
		who = strings.Replace(who, "subscribers", "subscribers of account "+rc.Account, 1)
	case rc.User != "":
		who = strings.Replace(who, "subscribers", "subscribers of user "+rc.User, 1)
	}
	if rc.WhilePublished != "" && best.exposed == 0 {
		return false, fmt.Sprintf("clients of account %s have not published while %s listened", rc.WhilePublished, who)
	}
	what := text.Plural(best.count, "message", "messages")
	switch {
	case rc.From != "":
		what += " from account " + rc.From
	case rc.Stream != "":
		what += " from stream " + rc.Stream
	case rc.Subject != "":
		what += " on " + rc.Subject
	case rc.WhileStored != "":
		what += " stored in " + rc.WhileStored + " while they listened"
	}
	since, via, skipped := "", "", ""
	if rc.Since {
		since = " since the previous step"
	}
	if rc.Mapped != "" {
		via = " through the mapping of " + rc.Mapped
		if t := rc.tally(direct, prev); want.Holds(t.count) && len(t.subjects) == len(rc.Subjects) {
			got := "what they received"
			switch {
			case len(rc.Subjects) > 0:
				got = strings.Join(rc.Subjects, ", ")
			case rc.Subject != "":
				got = rc.Subject
			}
			if s.l.obs.sentAsIs(rc.Filter, rc.wants) {
				skipped = fmt.Sprintf("; %s arrived, but published as it is, which skips the mapping: publish on a subject %s matches", got, rc.Mapped)
			} else {
				// The server keeps no record of the subject a message was
				// published on; the lab knows it only for its own pub.
				skipped = fmt.Sprintf("; %s arrived, but not from a pub typed here: the lab cannot see which subject another client (a nats CLI elsewhere, a pub with --context or --server) published on; publish here, on a subject %s matches", got, rc.Mapped)
			}
		} else if n := filterCount(srv, rc.Filter) - filterCount(direct, rc.Filter); n > 0 {
			// The server counted deliveries the lab's own subscribers
			// did not get: a subscriber it did not start, whose
			// subjects it cannot see.
			skipped = fmt.Sprintf("; a subscriber the lab did not start received %s, but the lab sees the subjects only of what its own sub receives: subscribe here, in the lab's pane", text.Count(n, "message", "messages"))
		}
	} else if (len(rc.Subjects) > 0 || rc.Subject != "") && rc.Stream == "" {
		// Which subjects reached a nats CLI in another terminal, the
		// server does not say: it counts them, and the lab pairs the
		// count with its own publishes only where they account for all.
		if n := filterCount(srv, rc.Filter) - filterCount(lab, rc.Filter); n > 0 {
			skipped = fmt.Sprintf("; a subscriber the lab did not start received %s, but the lab cannot tell their subjects (it can when all of them came from a pub typed here after the subscriber started): subscribe here, in the lab's pane", text.Count(n, "message", "messages"))
		}
	}
	switch {
	case !want.Holds(best.count):
		return false, fmt.Sprintf("%s received %d %s%s%s, wants %s", who, best.count, what, via, since, want.Want()) + skipped + s.stopped(rc) + s.refusedWhy("subscribe", rc.Filter)
	case !rc.Members.Holds(best.members):
		one, many, of := "subscriber", "subscribers", ""
		switch {
		case rc.Queue != "":
			one, many, of = "member", "members", " of queue group "+rc.Queue
		case rc.Stream != "":
			one, many = "reader", "readers"
		}
		if rc.Filter != "" {
			of += " on " + rc.Filter
		}
		return false, fmt.Sprintf("%s%s went to %s%s, wants %s", what, since, text.Count(best.members, one, many), of, rc.Members.Want())
	case len(best.subjects) < len(rc.Subjects):
		var missing []string
		for _, subj := range rc.Subjects {
			if !best.subjects[subj] {
				missing = append(missing, subj)
			}
		}
		return false, fmt.Sprintf("%s have not received %s%s yet", who, strings.Join(missing, ", "), via) + skipped + s.stopped(rc)
	}
	return true, ""
}

// stopped says so when a subscriber of the lab's on the check's filter
// has stopped (ctrl+c, stop) and no client (but a scene's) subscribes to
// it now: publishing again does not help. "" for
// queue groups (whose members come and go) and counts by account or user.
func (s *snapshot) stopped(rc *ReceivedCheck) string {
	if rc.Filter == "" || rc.Queue != "" || rc.Account != "" || rc.User != "" || s.ns == nil || !s.l.obs.hadStopped(rc.Filter) {
		return ""
	}
	for _, sd := range s.clientSubs() {
		if sd.Subject == rc.Filter {
			return ""
		}
	}
	return fmt.Sprintf("; your subscriber on %s has stopped: start it again", rc.Filter)
}

// viaMapping is, per lab subscriber, what came to it through the server's
// mapping of source (see observations.viaMapping); nil and why when the
// server maps no such subject.
func (s *snapshot) viaMapping(source string) (map[*subscriber]map[string]int64, string) {
	if s.ns == nil {
		return nil, "the server is not running right now"
	}
	all, err := s.ns.Mappings()
	if err != nil {
		return nil, fmt.Sprintf("the server does not say its mappings: %v", err)
	}
	var trs []server.SubjectTransformer
	for _, d := range all[source] {
		if tr, err := server.NewSubjectTransform(source, d.Subject); err == nil {
			trs = append(trs, tr)
		}
	}
	if len(trs) == 0 {
		return nil, fmt.Sprintf("the server maps no subject %s now, so nothing reaches a subscriber through that mapping", source)
	}
	return s.l.obs.viaMapping(func(subject string) []string {
		var out []string
		for _, tr := range trs {
			if d, err := tr.Match(subject); err == nil && !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
		return out
	}), ""
}

// mappedViews is the lab's views with only what came through a mapping:
// via, per subscriber, the subjects and counts it received that way.
func mappedViews(lab []subscriberView, via map[*subscriber]map[string]int64) []subscriberView {
	out := make([]subscriberView, 0, len(lab))
	for _, v := range lab {
		v.subjects, v.count = via[v.id], 0
		if v.subjects == nil {
			v.subjects = map[string]int64{}
		}
		for _, n := range v.subjects {
			v.count += n
		}
		out = append(out, v)
	}
	return out
}

func (s *snapshot) checkUnheard(c *UnheardCheck) (bool, string) {
	if s.ns == nil {
		return false, "the server is not running right now"
	}
	var listeners []string
	for _, sd := range s.clientSubs() {
		if server.SubjectsCollide(sd.Subject, c.Subject) {
			listeners = append(listeners, describeSub(sd.Subject, sd.Queue))
		}
	}
	app := false
	for _, sd := range s.appSubs {
		if server.SubjectsCollide(sd.Subject, c.Subject) {
			listeners = append(listeners, sd.Subject+" for the scene's app")
			app = true
		}
	}
	for _, sh := range s.shadows { // a stream import listens for its importer
		if server.SubjectsCollide(sh.Subject, c.Subject) {
			listeners = append(listeners, sh.Subject+" for account "+sh.Importer+"'s import")
		}
	}
	listeners = append(listeners, leafListens(s.ns, c.Subject)...)
	n := s.l.obs.sampleUnheard(c.Subject, s.boot(), s.clientConns(true), len(listeners) > 0)
	want := c.Count.Or(">=1")
	if want.Holds(n) {
		return true, ""
	}
	if len(listeners) > 0 {
		sort.Strings(listeners)
		who := "a subscriber still listens"
		if app && len(listeners) == 1 {
			return false, fmt.Sprintf("the scene's app still listens to %s, so what is published there is heard: offline takes it away", c.Subject)
		}
		if len(listeners) > 1 {
			who = fmt.Sprintf("%d subscribers still listen", len(listeners))
		}
		on := ""
		if len(listeners) > 1 || listeners[0] != c.Subject {
			on = " (on " + strings.Join(listeners, ", ") + ")"
		}
		return false, fmt.Sprintf("%s to %s%s, so what is published there is heard", who, c.Subject, on)
	}
	return false, fmt.Sprintf("%s reached the server while nothing listened to %s, wants %s", text.Count(n, "message", "messages"), c.Subject, want.Want())
}

func (s *snapshot) checkStream(c *StreamCheck, prev mark) (bool, string) {
	info, why := s.stream(c.Name)
	if c.Absent {
		if info == nil && strings.HasPrefix(why, "there is no stream") {
			return true, ""
		}
		if info != nil {
			return false, fmt.Sprintf("stream %s still exists", c.Name)
		}
		return false, why
	}
	if c.Lost {
		switch {
		case info == nil && strings.HasPrefix(why, "there is no stream"):
			return true, ""
		case info == nil:
			return false, why
		case Nodes(s.l.env.Deployment) == 1:
			return false, fmt.Sprintf("stream %s still exists", c.Name)
		case info.State.Msgs > 0:
			return false, fmt.Sprintf("stream %s still holds %s", c.Name, text.Count(info.State.Msgs, "message", "messages"))
		}
		return true, ""
	}
	if info == nil {
		return false, why
	}
	cfg, st := info.Config, info.State
	name := "stream " + c.Name
	for _, subj := range c.Subjects {
		found := false
		for _, have := range cfg.Subjects {
			found = found || have == subj
		}
		if !found {
			return false, fmt.Sprintf("%s captures %s, not %s", name, listOr(cfg.Subjects, "no subjects"), subj)
		}
	}
	if c.Captures != "" {
		found := false
		for _, have := range cfg.Subjects {
			found = found || server.SubjectMatchesFilter(c.Captures, have)
		}
		if !found {
			return false, fmt.Sprintf("%s captures %s, which does not include %s", name, listOr(cfg.Subjects, "no subjects"), c.Captures)
		}
	}
	if c.Ignores != "" {
		for _, have := range cfg.Subjects {
			if server.SubjectMatchesFilter(c.Ignores, have) {
				return false, fmt.Sprintf("%s still captures %s (its subjects: %s)", name, c.Ignores, strings.Join(cfg.Subjects, ", "))
			}
		}
	}
	if storage := strings.ToLower(cfg.Storage.String()); c.Storage != "" && storage != c.Storage {
		return false, fmt.Sprintf("%s is stored in %s, not %s", name, storage, c.Storage)
	}
	if c.Retention != "" && retention(cfg.Retention) != c.Retention {
		return false, fmt.Sprintf("%s has %s retention, not %s", name, retention(cfg.Retention), c.Retention)
	}
	if c.Discard != "" && discard(cfg.Discard) != c.Discard {
		return false, fmt.Sprintf("%s discards %s messages when full, not %s ones", name, discard(cfg.Discard), c.Discard)
	}
	if why := republishes(name, cfg.RePublish, c); why != "" {
		return false, why
	}
	if why := copies(name, info, c); why != "" {
		return false, why
	}
	nums := []numCheck{
		{c.MaxMsgs, cfg.MaxMsgs, "keeps at most %s", "message", ""},
		{c.MaxMsgsPerSubject, cfg.MaxMsgsPerSubject, "keeps at most %s per subject", "message", ""},
		{c.MaxAge, int64(cfg.MaxAge), "keeps messages for %s", "", ""},
		{c.DuplicateWindow, int64(cfg.Duplicates), "has a duplicate window of %s", "", ""},
		{c.Replicas, int64(cfg.Replicas), "has %s", "replica", ""},
		{c.Messages, int64(st.Msgs), "holds %s", "message", ""},
		{c.NumSubjects, int64(st.NumSubjects), "holds messages on %s", "subject", ""},
		{c.FirstSeq, int64(st.FirstSeq), "starts at sequence %s", "", ""},
		{c.LastSeq, int64(st.LastSeq), "ends at sequence %s", "", ""},
		{c.Deleted, int64(st.NumDeleted), "has %s", "deleted message", ""},
		{c.Consumers, int64(st.Consumers), "has %s", "consumer", ""},
	}
	for _, n := range nums {
		if why := n.fails(name); why != "" {
			return false, why
		}
	}
	if c.Current.Set() || c.LeaderChanged {
		ci := info.Cluster
		if ci == nil || ci.Leader == "" {
			return false, name + " has no leader right now (an election may be under way)"
		}
		if c.LeaderChanged && prev.leaders[c.Name] == ci.Leader {
			return false, fmt.Sprintf("%s is still led by %s, as in the previous step", name, ci.Leader)
		}
		current := int64(1) // the leader
		var behind []string
		for _, r := range ci.Replicas {
			if r.Current && !r.Offline {
				current++
			} else {
				behind = append(behind, r.Name)
			}
		}
		if !c.Current.Holds(current) {
			why := fmt.Sprintf("%s has %d current replicas (the leader %s included), wants %s", name, current, ci.Leader, c.Current.Want())
			if len(behind) > 0 {
				why += "; not current: " + strings.Join(behind, ", ")
				why += s.down(behind)
			}
			return false, why
		}
	}
	return true, ""
}

// down says which of nodes are stopped and how to start them, for a
// reason that names replicas not current: a stopped node's replica is
// never current until it runs again. "" when none is stopped.
func (s *snapshot) down(nodes []string) string {
	c := s.l.env.Deployment.Cluster()
	if c == nil {
		return ""
	}
	var stopped []string
	for _, n := range nodes {
		if !c.NodeUp(n) {
			stopped = append(stopped, n)
		}
	}
	switch len(stopped) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf(" (%s is down: node start %s starts it)", stopped[0], stopped[0])
	}
	return fmt.Sprintf(" (%s are down: node start %s, and so on)", strings.Join(stopped, " and "), stopped[0])
}

// numCheck is one numeric setting or counter to compare.
type numCheck struct {
	cmp  Cmp
	v    int64
	what string // with %s for the value
	unit string // "message": the value is a count of these; "" for a plain number
	more string // said after the comparison when it fails
}

// unsetWords says, for a setting whose unset value means no limit (the
// server's -1 or 0), what is said in place of its numCheck's what while
// it is unset: "keeps at most -1 messages" would read as a number.
var unsetWords = map[string]struct {
	at   int64
	says string
}{
	"keeps at most %s":              {-1, "keeps any number of messages"},
	"keeps at most %s per subject":  {-1, "keeps any number of messages per subject"},
	"keeps messages for %s":         {0, "keeps messages forever"},
	"delivers a message at most %s": {-1, "delivers a message any number of times"},
	"is removed after %s idle":      {0, "is never removed for being idle"},
}

// fails says why the value does not satisfy the comparison, or "".
func (n numCheck) fails(name string) string {
	if n.cmp.Holds(n.v) {
		return ""
	}
	if u, ok := unsetWords[n.what]; ok && n.v == u.at {
		return fmt.Sprintf("%s %s, wants %s%s", name, u.says, n.cmp.Want(), n.more)
	}
	got := fmt.Sprint(n.v)
	switch {
	case n.cmp.dur:
		got = time.Duration(n.v).String()
	case n.unit != "":
		many := n.unit + "s"
		if strings.HasSuffix(n.unit, "y") {
			many = strings.TrimSuffix(n.unit, "y") + "ies"
		}
		got = text.Count(n.v, n.unit, many)
	}
	return fmt.Sprintf("%s %s, wants %s%s", name, fmt.Sprintf(n.what, got), n.cmp.Want(), n.more)
}

func listOr(list []string, none string) string {
	if len(list) == 0 {
		return none
	}
	return strings.Join(list, ", ")
}

// retention and discard name the policies as the CLI's flags do. The
// server's own JSON spells retention so ("limits", "interest",
// "workqueue"): the policy's name in lower case.
func retention(r jetstream.RetentionPolicy) string {
	return strings.ToLower(r.String())
}

func discard(d jetstream.DiscardPolicy) string {
	if d == jetstream.DiscardNew {
		return "new"
	}
	return "old"
}

func ackPolicy(a jetstream.AckPolicy) string {
	switch a {
	case jetstream.AckNonePolicy:
		return "none"
	case jetstream.AckAllPolicy:
		return "all"
	}
	return "explicit"
}

func (s *snapshot) checkConsumer(c *ConsumerCheck) (bool, string) {
	info, why := s.consumer(c.Stream, c.Name)
	if c.Absent {
		if info == nil && strings.HasPrefix(why, "there is no consumer") {
			return true, ""
		}
		if info != nil {
			why := fmt.Sprintf("consumer %s still exists on stream %s", c.Name, c.Stream)
			if info.NumWaiting > 0 {
				why += fmt.Sprintf(": %s on it, which keeps it active", text.Count(int64(info.NumWaiting), "pull request waits", "pull requests wait"))
			}
			return false, why
		}
		return false, why
	}
	if info == nil {
		return false, why
	}
	cfg := info.Config
	name := "consumer " + c.Name
	filters := cfg.FilterSubjects
	if cfg.FilterSubject != "" {
		filters = append([]string{cfg.FilterSubject}, filters...)
	}
	if c.Pull != nil {
		pull := cfg.DeliverSubject == ""
		if pull != *c.Pull {
			if pull {
				return false, name + " is a pull consumer, not a push one"
			}
			return false, name + " is a push consumer (it delivers to " + cfg.DeliverSubject + "), not a pull one: create it with --pull"
		}
	}
	if c.Ack != "" && ackPolicy(cfg.AckPolicy) != c.Ack {
		return false, fmt.Sprintf("%s acknowledges %s, not %s", name, ackPolicy(cfg.AckPolicy), c.Ack)
	}
	if c.Durable != nil && (cfg.Durable != "") != *c.Durable {
		if *c.Durable {
			return false, fmt.Sprintf("%s is ephemeral: it has a name but no durable name, so the server removes it once it has been idle for %s; consumer add without --ephemeral makes a durable one", name, inactiveWords(cfg.InactiveThreshold))
		}
		return false, fmt.Sprintf("%s is durable (it has a durable name): the server keeps it however long it is idle, unless it has an inactive threshold", name)
	}
	if c.Deliver != "" && deliverPolicy(cfg.DeliverPolicy) != c.Deliver {
		return false, fmt.Sprintf("%s starts with deliver policy %s, not %s; where a consumer starts is fixed when it is created: remove it and add it again", name, deliverPolicy(cfg.DeliverPolicy), c.Deliver)
	}
	if c.Filter != "" {
		found := false
		for _, f := range filters {
			found = found || f == c.Filter
		}
		if !found {
			why := fmt.Sprintf("%s filters %s, not %s", name, listOr(filters, "nothing (it reads every subject)"), c.Filter)
			if dead := s.filterMatchesNothing(c.Stream, filters); dead != "" {
				why += "; " + dead
			}
			return false, why
		}
	}
	nums := []numCheck{
		{c.AckWait, int64(cfg.AckWait), "waits %s for an ack", "", ""},
		{c.MaxDeliver, int64(cfg.MaxDeliver), "delivers a message at most %s", "time", ""},
		{c.AckFloor, int64(info.AckFloor.Stream), "has its ack floor at stream sequence %s", "", unacked(info)},
		{c.Acked, int64(info.AckFloor.Consumer), "has acknowledged %s", "delivery", ""},
		{c.Delivered, int64(info.Delivered.Stream), "last delivered stream sequence %s", "", ""},
		{c.Pending, int64(info.NumPending), "has %s not yet delivered", "message", ""},
		{c.AckPending, int64(info.NumAckPending), "has %s delivered and not yet acknowledged", "message", ""},
		{c.Redelivered, int64(info.NumRedelivered), "has %s redelivered and not yet acknowledged", "message", ""},
		{c.Waiting, int64(info.NumWaiting), "has %s waiting", "pull request", ""},
		{c.ExtraDeliveries, int64(info.Delivered.Consumer) - int64(info.Delivered.Stream), "has made %s beyond the first of each message", "delivery", ""},
		{c.StartSeq, int64(cfg.OptStartSeq), "starts at stream sequence %s", "", ""},
		{c.MaxAckPending, int64(cfg.MaxAckPending), "allows %s awaiting acknowledgement", "message", ""},
		{c.InactiveThreshold, int64(cfg.InactiveThreshold), "is removed after %s idle", "", ""},
		{c.Idle, int64(consumerIdle(info)), "has been idle for %s", "", ""},
	}
	for _, n := range nums {
		if why := n.fails(name); why != "" {
			if dead := s.filterMatchesNothing(c.Stream, filters); dead != "" {
				why += "; " + dead
			} else if past := s.movedPast(info, filters); past != "" {
				why += "; " + past
			}
			return false, why
		}
	}
	return true, ""
}

// movedPast says so when a consumer that delivers everything has nothing
// pending, yet the stream holds messages its filter matches that it never
// delivered: it moved past them while its filter matched nothing, and
// changing a filter does not rewind a consumer (nats-server#7268).
func (s *snapshot) movedPast(ci *jetstream.ConsumerInfo, filters []string) string {
	if ci.NumPending != 0 || len(filters) == 0 || ci.Config.DeliverPolicy != jetstream.DeliverAllPolicy {
		return ""
	}
	info, _ := s.stream(ci.Stream)
	if info == nil || info.State.LastSeq <= ci.Delivered.Stream {
		return ""
	}
	var n int64
	s.storedMessages(info, func(m *jetstream.RawStreamMsg) {
		if m.Sequence <= ci.Delivered.Stream {
			return
		}
		for _, f := range filters {
			if server.SubjectMatchesFilter(m.Subject, f) {
				n++
				return
			}
		}
	})
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("stream %s holds %s on %s that it never delivered and never will: it moved past %s while its filter matched nothing, and changing a filter does not rewind a consumer (remove it and add it again)",
		ci.Stream, text.Count(n, "message", "messages"), strings.Join(filters, ", "), text.Plural(n, "it", "them"))
}

// unacked says why an ack floor stays behind: messages await
// acknowledgement, or there is nothing left to deliver.
func unacked(info *jetstream.ConsumerInfo) string {
	if info.NumAckPending == 0 {
		if info.NumPending == 0 {
			return "; it has nothing left to deliver"
		}
		return ""
	}
	return fmt.Sprintf("; %s delivered and not yet acknowledged", text.Count(int64(info.NumAckPending), "message is", "messages are"))
}

// deliverPolicy names a deliver policy as ConsumerCheck.Deliver does.
func deliverPolicy(p jetstream.DeliverPolicy) string {
	switch p {
	case jetstream.DeliverLastPolicy:
		return "last"
	case jetstream.DeliverNewPolicy:
		return "new"
	case jetstream.DeliverByStartSequencePolicy:
		return "by_start_sequence"
	case jetstream.DeliverByStartTimePolicy:
		return "by_start_time"
	case jetstream.DeliverLastPerSubjectPolicy:
		return "last_per_subject"
	}
	return "all"
}

func inactiveWords(d time.Duration) string {
	if d <= 0 {
		return "its inactive threshold"
	}
	return "its inactive threshold of " + d.String()
}

// consumerIdle is how long a consumer has gone without a delivery or an
// acknowledgement, or since it was created.
func consumerIdle(info *jetstream.ConsumerInfo) time.Duration {
	last := info.Created
	for _, t := range []*time.Time{info.Delivered.Last, info.AckFloor.Last} {
		if t != nil && t.After(last) {
			last = *t
		}
	}
	return time.Since(last).Truncate(time.Second)
}

// filterMatchesNothing says so when a consumer's filters match none of the
// subjects its stream holds messages on: the typo that reads nothing.
func (s *snapshot) filterMatchesNothing(stream string, filters []string) string {
	if len(filters) == 0 {
		return ""
	}
	subjects := s.subjects(stream)
	if len(subjects) == 0 {
		return ""
	}
	names := make([]string, 0, len(subjects))
	for subj := range subjects {
		for _, f := range filters {
			if server.SubjectMatchesFilter(subj, f) {
				return ""
			}
		}
		names = append(names, subj)
	}
	sort.Strings(names)
	if len(names) > 5 {
		names = append(names[:5], "…")
	}
	return fmt.Sprintf("its filter %s matches none of the subjects stream %s holds (%s)", strings.Join(filters, ", "), stream, strings.Join(names, ", "))
}

func (s *snapshot) checkMessages(c *MessagesCheck) (bool, string) {
	info, why := s.stream(c.Stream)
	if info == nil {
		return false, why
	}
	hk, hv, _ := strings.Cut(c.Header, ":")
	hk, hv = strings.TrimSpace(hk), strings.TrimSpace(hv)
	var n int64
	otherCase := map[string]bool{} // header names that differ from hk only in case
	s.storedMessages(info, func(m *jetstream.RawStreamMsg) {
		if c.Subject != "" && !server.SubjectMatchesFilter(m.Subject, c.Subject) {
			return
		}
		for name := range m.Header {
			if hk != "" && name != hk && strings.EqualFold(name, hk) {
				otherCase[name] = true
			}
		}
		if hk != "" && m.Header.Get(hk) != hv {
			return
		}
		n++
	})
	want := c.Count.Or(">=1")
	if want.Holds(n) {
		return true, ""
	}
	what := text.Count(n, "message", "messages")
	if c.Subject != "" {
		what += " on " + c.Subject
	}
	if hk != "" {
		what += " with header " + hk + ": " + hv
	}
	why = fmt.Sprintf("stream %s holds %s, wants %s", c.Stream, what, want.Want())
	if len(otherCase) > 0 {
		names := make([]string, 0, len(otherCase))
		for name := range otherCase {
			names = append(names, name)
		}
		sort.Strings(names)
		why += fmt.Sprintf("; some carry %s instead, and header names are case-sensitive: to the stream that is another header", strings.Join(names, ", "))
	}
	return false, why
}

func (s *snapshot) checkReplayed(c *ReplayCheck) (bool, string) {
	info, why := s.stream(c.Stream)
	if info == nil {
		return false, why
	}
	st := info.State
	if st.Msgs == 0 {
		return false, fmt.Sprintf("stream %s holds no messages to replay", c.Stream)
	}
	if s.l.replayed(c.Stream) {
		return true, ""
	}
	lab, _ := s.l.obs.views()
	var best uint64
	for _, v := range lab {
		var n uint64
		for seq := range v.seqs[c.Stream] {
			if seq >= st.FirstSeq && seq <= st.LastSeq {
				n++
			}
		}
		if n >= st.Msgs {
			s.l.markReplayed(c.Stream)
			return true, ""
		}
		best = max(best, n)
	}
	// A real nats CLI replaying shows up as a consumer that delivered
	// everything from the start: every message, not only the last of a
	// filter that takes some of them.
	for _, ci := range s.consumerInfos(c.Stream) {
		if ci.Config.DeliverPolicy == jetstream.DeliverAllPolicy && ci.Delivered.Stream >= st.LastSeq && ci.NumPending == 0 && s.takesAll(c.Stream, ci.Config, st.Msgs) {
			s.l.markReplayed(c.Stream)
			return true, ""
		}
	}
	return false, fmt.Sprintf("no subscriber has read all %d messages of stream %s yet (the most one read: %d)", st.Msgs, c.Stream, best)
}

// takesAll says whether a consumer's filters take in all msgs messages
// the stream holds, as the server counts the messages on each filter.
func (s *snapshot) takesAll(stream string, cfg jetstream.ConsumerConfig, msgs uint64) bool {
	filters := cfg.FilterSubjects
	if cfg.FilterSubject != "" {
		filters = append(filters, cfg.FilterSubject)
	}
	if len(filters) == 0 {
		return true
	}
	ctx, cancel := s.timeout()
	defer cancel()
	st, err := s.l.js.Stream(ctx, stream)
	if err != nil {
		return false
	}
	var n uint64
	for _, f := range filters {
		info, err := st.Info(ctx, jetstream.WithSubjectFilter(f))
		if err != nil {
			return false
		}
		for _, count := range info.State.Subjects {
			n += count
		}
	}
	return n >= msgs
}

func (s *snapshot) checkAdvisory(c *AdvisoryCheck) (bool, string) {
	if c.Filter != "" {
		n := s.l.obs.createdCount(c.Stream, c.Filter)
		want := c.Count.Or(">=1")
		if want.Holds(n) {
			return true, ""
		}
		return false, fmt.Sprintf("the server has created a consumer reading %s on %s %s, wants %s", c.Filter, c.Stream, text.Count(n, "time", "times"), want.Want())
	}
	n := s.l.obs.advisoryCount(advisoryEvents[c.Event], c.Stream, c.Consumer)
	want := c.Count.Or(">=1")
	if want.Holds(n) {
		return true, ""
	}
	what := map[string]string{
		"max_deliveries": "a message ran out of delivery attempts",
		"terminated":     "a message was terminated",
		"naked":          "a message was negatively acknowledged",
		"created":        "a consumer was created",
		"deleted":        "a consumer was removed",
	}[c.Event]
	target := ""
	if c.Stream != "" && c.Consumer != "" {
		target = " on " + c.Stream + " > " + c.Consumer
	}
	return false, fmt.Sprintf("the server has said %s%s %s, wants %s", what, target, text.Count(n, "time", "times"), want.Want())
}

func (s *snapshot) checkPublished(c *PublishedCheck, prev mark) (bool, string) {
	n, misspelt := s.l.obs.publishedCount(c)
	since := ""
	if c.Since {
		n -= prev.published[publishedKey(c)]
		since = " since the previous step"
	}
	want := c.Count.Or(">=1")
	if want.Holds(n) {
		return true, ""
	}
	what := "on " + c.Subject
	if c.Header != "" {
		what += " with header " + c.Header
	}
	why := fmt.Sprintf("%s %s reached the server%s, wants %s", text.Count(n, "message", "messages"), what, since, want.Want())
	if misspelt != "" {
		why += fmt.Sprintf("; they carried %s: header names are case-sensitive, so that is a different header", misspelt)
	}
	return false, why + s.refusedWhy("publish", c.Subject)
}

func (s *snapshot) checkRejected(c *RejectedCheck) (bool, string) {
	n, other := s.l.obs.rejectedCount(c.Stream, c.Code)
	want := c.Count.Or(">=1")
	if want.Holds(n) {
		return true, ""
	}
	why := fmt.Sprintf("stream %s has refused %s, wants %s", c.Stream, text.Count(n, "--jetstream publish", "--jetstream publishes"), want.Want())
	if n == 0 {
		why = fmt.Sprintf("stream %s has not refused a --jetstream publish yet", c.Stream)
	}
	if other > 0 {
		why += fmt.Sprintf(" (%s with an error other than %d)", text.Count(other, "refusal", "refusals"), c.Code)
	}
	return false, why + ": publish to it with pub --jetstream, which reads the stream's answer (a plain pub asks for none)"
}

func (s *snapshot) checkAcks(c *AcksCheck) (bool, string) {
	if c.GivenUpBy != "" {
		return s.checkAckedGivenUp(c)
	}
	n := s.l.obs.ackCount(c.Stream, c.Consumer, c.Confirmed)
	want := c.Count.Or(">=1")
	if want.Holds(n) {
		return true, ""
	}
	if c.Confirmed {
		plain := s.l.obs.ackCount(c.Stream, c.Consumer, false) - n
		why := fmt.Sprintf("consumer %s has had %s sent as a request (a double ack), wants %s", c.Consumer, text.Count(n, "ack", "acks"), want.Want())
		if plain > 0 {
			why += fmt.Sprintf("; %s without a reply subject, which the server does not confirm", text.Count(plain, "ack was", "acks were"))
		}
		return false, why
	}
	return false, fmt.Sprintf("consumer %s has had %s, wants %s", c.Consumer, text.Count(n, "ack", "acks"), want.Want())
}

// checkAckedGivenUp: consumer has acknowledged a message another gave up on.
func (s *snapshot) checkAckedGivenUp(c *AcksCheck) (bool, string) {
	dead, acked := s.l.obs.ackedGivenUp(c.Stream, c.Consumer, c.GivenUpBy)
	if acked {
		return true, ""
	}
	if len(dead) == 0 {
		return false, fmt.Sprintf("consumer %s has given up on no message yet", c.GivenUpBy)
	}
	seqs := make([]string, len(dead))
	for i, seq := range dead {
		seqs[i] = fmt.Sprint(seq)
	}
	what := "stream sequence " + seqs[0]
	if len(seqs) > 1 {
		what = "stream sequences " + strings.Join(seqs, ", ")
	}
	n := s.l.obs.ackCount(c.Stream, c.Consumer, false)
	if n == 0 {
		return false, fmt.Sprintf("consumer %s has acknowledged nothing yet; %s gave up on %s", c.Consumer, c.GivenUpBy, what)
	}
	return false, fmt.Sprintf("consumer %s has had %s, none for %s, which %s gave up on", c.Consumer, text.Count(n, "ack", "acks"), what, c.GivenUpBy)
}

// kvWatchers are the consumers of a bucket's stream that watch it, as kv
// watch's does, reading the key (any key when key is ""). A consumer made
// on KV_<bucket> with consumer add is no watch while nobody receives from
// it, and a stopped watch's consumer is no longer bound.
func (s *snapshot) kvWatchers(bucket, key string) []*jetstream.ConsumerInfo {
	subject := "$KV." + bucket + ".>"
	if key != "" {
		subject = "$KV." + bucket + "." + key
	}
	return s.receivedConsumers("KV_"+bucket, subject)
}

// receivedConsumers are the consumers of stream that a client receives from now
// (bound to their deliver subject) and that read subject, or some of it.
func (s *snapshot) receivedConsumers(stream, subject string) []*jetstream.ConsumerInfo {
	var out []*jetstream.ConsumerInfo
	for _, ci := range s.consumerInfos(stream) {
		filters := ci.Config.FilterSubjects
		if ci.Config.FilterSubject != "" {
			filters = append(filters, ci.Config.FilterSubject)
		}
		reads := len(filters) == 0 || slices.ContainsFunc(filters, func(f string) bool { return server.SubjectsCollide(subject, f) })
		if reads && ci.PushBound {
			out = append(out, ci)
		}
	}
	return out
}

func (s *snapshot) checkKV(c *KVCheck) (bool, string) {
	kv, why := s.kv(c.Bucket)
	if kv == nil {
		if c.Absent && c.Key == "" && strings.HasPrefix(why, "there is no bucket") {
			return true, ""
		}
		return false, why
	}
	if c.Key == "" {
		if c.Absent {
			return false, "bucket " + c.Bucket + " still exists"
		}
		if c.Watchers.Set() {
			if n := int64(len(s.kvWatchers(c.Bucket, ""))); !c.Watchers.Holds(n) {
				return false, fmt.Sprintf("bucket %s has %s, wants %s", c.Bucket, text.Count(n, "watcher", "watchers"), c.Watchers.Want())
			}
		}
		return true, ""
	}
	ctx, cancel := s.timeout()
	defer cancel()
	e, err := kv.Get(ctx, c.Key)
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
		if c.Absent {
			return true, ""
		}
		return false, fmt.Sprintf("bucket %s has no key %s", c.Bucket, c.Key)
	}
	if err != nil {
		return false, s.jsErr(err)
	}
	if c.Absent {
		return false, fmt.Sprintf("key %s is still in bucket %s (revision %d)", c.Key, c.Bucket, e.Revision())
	}
	if c.Value != nil && string(e.Value()) != *c.Value {
		return false, fmt.Sprintf("key %s holds %q, not %q", c.Key, e.Value(), *c.Value)
	}
	if !c.Revision.HoldsU(e.Revision()) {
		return false, fmt.Sprintf("key %s is at revision %d, wants %s", c.Key, e.Revision(), c.Revision.Want())
	}
	if c.Watched {
		before := func(ci *jetstream.ConsumerInfo) bool { return ci.Created.Before(e.Created()) }
		if !slices.ContainsFunc(s.kvWatchers(c.Bucket, c.Key), before) {
			if slices.ContainsFunc(s.kvWatchers(c.Bucket, ""), before) {
				return false, fmt.Sprintf("key %s got %q (revision %d) while only watches of other keys ran: wants a value put while a watch of it (or of the whole bucket) runs", c.Key, e.Value(), e.Revision())
			}
			return false, fmt.Sprintf("key %s got %q (revision %d) before any watch of bucket %s began: a watcher only listed it, wants a value put while one runs", c.Key, e.Value(), e.Revision(), c.Bucket)
		}
	}
	if c.History.Set() {
		h, err := kv.History(ctx, c.Key)
		if err != nil {
			return false, s.jsErr(err)
		}
		if n := int64(len(h)); !c.History.Holds(n) {
			return false, fmt.Sprintf("key %s has %s kept, wants %s", c.Key, text.Count(n, "revision", "revisions"), c.History.Want())
		}
	}
	return true, ""
}
