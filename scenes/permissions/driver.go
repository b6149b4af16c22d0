package permissions

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/nats-io/nats-server/v2/server"

	"natslab/broker"
	"natslab/scenes"
	"natslab/scenes/kit"
)

// maxRefusals is how many of the latest refusals the scene keeps.
const maxRefusals = 64

// User is one user of the configuration the server runs with, and what
// it may do. An empty allow list with no deny list means everything.
type User struct {
	Name     string
	Account  string // "" for the global account
	PubAllow []string
	PubDeny  []string
	SubAllow []string
	SubDeny  []string
	Refused  int // refusals of this user the scene saw
}

// Refused is one refusal the server logged, numbered in the order the
// scene saw them.
type Refused struct {
	broker.Refusal
	N int
}

// Snapshot is what the scene knows of the server's users and refusals.
type Snapshot struct {
	Configured bool   // the server runs a lesson's configuration
	Users      []User // the configuration's users, in its order
	Anonymous  bool   // the configuration lets clients in without a user
	Err        string // why the configuration could not be read
	Refusals   []Refused
	Total      int // refusals since the scene opened
	Logins     int // of which logins
}

// driver follows the server's log: nats-server logs every refusal, and
// every reload or restart that may bring new users.
type driver struct {
	dep  broker.Deployment
	log  *broker.LogBuffer
	feed *kit.Feed

	stop, done chan struct{}
	seen       uint64 // log lines read
	conf       string // the configuration file last read ("" for none)
	read1      bool   // whether the configuration was read at all

	mu   sync.Mutex
	snap Snapshot
}

func startDriver(dep broker.Deployment, feed *kit.Feed) (*driver, error) {
	d := &driver{dep: dep, log: dep.Log(), feed: feed, stop: make(chan struct{}), done: make(chan struct{})}
	d.seen = d.log.Total()
	d.readConfig()
	go d.run()
	return d, nil
}

func (d *driver) run() {
	defer close(d.done)
	for {
		changed := d.log.Changed()
		if d.read() {
			d.feed.Poke()
		}
		select {
		case <-changed:
		case <-d.stop:
			return
		}
	}
}

// read takes the log lines written since the last read: each refusal is
// sent before it can be read in the snapshot; the configuration is read
// again, as a reload or restart logs lines too. It reports whether
// anything changed.
func (d *driver) read() bool {
	lines, total := d.log.Since(d.seen)
	d.seen = total
	changed := d.readConfig()
	for _, l := range lines {
		r, ok := broker.ParseRefusal(l)
		if !ok {
			continue
		}
		changed = true
		d.mu.Lock()
		d.feed.Send(kit.Event{Kind: kit.Lost, Client: r.User, Subject: r.Subject, Note: r.What})
		d.snap.Total++
		if r.What == "login" {
			d.snap.Logins++
		}
		d.snap.Refusals = append(d.snap.Refusals, Refused{Refusal: r, N: d.snap.Total})
		if len(d.snap.Refusals) > maxRefusals {
			d.snap.Refusals = slices.Delete(d.snap.Refusals, 0, len(d.snap.Refusals)-maxRefusals)
		}
		for i := range d.snap.Users {
			if d.snap.Users[i].Name == r.User {
				d.snap.Users[i].Refused++
			}
		}
		d.mu.Unlock()
	}
	return changed
}

// readConfig reads the users of the configuration the server runs with,
// when its file changed; it reports whether it did. The file is the
// truth: the lab writes it before it reloads or restarts the server, and
// both log lines that wake the driver again.
func (d *driver) readConfig() bool {
	path, _ := d.dep.Config()
	key := ""
	if path != "" {
		raw, err := os.ReadFile(path)
		if err != nil {
			return false // between two applies: the next log line comes
		}
		key = "file:" + string(raw)
	}
	if key == d.conf && d.read1 {
		return false
	}
	users, anonymous, err := usersOf(path)
	if path != "" {
		if raw, rerr := os.ReadFile(path); rerr != nil || "file:"+string(raw) != key {
			return false // rewritten while parsed: read it on the next line
		}
	}
	d.conf, d.read1 = key, true
	d.mu.Lock()
	defer d.mu.Unlock()
	d.feed.Send(kit.Event{Kind: kit.Changed, Note: "config"})
	refused := map[string]int{}
	for _, r := range d.snap.Refusals {
		refused[r.User]++
	}
	for i := range users {
		users[i].Refused = refused[users[i].Name]
	}
	d.snap.Configured = path != ""
	d.snap.Users, d.snap.Anonymous, d.snap.Err = users, anonymous, ""
	if err != nil {
		d.snap.Err = err.Error()
	}
	return true
}

// usersOf reads the users of the configuration file at path with
// nats-server's own parser ("" is the lab's plain server: no users).
// The lab's own user is not in the file: the lab adds it when it applies.
func usersOf(path string) (users []User, anonymous bool, err error) {
	if path == "" {
		return nil, true, nil
	}
	o, err := server.ProcessConfigFile(path)
	if err != nil {
		return nil, false, fmt.Errorf("the configuration does not parse: %w", err)
	}
	for _, u := range o.Users {
		users = append(users, user(u.Username, u.Account, u.Permissions))
	}
	for _, u := range o.Nkeys {
		users = append(users, user(u.Nkey, u.Account, u.Permissions))
	}
	if o.Username != "" {
		users = append(users, user(o.Username, nil, nil))
	}
	if o.Authorization != "" {
		users = append(users, user("token", nil, nil))
	}
	// Accounts come from a map: by account name, each account's users in
	// the file's order.
	slices.SortStableFunc(users, func(a, b User) int { return strings.Compare(a.Account, b.Account) })
	anonymous = len(users) == 0 || o.NoAuthUser != ""
	return users, anonymous, nil
}

func user(name string, acc *server.Account, p *server.Permissions) User {
	u := User{Name: name}
	if acc != nil && acc.Name != server.DEFAULT_GLOBAL_ACCOUNT {
		u.Account = acc.Name
	}
	if p != nil {
		if p.Publish != nil {
			u.PubAllow, u.PubDeny = p.Publish.Allow, p.Publish.Deny
		}
		if p.Subscribe != nil {
			u.SubAllow, u.SubDeny = p.Subscribe.Allow, p.Subscribe.Deny
		}
	}
	return u
}

// Snapshot implements kit.Driver.
func (d *driver) Snapshot() Snapshot {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := d.snap
	s.Users = slices.Clone(s.Users)
	s.Refusals = slices.Clone(s.Refusals)
	return s
}

// Controls implements kit.Driver.
func (d *driver) Controls() []kit.Control {
	return []kit.Control{
		{Control: scenes.Control{Name: "clear", Usage: "clear", Summary: "forget the refusals seen so far"}, Run: d.clear},
	}
}

func (d *driver) clear(args []string) (string, error) {
	if err := kit.NoArgs("clear", args); err != nil {
		return "", err
	}
	d.mu.Lock()
	d.feed.Send(kit.Event{Kind: kit.Changed, Note: "reset"})
	d.snap.Refusals, d.snap.Total, d.snap.Logins = nil, 0, 0
	for i := range d.snap.Users {
		d.snap.Users[i].Refused = 0
	}
	d.mu.Unlock()
	d.feed.Poke()
	return "cleared: the refusals are counted again from 0", nil
}

// Close implements kit.Driver.
func (d *driver) Close() {
	close(d.stop)
	<-d.done
}
