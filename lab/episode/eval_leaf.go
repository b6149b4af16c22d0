package episode

import (
	"fmt"
	"strings"

	"github.com/nats-io/nats-server/v2/server"

	"natslab/broker"
	"natslab/broker/text"
)

func (s *snapshot) checkLeaf(c *LeafCheck) (bool, string) {
	leaf := s.l.env.Deployment.Leaf()
	if leaf == nil {
		return false, "this lab has no leaf node: it joins the lab's own single server (start natslab without --server and --cluster)"
	}
	st := leaf.Status()
	if c.Running != nil && st.Running != *c.Running {
		if st.Running {
			return false, "the leaf node is still running (leaf stop stops it)"
		}
		return false, "the leaf node is not running (leaf start starts it)"
	}
	if c.Connected != nil && st.Connected != *c.Connected {
		if st.Connected {
			return false, "the leaf node is still joined to the lab's server"
		}
		if !st.Running {
			return false, "the leaf node is not running (leaf start starts it)"
		}
		return false, "the leaf node runs but has not joined the lab's server yet"
	}
	if c.Sent.Set() {
		sent, err := leaf.Passed()
		if err != nil {
			return false, "cannot ask the lab's server about its leaf node: " + err.Error()
		}
		if !c.Sent.Holds(sent) {
			return false, fmt.Sprintf("the leaf node passed %s to the lab's server, wants %s (leaf pub sends from the leaf)", text.Count(sent, "message", "messages"), c.Sent.Want())
		}
	}
	if c.Subject == "" {
		return true, ""
	}
	m := leaf.Monitor()
	if m == nil {
		return false, fmt.Sprintf("the leaf node is not running, so nothing on it subscribes to %s (leaf start starts it)", c.Subject)
	}
	subs, received, err := leafSubscribers(m, c.Subject)
	if err != nil {
		return false, "cannot ask the leaf node: " + err.Error()
	}
	want := c.Subscribers.Or(">=1")
	if !want.Holds(int64(subs)) {
		return false, fmt.Sprintf("the leaf has %s on %s, wants %s (leaf sub %s subscribes there)", text.Count(subs, "subscriber", "subscribers"), c.Subject, want.Want(), c.Subject)
	}
	if c.Received.Set() && !c.Received.Holds(received) {
		return false, fmt.Sprintf("the leaf's subscribers on %s received %s, wants %s", c.Subject, text.Count(received, "message", "messages"), c.Received.Want())
	}
	return true, ""
}

// leafSubscribers counts the leaf's client connections subscribed to
// exactly subject, and the messages the leaf delivered to them.
func leafSubscribers(m *broker.Monitor, subject string) (int, int64, error) {
	cz, err := m.Connz(&server.ConnzOptions{Subscriptions: true, Limit: 1 << 12})
	if err != nil {
		return 0, 0, err
	}
	subs, received := 0, int64(0)
	for _, ci := range cz.Conns {
		if ci.Kind != "Client" {
			continue // the leaf connection carries the lab's server's interest
		}
		for _, sub := range ci.Subs {
			if sub == subject {
				subs++
				received += ci.OutMsgs
				break
			}
		}
	}
	return subs, received, nil
}

// leafListens names the leaf node when it has told the lab's server of a
// subscription that subject's messages would reach, for checks of what
// nobody heard.
func leafListens(m *broker.Monitor, subject string) []string {
	if m == nil {
		return nil
	}
	lz, err := m.Leafz(&server.LeafzOptions{Subscriptions: true})
	if err != nil {
		return nil
	}
	var out []string
	for _, l := range lz.Leafs {
		for _, sub := range l.Subs {
			if server.SubjectsCollide(sub, subject) {
				out = append(out, fmt.Sprintf("%s on the leaf node %s", strings.TrimSpace(sub), l.Name))
				break
			}
		}
	}
	return out
}
