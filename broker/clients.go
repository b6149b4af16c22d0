package broker

import (
	"net/netip"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Clients are the connections one client process (the real CLI, run by the
// lab in a child process) has at the lab's servers: its own, each node of
// its cluster, its leaf node. When such a process exits, its sockets close,
// but a server drops the connection and its subscriptions only once it has
// noticed, a moment later; and a leaf node tells the lab's server that its
// client's interest is gone a moment after that. Gone waits for both, so
// that the lab says the process ended only once no message can reach it.
type Clients struct {
	at []clientsAt
}

// clientsAt is the process's connections at one server.
type clientsAt struct {
	m    *Monitor
	cids map[uint64]bool
	// leaf is set for the leaf's clients, whose subscriptions the lab's
	// server was told of: subjects.
	leaf     *Leaf
	subjects []string
}

// ClientsFrom finds, at every server of dep running now, the connections
// whose client address (Connz's ip and port) is one of local: the local
// addresses of a client process's sockets. An external deployment has
// none the lab can see.
func ClientsFrom(dep Deployment, local []netip.AddrPort) *Clients {
	c := &Clients{}
	if len(local) == 0 {
		return c
	}
	from := map[netip.AddrPort]bool{}
	for _, a := range local {
		from[netip.AddrPortFrom(a.Addr().Unmap(), a.Port())] = true
	}
	look := func(m *Monitor, leaf *Leaf) {
		cz, err := m.Connz(&server.ConnzOptions{Subscriptions: leaf != nil, Limit: 1 << 16})
		if err != nil {
			return
		}
		at := clientsAt{m: m, cids: map[uint64]bool{}, leaf: leaf}
		for _, ci := range cz.Conns {
			ip, err := netip.ParseAddr(ci.IP)
			if err != nil || ci.Port <= 0 || ci.Port > 65535 {
				continue
			}
			if !from[netip.AddrPortFrom(ip.Unmap(), uint16(ci.Port))] {
				continue
			}
			at.cids[ci.Cid] = true
			for _, s := range ci.Subs {
				if !strings.HasPrefix(s, "$") {
					at.subjects = append(at.subjects, s)
				}
			}
		}
		if len(at.cids) > 0 {
			c.at = append(c.at, at)
		}
	}
	for _, m := range dep.Monitors() {
		look(m, nil)
	}
	if leaf := dep.Leaf(); leaf != nil {
		if m := leaf.Monitor(); m != nil {
			look(m, leaf)
		}
	}
	return c
}

// Gone waits, timeout at most, until no server holds any of the
// connections or their subscriptions, and, for the leaf's, until the lab's
// server no longer hears of a subscription of theirs that no other client
// of the leaf has; it reports whether that happened.
func (c *Clients) Gone(timeout time.Duration) bool {
	if c == nil || len(c.at) == 0 {
		return true
	}
	return pollFor(timeout, func() bool {
		for _, at := range c.at {
			if !at.gone() {
				return false
			}
		}
		return true
	})
}

// gone reports whether the server has dropped the connections, then their
// subscriptions (it forgets the connection first), and the lab's server
// the leaf's interest in them. A server that has stopped holds nothing.
func (at clientsAt) gone() bool {
	if !at.m.ns.Running() {
		return true
	}
	cz, err := at.m.Connz(&server.ConnzOptions{Limit: 1 << 16})
	if err != nil {
		return true
	}
	for _, ci := range cz.Conns {
		if at.cids[ci.Cid] {
			return false
		}
	}
	sz, err := at.m.Subsz(&server.SubszOptions{Subscriptions: true, Limit: 1 << 16})
	if err != nil {
		return true
	}
	for _, sd := range sz.Subs {
		if at.cids[sd.Cid] {
			return false
		}
	}
	if at.leaf == nil || len(at.subjects) == 0 {
		return true
	}
	told := at.leaf.toldHub()
	others := map[string]bool{}
	for _, s := range clientSubs(at.m.ns) {
		others[s] = true
	}
	for _, s := range at.subjects {
		if told[s] && !others[s] {
			return false
		}
	}
	return true
}

// pollFor is waitFor, looking often at first: a server usually notices a
// closed socket within a millisecond.
func pollFor(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	wait := 100 * time.Microsecond
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(wait)
		wait = min(2*wait, 5*time.Millisecond)
	}
}
