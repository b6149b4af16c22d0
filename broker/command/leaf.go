package command

import (
	"fmt"
	"time"

	"natslab/broker"
	"natslab/broker/realcli"
	"natslab/broker/text"
)

// The leaf verb works the lab's leaf node (broker.Leaf): a second
// nats-server in the lab's process that joins the lab's server as a leaf
// node. leaf start and leaf stop bring it online and take it offline;
// leaf COMMAND runs a nats command as a client of the leaf, with the real
// CLI's code, as `nats --server LEAF-URL COMMAND` would.

func init() {
	addBuiltin(Verb{
		Name:     "leaf",
		Usage:    "leaf start | leaf stop | leaf status | leaf COMMAND…",
		Summary:  "Start or stop the lab's leaf node (a second server joined to the lab's), or run a nats command as a client of the leaf",
		Run:      runLeaf,
		Complete: completeLeaf,
	})
}

const leafUsage = "leaf start, leaf stop, leaf status, or leaf and a nats command to run on the leaf (leaf sub greet)"

func runLeaf(c *Call, args []string) error {
	if len(args) == 0 {
		return usageErrorf("leaf needs a sub-command or a command to run on the leaf: %s", leafUsage)
	}
	if err := embeddedOnly(c, "leaf"); err != nil {
		return err
	}
	leaf := c.S.dep.Leaf()
	if leaf == nil {
		return usageErrorf("the leaf node joins the lab's single server: start natslab without --cluster")
	}
	switch sub, rest := args[0], args[1:]; sub {
	case "start", "stop", "status":
		if len(rest) > 0 {
			return usageErrorf("leaf %s takes no arguments", sub)
		}
		switch sub {
		case "start":
			return leafStart(c, leaf)
		case "stop":
			return leafStop(c, leaf)
		}
		return leafStatus(c, leaf)
	}
	return leafRun(c, leaf, args)
}

func leafStart(c *Call, leaf *broker.Leaf) error {
	// The first start restarts the lab's server: the session's
	// connections must be back before the next line runs (a request
	// pasted after leaf start would meet one still reconnecting).
	var restarted bool
	var clients int
	before := c.S.serverID()
	err := c.S.readyAfter(func() (err error) {
		restarted, clients, err = leaf.Start()
		return err
	}, "the server restarted", func(after string) bool { return after != before })
	if err != nil {
		return err
	}
	st := leaf.Status()
	if restarted {
		fmt.Fprintf(c.Out, "The lab's server restarted to accept leaf nodes on 127.0.0.1:%d\n", st.HubPort)
		c.Notef("nats-server opens its leaf node port from its configuration (a leafnodes { port: … } block) when it starts, so the lab's server restarted once with one; its clients reconnected")
	}
	fmt.Fprintf(c.Out, "Leaf node %s joined the lab's server\n", broker.LeafName)
	if clients > 0 {
		fmt.Fprintf(c.Out, "%s of the leaf reconnected\n", text.Count(clients, "client", "clients"))
	}
	if st.URL != "" {
		c.Notef("clients of the leaf connect to %s; leaf COMMAND runs a nats command there, like leaf sub greet", st.URL)
	}
	return nil
}

func leafStop(c *Call, leaf *broker.Leaf) error {
	clients, err := leaf.Stop()
	if err != nil {
		return err
	}
	fmt.Fprintf(c.Out, "Leaf node %s stopped: it left the lab's server\n", broker.LeafName)
	if clients > 0 {
		c.Notef("%s of the leaf lost %s server and %s trying to reconnect; what is published meanwhile is not kept for %s", text.Count(clients, "client", "clients"), text.Plural(clients, "its", "their"), text.Plural(clients, "keeps", "keep"), text.Plural(clients, "it", "them"))
	}
	return nil
}

func leafStatus(c *Call, leaf *broker.Leaf) error {
	st := leaf.Status()
	switch {
	case !st.Running:
		fmt.Fprintf(c.Out, "Leaf node %s is not running (leaf start starts it)\n", broker.LeafName)
	case st.Connected:
		fmt.Fprintf(c.Out, "Leaf node %s is running and joined to the lab's server\n", broker.LeafName)
	default:
		fmt.Fprintf(c.Out, "Leaf node %s is running, not joined to the lab's server right now\n", broker.LeafName)
	}
	if st.Running && st.URL != "" {
		fmt.Fprintf(c.Out, "Clients connect to %s\n", st.URL)
	}
	return nil
}

// leafSettle bounds how long a leaf's client waits for the lab's server
// to hear of its subscriptions.
const leafSettle = 2 * time.Second

// leafRun runs a nats command with the real CLI, connected to the leaf.
func leafRun(c *Call, leaf *broker.Leaf, words []string) error {
	if words[0] == "nats" {
		words = words[1:]
	}
	l := realcli.Parse(words)
	if len(l.Path) == 0 {
		return usageErrorf("leaf runs a nats command on the leaf, and %q is none: %s", words[0], leafUsage)
	}
	// The real CLI runs here as anywhere: in a workshop, it touches no
	// file on the instructor's machine (leaf sub x --dump DIR).
	if c.S.noLocalFiles {
		if err := refuseLocalFiles(l); err != nil {
			return err
		}
	}
	for _, f := range []string{"server", "context"} {
		if _, ok := l.Flags[f]; ok {
			return usageErrorf("leaf COMMAND connects to the leaf itself: drop --%s", f)
		}
	}
	st := leaf.Status()
	if !st.Running && !c.parseOnly {
		return usageErrorf("the leaf node is not running: leaf start starts it")
	}
	cred := leaf.Credentials()
	c.realConn = &realcli.Conn{URL: st.URL, User: cred.User, Password: cred.Password, Token: cred.Token, Creds: cred.Creds}
	// leaf sub greet is in place once the lab's server knows of it: a
	// script's next line (pub greet) must reach it.
	if subjects := listened(l); len(subjects) > 0 {
		c.realSettle = func() { leaf.HubHears(subjects, leafSettle) }
	}
	return c.S.runReal(c, words, l)
}

// listened is what a line subscribes to, for the commands whose
// subscriber a message must reach: sub's subjects, reply's subject.
func listened(l realcli.Line) []string {
	switch l.Name() {
	case "subscribe":
		return l.Args["subjects"]
	case "reply":
		return l.Args["subject"]
	}
	return nil
}

func completeLeaf(args []string) []string {
	if len(args) == 0 {
		return []string{"start", "stop", "status", "sub", "pub", "request", "reply"}
	}
	return nil
}
