package accounts

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"natslab/broker"
	"natslab/broker/text"
	"natslab/scenes/kit"
)

// Everything the scene shows comes from the server's monitoring, in
// process (/accountz, /accstatz, /connz, /subsz): no connection of the
// scene's own could see inside the learner's accounts without being one of
// their clients, which would change what the scene shows. A look is cheap
// (a few connections), so the driver looks a few times a second, and at
// once when the server restarts.
const (
	lookEvery = 250 * time.Millisecond
	perLook   = 6 // animated messages per link and look: the counts stay exact
)

// Sub is one subscription of a client, as the server counts it.
type Sub struct {
	Sid     string
	Subject string
	Queue   string
	Msgs    int64  // messages the server delivered to it: its own, and through imports
	From    string // the account whose export fed it, when an import did
}

// Client is one client connection in an account.
type Client struct {
	Cid  uint64
	User string // the user it logged in as
	Name string // the name the client gave, or ""
	In   int64  // messages it published
	Subs []Sub  // its subscriptions, inboxes left out
}

// Label is how the scene names a client: its user.
func (c Client) Label() string {
	if c.User != "" {
		return c.User
	}
	return "client " + strconv.FormatUint(c.Cid, 10)
}

// Export is what an account offers, imported or not.
type Export struct {
	Kind    string // "stream" or "service"
	Subject string
}

// Account is one account of the running server.
type Account struct {
	Name      string
	Published int64 // messages its clients published, since the server started
	Clients   []Client
	Exports   []Export
}

// Link is one import: an account taking a stream or a service another
// exports.
type Link struct {
	Kind     string // "stream" or "service"
	Exporter string
	Importer string
	Subject  string // the subject in the exporter
	Local    string // where it appears in the importer
	// Crossed is, for a stream, the messages the server delivered across
	// it to the importer's subscribers (since the scene opened or the
	// server started: subscriptions that ended keep their count); for a
	// service, the requests it carried into the exporter.
	Crossed int64
	// Replies are the replies a service's exporter sent back through it;
	// -1 when the exporter has several service imports, which share the
	// server's one count.
	Replies     int64
	Subscribers int // a stream's: the importer's subscriptions it feeds now
	Invalid     bool
}

// Key names a link across looks.
func (l Link) Key() string { return l.Kind + "|" + l.Exporter + "|" + l.Importer + "|" + l.Subject }

// Snapshot is what the scene knows of the server's accounts.
type Snapshot struct {
	Up       bool      // the server runs
	Accounts []Account // exporters first, then by name
	Links    []Link
	Story    string // what the latest look saw happen, in a line
	Brief    string // Story in fewer words, for a pane too narrow for it
	Stories  int    // how many stories so far
	Looks    uint64 // looks taken, for tests to wait on
	Err      string
}

// Account finds an account by name.
func (s Snapshot) Account(name string) (Account, bool) {
	i := slices.IndexFunc(s.Accounts, func(a Account) bool { return a.Name == name })
	if i < 0 {
		return Account{}, false
	}
	return s.Accounts[i], true
}

// Link finds a link by kind and importer.
func (s Snapshot) Link(kind, importer string) (Link, bool) {
	i := slices.IndexFunc(s.Links, func(l Link) bool { return l.Kind == kind && l.Importer == importer })
	if i < 0 {
		return Link{}, false
	}
	return s.Links[i], true
}

// driver looks at the server's accounts.
type driver struct {
	dep  broker.Deployment
	feed *kit.Feed

	stop, done chan struct{}
	kick       chan struct{}
	hold       sync.Mutex // held during a look; tests hold it to have several things seen in one look

	// What the last look counted, to tell what changed; guarded by the
	// poller (one goroutine).
	boot     string
	shadows  map[string]int64 // a stream import's delivery count, by link and subscription
	gone     map[string]int64 // counts of subscriptions that ended, by link
	prevLink map[string]Link
	prevPub  map[string]int64
	prevDel  map[string]int64 // deliveries to an account's own subscriptions
	early    map[string]bool  // accounts whose messages were seen delivered before their publish was counted

	mu   sync.Mutex
	snap Snapshot
}

