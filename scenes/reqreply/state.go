package reqreply

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"natslab/broker/text"
)

// Snapshot is what the scene knows at one moment. Responders and their
// counts are the server's own; requests, replies and round trips are what
// the scene's taps (or its own requester) saw travel through the server.
type Snapshot struct {
	Subject       string
	ServerUp      bool
	Responders    []Responder // client subscriptions that match Subject, from the server's connection list
	Watching      bool        // the taps are on (only while someone responds)
	Requests      uint64      // requests seen since the last reset
	Replies       uint64      // replies seen travelling back to an inbox
	Bounced       uint64      // the scene's own asks the server bounced ("no responders")
	Unanswered    uint64      // requests that got no reply in time
	Waiting       int         // requests seen whose reply has not come yet
	LastRTT       time.Duration
	LastInbox     string // the reply subject of the latest request
	LastRequester string // the name of the connection that sent it
	Story         string // the latest thing that happened, in words
}

// Responder is one client subscription that requests on the subject reach.
type Responder struct {
	Name    string // the connection's name
	Cid     uint64
	Subject string // what it subscribed to (may be a wildcard)
	Queue   string // its queue group: one member of a group answers each request
	Msgs    int64  // requests the server has given it
	Served  bool   // its count grew at the last look
}

// connzOpts asks for every connection with its subscriptions in detail.
func connzOpts(cid uint64) *server.ConnzOptions {
	return &server.ConnzOptions{Subscriptions: true, SubscriptionsDetail: true, Limit: 4096, CID: cid}
}

// responders lists the client subscriptions, other than the scene's own,
// that a request on subject reaches; ok is false when the server could not
// be asked.
func (d *driver) responders(subject string) (out []Responder, ok bool) {
	ns := d.dep.Monitor()
	if ns == nil {
		return nil, false
	}
	cz, err := ns.Connz(connzOpts(0))
	if err != nil {
		return nil, false
	}
	d.mu.Lock()
	own := d.ownCids
	d.mu.Unlock()
	d.mu.Lock()
	for _, c := range cz.Conns {
		d.sent[c.Cid] = c.InMsgs
	}
	d.mu.Unlock()
	for _, c := range cz.Conns {
		if own[c.Cid] {
			continue
		}
		for _, s := range c.SubsDetail {
			if !server.SubjectMatchesFilter(subject, s.Subject) {
				continue
			}
			out = append(out, Responder{Name: connName(c.Name, c.Cid), Cid: c.Cid, Subject: s.Subject, Queue: s.Queue, Msgs: s.Msgs})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Cid < out[j].Cid })
	return out, true
}

func sameResponders(a, b []Responder) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Cid != b[i].Cid || a[i].Subject != b[i].Subject || a[i].Queue != b[i].Queue {
			return false
		}
	}
	return true
}

// respondersStory says in words how the responders changed.
func respondersStory(subject string, before, after []Responder) string {
	switch {
	case len(after) == 0 && len(before) > 0:
		return "the last responder left: a request on " + subject + " now bounces at once (no responders)"
	case len(after) == 0:
		return "nobody subscribes to " + subject + ": a request there bounces at once (no responders)"
	case len(after) > len(before):
		return after[len(after)-1].Name + " now answers on " + subject
	}
	return fmt.Sprintf("%s on %s", text.Unbroken(text.Count(len(after), "responder", "responders")), subject)
}

// groups says how the responders share requests: each queue group counts
// once, each plain subscriber on its own.
func groups(rs []Responder) string { return groupsIn(rs)[0] }

// groupsIn is groups in its wordings, the fullest first: the groups'
// names with the word queue, without it, then how many groups there are.
func groupsIn(rs []Responder) []string {
	seen := map[string]bool{}
	plain := 0
	for _, r := range rs {
		if r.Queue == "" {
			plain++
		} else {
			seen[r.Queue] = true
		}
	}
	names := make([]string, 0, len(seen))
	for q := range seen {
		names = append(names, q)
	}
	sort.Strings(names)
	var out []string
	for _, queues := range []string{"queue " + strings.Join(names, ", "), strings.Join(names, ", "), text.Count(len(names), "queue group", "queue groups")} {
		var parts []string
		if len(seen) > 0 {
			parts = append(parts, queues)
		}
		if plain > 0 {
			parts = append(parts, fmt.Sprintf("%d plain", plain))
		}
		out = append(out, strings.Join(parts, " · "))
	}
	return out
}

func itoa[T ~int | ~int64 | ~uint64](n T) string { return strconv.FormatInt(int64(n), 10) }

// fmtRTT writes a round trip the way nats request does: µs, ms or s.
func fmtRTT(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return strconv.FormatFloat(float64(d)/float64(time.Microsecond), 'f', 0, 64) + "µs"
	case d < time.Second:
		return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 1, 64) + "ms"
	}
	return strconv.FormatFloat(d.Seconds(), 'f', 2, 64) + "s"
}