// startDriver looks at once and then every so often (0: only when
// kicked, or when the server restarts: tests decide when a look happens).
func startDriver(dep broker.Deployment, feed *kit.Feed, every time.Duration) *driver {
	d := &driver{dep: dep, feed: feed, stop: make(chan struct{}), done: make(chan struct{}), kick: make(chan struct{}, 1)}
	d.look()
	go d.run(every)
	return d
}

func (d *driver) run(every time.Duration) {
	defer close(d.done)
	var tick <-chan time.Time
	if every > 0 {
		t := time.NewTicker(every)
		defer t.Stop()
		tick = t.C
	}
	for {
		changed := d.dep.Changed()
		select {
		case <-d.stop:
			return
		case <-changed:
		case <-d.kick:
		case <-tick:
		}
		d.look()
	}
}

// Kick asks for a look now.
func (d *driver) Kick() {
	select {
	case d.kick <- struct{}{}:
	default:
	}
}

// look asks the server about its accounts and tells the feed what changed.
func (d *driver) look() {
	d.hold.Lock()
	defer d.hold.Unlock()
	m := d.dep.Monitor()
	var next Snapshot
	if m != nil {
		next = d.read(m)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	next.Looks = d.snap.Looks + 1
	next.Story, next.Brief, next.Stories = d.snap.Story, d.snap.Brief, d.snap.Stories
	changed := d.news(&next, m)
	if changed || next.Looks == 1 {
		d.snap = next
		d.feed.Poke()
		return
	}
	// Nothing to show: only the look is counted.
	d.snap.Looks = next.Looks
}

// read is one look at the server.
func (d *driver) read(m *broker.Monitor) Snapshot {
	s := Snapshot{Up: true}
	if m.ID() != d.boot {
		d.boot = m.ID()
		d.shadows, d.gone = map[string]int64{}, map[string]int64{}
		d.prevLink, d.prevPub, d.prevDel = nil, nil, nil
		d.early = map[string]bool{}
	}
	az, err := m.Accountz(&server.AccountzOptions{})
	if err != nil {
		s.Err = err.Error()
		return s
	}
	infos := map[string]*server.AccountInfo{}
	for _, name := range az.Accounts {
		if name == az.SystemAccount {
			continue
		}
		one, err := m.Accountz(&server.AccountzOptions{Account: name})
		if err != nil || one.Account == nil {
			continue
		}
		infos[name] = one.Account
	}
	// The lab's own connections live in the global account: it is shown
	// only when it trades with another, or is the only one.
	if g := infos[server.DEFAULT_GLOBAL_ACCOUNT]; g != nil && !trades(g) {
		if len(infos) == 1 {
			// The plain server: the picture says so, with no numbers
			// to read.
			s.Accounts = []Account{{Name: server.DEFAULT_GLOBAL_ACCOUNT}}
			return s
		}
		delete(infos, server.DEFAULT_GLOBAL_ACCOUNT)
	}
	clients := map[string]map[uint64]bool{}
	// The server adds a client's publishes to its account's count once it
	// has delivered them: read before the deliveries, every publish counted
	// has its deliveries counted too, and none looks as if it went nowhere.
	published := map[string]int64{}
	for name := range infos {
		if st, ok, err := m.Account(name); err == nil && ok {
			published[name] = st.Published
		}
	}
	// Each account's subscriptions, internal ones too, with the stream
	// imports' shadows apart.
	subs, err := m.AccountSubscriptions(slices.Collect(maps.Keys(infos))...)
	if err != nil {
		s.Err = err.Error()
		return s
	}
	for name := range infos {
		acc := Account{Name: name, Published: published[name]}
		clients[name] = map[uint64]bool{}
		cz, err := m.Connz(&server.ConnzOptions{Account: name, Username: true, Subscriptions: true, SubscriptionsDetail: true, Limit: 1 << 12})
		if err == nil {
			for _, ci := range cz.Conns {
				clients[name][ci.Cid] = true
				c := Client{Cid: ci.Cid, User: ci.AuthorizedUser, Name: ci.Name, In: ci.InMsgs}
				for _, sd := range ci.SubsDetail {
					if strings.HasPrefix(sd.Subject, "_INBOX.") {
						continue
					}
					c.Subs = append(c.Subs, Sub{Sid: sd.Sid, Subject: sd.Subject, Queue: sd.Queue, Msgs: sd.Msgs})
				}
				// The server lists them in no order: the client's, by sid.
				slices.SortFunc(c.Subs, func(a, b Sub) int { return cmp.Or(cmp.Compare(len(a.Sid), len(b.Sid)), strings.Compare(a.Sid, b.Sid)) })
				acc.Clients = append(acc.Clients, c)
			}
		}
		for _, e := range infos[name].Exports {
			acc.Exports = append(acc.Exports, Export{Kind: e.Type.String(), Subject: string(e.Subject)})
		}
		slices.SortFunc(acc.Exports, func(a, b Export) int { return strings.Compare(a.Kind+a.Subject, b.Kind+b.Subject) })
		s.Accounts = append(s.Accounts, acc)
	}
	// The imports, in each importer.
	services := map[string]int{} // service links by exporter
	for name, info := range infos {
		for _, im := range info.Imports {
			if im.Account == az.SystemAccount || im.Account == "" {
				continue // the server's own ($SYS requests every account gets)
			}
			l := Link{Kind: im.Type.String(), Exporter: im.Account, Importer: name, Subject: string(im.Subject), Local: string(im.LocalSubject), Invalid: im.Invalid}
			if l.Kind == "service" {
				services[l.Exporter]++
			}
			s.Links = append(s.Links, l)
		}
	}
	// Streams before services (the kinds' names sort the other way).
	slices.SortFunc(s.Links, func(a, b Link) int {
		return cmp.Or(strings.Compare(a.Exporter, b.Exporter), strings.Compare(a.Importer, b.Importer), strings.Compare(b.Kind, a.Kind), strings.Compare(a.Subject, b.Subject))
	})
	seen := map[string]bool{}
	for i := range s.Links {
		l := &s.Links[i]
		switch l.Kind {
		case "stream":
			d.countStream(l, &s, subs.Of(l.Importer, l.Exporter, l.Subject), seen)
		case "service":
			// The server subscribes to the import's subject in the
			// importer with a client of its own: what that subscription
			// got is what crossed into the exporter.
			for _, sd := range subs.Own[l.Importer] {
				if !clients[l.Importer][sd.Cid] && sd.Subject == l.Local {
					l.Crossed += sd.Msgs
				}
			}
			// Replies come back through the exporter's one response
			// subscription (_R_.…), shared by all its service imports.
			l.Replies = -1
			if services[l.Exporter] == 1 {
				l.Replies = 0
				for _, sd := range subs.Own[l.Exporter] {
					if !clients[l.Exporter][sd.Cid] && strings.HasPrefix(sd.Subject, "_R_.") {
						l.Replies += sd.Msgs
					}
				}
			}
		}
	}
	for k := range d.shadows {
		if !seen[k] {
			link, _, _ := strings.Cut(k, "#")
			d.gone[link] += d.shadows[k]
			delete(d.shadows, k)
		}
	}
	for i := range s.Links {
		if s.Links[i].Kind == "stream" {
			s.Links[i].Crossed += d.gone[s.Links[i].Key()]
		}
	}
	order := func(a Account) int {
		if len(a.Exports) > 0 {
			return 0
		}
		return 1
	}
	slices.SortFunc(s.Accounts, func(a, b Account) int {
		if oa, ob := order(a), order(b); oa != ob {
			return oa - ob
		}
		return strings.Compare(a.Name, b.Name)
	})
	return s
}

// countStream counts what a stream import delivered: what its shadows
// counted (see broker.Monitor.AccountSubscriptions), in all and on each
// importer's subscription it fed.
func (d *driver) countStream(l *Link, s *Snapshot, shadows []broker.Shadow, seen map[string]bool) {
	imp := -1
	for i := range s.Accounts {
		if s.Accounts[i].Name == l.Importer {
			imp = i
		}
	}
	for _, sh := range shadows {
		key := l.Key() + "#" + strconv.FormatUint(sh.Cid, 10) + "/" + sh.Sid
		seen[key] = true
		d.shadows[key] = sh.Msgs
		l.Crossed += sh.Msgs
		l.Subscribers++
		if imp < 0 {
			continue
		}
		for ci := range s.Accounts[imp].Clients {
			c := &s.Accounts[imp].Clients[ci]
			if c.Cid != sh.Cid {
				continue
			}
			for si := range c.Subs {
				if c.Subs[si].Sid == sh.Sid {
					c.Subs[si].Msgs += sh.Msgs
					c.Subs[si].From = l.Exporter
				}
			}
		}
	}
}

// trades reports whether an account exports or imports anything of its
// own (not the server's $SYS services).
func trades(a *server.AccountInfo) bool {
	if len(a.Exports) > 0 {
		return true
	}
	for _, im := range a.Imports {
		if !strings.HasPrefix(string(im.Subject), "$SYS.") {
			return true
		}
	}
	return false
}

// news compares a look with the last and sends what moved: messages that
// crossed a link, and messages published in an account that reached no
// one there and crossed nowhere. It writes the story of the look into
// next, and reports whether anything changed. Called with d.mu held, so
// each event is sent before the state it reports can be read.
func (d *driver) news(next *Snapshot, m *broker.Monitor) bool {
	changed := !sameShape(d.snap, *next)
	fresh := d.prevLink == nil
	links := map[string]Link{}
	for _, l := range next.Links {
		links[l.Key()] = l
	}
	pub, del := map[string]int64{}, map[string]int64{}
	for _, a := range next.Accounts {
		pub[a.Name] = a.Published
		for _, c := range a.Clients {
			for _, sub := range c.Subs {
				if sub.From == "" {
					del[a.Name] += sub.Msgs
				}
			}
		}
	}
	if m == nil {
		fresh = true
	}
	var story, brief []string
	tell := func(full, short string) { story, brief = append(story, full), append(brief, short) }
	if !fresh {
		went := map[string]bool{} // accounts whose messages went somewhere
		for _, l := range next.Links {
			p, ok := d.prevLink[l.Key()]
			if !ok {
				continue
			}
			if n := l.Crossed - p.Crossed; n > 0 {
				changed = true
				d.sendN(n, kit.Event{Kind: kit.Delivered, Client: l.Key(), Note: "cross"})
				switch l.Kind {
				case "stream":
					went[l.Exporter] = true
					tell(fmt.Sprintf("%s crossed from %s into %s, as %s", text.Unbroken(text.Count(n, "message", "messages")), l.Exporter, l.Importer, l.Local),
						fmt.Sprintf("%s crossed into %s", text.Unbroken(text.Count(n, "message", "messages")), l.Importer))
				default:
					went[l.Importer] = true
					tell(fmt.Sprintf("%s crossed from %s into %s (%s)", text.Unbroken(text.Count(n, "request", "requests")), l.Importer, l.Exporter, l.Subject),
						fmt.Sprintf("%s crossed into %s", text.Unbroken(text.Count(n, "request", "requests")), l.Exporter))
				}
			}
			if n := l.Replies - p.Replies; l.Replies >= 0 && p.Replies >= 0 && n > 0 {
				changed = true
				went[l.Exporter] = true
				d.sendN(n, kit.Event{Kind: kit.Delivered, Client: l.Key(), Note: "reply"})
				tell(fmt.Sprintf("%s went back from %s to %s", text.Unbroken(text.Count(n, "reply", "replies")), l.Exporter, l.Importer),
					fmt.Sprintf("%s back to %s", text.Unbroken(text.Count(n, "reply", "replies")), l.Importer))
			}
		}
		// A service's requests reach the exporter's responders: they
		// crossed, they were not published there.
		into := map[string]int64{}
		for _, l := range next.Links {
			if p, ok := d.prevLink[l.Key()]; ok && l.Kind == "service" {
				into[l.Exporter] += l.Crossed - p.Crossed
			}
		}
		for _, a := range next.Accounts {
			np := a.Published - d.prevPub[a.Name]
			nd := del[a.Name] - d.prevDel[a.Name] - into[a.Name]
			if np > 0 || nd > 0 {
				changed = true
			}
			if nd > 0 {
				d.sendN(nd, kit.Event{Kind: kit.Delivered, Client: a.Name, Note: "local"})
				tell(fmt.Sprintf("%s to subscribers in %s, from inside %s", text.Unbroken(text.Count(nd, "delivery", "deliveries")), a.Name, a.Name),
					fmt.Sprintf("%s inside %s", text.Unbroken(text.Count(nd, "delivery", "deliveries")), a.Name))
			}
			// The server counts a publish after its deliveries: a look
			// may see them first, and the publish in the next.
			reached := went[a.Name] || nd > 0
			switch {
			case np > 0 && !reached && !d.early[a.Name]:
				d.sendN(np, kit.Event{Kind: kit.Lost, Client: a.Name})
				tell(fmt.Sprintf("%s published in %s stayed there and reached no one: no subscriber in %s, no import took it", text.Unbroken(text.Count(np, "message", "messages")), a.Name, a.Name),
					fmt.Sprintf("%s stayed in %s, reached no one", text.Unbroken(text.Count(np, "message", "messages")), a.Name))
			case np <= 0 && reached:
				d.early[a.Name] = true
			}
			if np > 0 {
				delete(d.early, a.Name)
			}
		}
	}
	if len(story) > 0 {
		next.Story, next.Brief, next.Stories = strings.Join(story, "; "), strings.Join(brief, "; "), next.Stories+1
	}
	d.prevLink, d.prevPub, d.prevDel = links, pub, del
	if m == nil {
		d.prevLink, d.boot = nil, ""
	}
	return changed || !sameCounts(d.snap, *next)
}

// sendN sends e n times, at most perLook.
func (d *driver) sendN(n int64, e kit.Event) {
	for i := int64(0); i < min(n, perLook); i++ {
		d.feed.Send(e)
	}
}

// sameShape reports whether two looks show the same accounts, clients,
// subscriptions and links (counts aside).
func sameShape(a, b Snapshot) bool {
	return shape(a) == shape(b)
}

func shape(s Snapshot) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v|%s|", s.Up, s.Err)
	for _, a := range s.Accounts {
		fmt.Fprintf(&b, "A%s%v;", a.Name, a.Exports)
		for _, c := range a.Clients {
			fmt.Fprintf(&b, "C%d%s%s;", c.Cid, c.User, c.Name)
			for _, sub := range c.Subs {
				fmt.Fprintf(&b, "S%s%s%s%s;", sub.Sid, sub.Subject, sub.Queue, sub.From)
			}
		}
	}
	for _, l := range s.Links {
		fmt.Fprintf(&b, "L%s%d%v;", l.Key(), l.Subscribers, l.Invalid)
	}
	return b.String()
}

// sameCounts reports whether two looks of one shape count the same.
func sameCounts(a, b Snapshot) bool {
	return counts(a) == counts(b)
}

func counts(s Snapshot) string {
	var b strings.Builder
	for _, a := range s.Accounts {
		fmt.Fprintf(&b, "%d;", a.Published)
		for _, c := range a.Clients {
			fmt.Fprintf(&b, "%d;", c.In)
			for _, sub := range c.Subs {
				fmt.Fprintf(&b, "%d;", sub.Msgs)
			}
		}
	}
	for _, l := range s.Links {
		fmt.Fprintf(&b, "%d/%d;", l.Crossed, l.Replies)
	}
	return b.String()
}

// Snapshot implements kit.Driver.
func (d *driver) Snapshot() Snapshot {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.snap // looks replace the slices, never change them
}

// Controls implements kit.Driver: the scene only watches.
func (d *driver) Controls() []kit.Control { return nil }

// Close implements kit.Driver.
func (d *driver) Close() {
	close(d.stop)
	<-d.done
}
