package command

import (
	"fmt"
	"strings"

	"natslab/broker"
)

// The node verbs work the lab's three-node cluster (natslab --cluster 3):
// list the nodes, stop one (by name, or whichever leads a stream) and start
// it again. Everything they report comes from the nodes themselves.

func init() {
	addBuiltin(Verb{
		Name:     "node",
		Usage:    "node ls | node stop NAME | node stop leader STREAM | node start [NAME]",
		Summary:  "List the cluster's nodes, stop one (or a stream's leader) and start it again (natslab --cluster 3)",
		Run:      runNode,
		Complete: completeNode,
	})
}

const nodeUsage = "node ls, node stop NAME, node stop leader STREAM or node start [NAME] (nodes: n1, n2, n3)"

func runNode(c *Call, args []string) error {
	if len(args) == 0 {
		return usageErrorf("node needs a sub-command: %s", nodeUsage)
	}
	srv, err := clusterOf(c)
	if err != nil {
		return err
	}
	switch sub, rest := args[0], args[1:]; sub {
	case "ls", "list":
		if len(rest) > 0 {
			return usageErrorf("node ls takes no arguments")
		}
		return nodeList(c, srv)
	case "stop", "kill":
		if len(rest) == 2 && rest[0] == "leader" {
			return nodeStopLeader(c, srv, rest[1])
		}
		if len(rest) == 1 && rest[0] == "leader" {
			return usageErrorf("node stop leader needs the stream whose leader to stop, for example: node stop leader ORDERS")
		}
		name, err := nodeName(rest, "stop")
		if err != nil {
			return err
		}
		return nodeStop(c, srv, name, "")
	case "start":
		if len(rest) == 0 {
			return nodeStartStopped(c, srv)
		}
		name, err := nodeName(rest, "start")
		if err != nil {
			return err
		}
		return nodeStart(c, srv, name)
	default:
		return usageErrorf("node has no sub-command %q%s: %s", sub, didYouMean(sub, []string{"ls", "stop", "start"}), nodeUsage)
	}
}

// nodeStartStopped is node start without a name: it starts whichever
// nodes are down, so a script need not know which node an election chose
// to stop.
func nodeStartStopped(c *Call, srv broker.Cluster) error {
	var down []string
	for _, n := range srv.Nodes() {
		if !n.Running {
			down = append(down, n.Name)
		}
	}
	if len(down) == 0 {
		return usageErrorf("every node is running already (node ls shows them)")
	}
	for _, name := range down {
		if err := nodeStart(c, srv, name); err != nil {
			return err
		}
	}
	return nil
}

// clusterOf is the lab's cluster, or an error saying how to get one.
func clusterOf(c *Call) (broker.Cluster, error) {
	if err := embeddedOnly(c, "node"); err != nil {
		return nil, err
	}
	srv := c.S.dep.Cluster()
	if srv == nil {
		return nil, fmt.Errorf("node works on the lab's cluster, and the lab runs a single server: %s", c.S.ClusterAdvice("start natslab with --cluster 3 (natslab --cluster 3, natslab run --cluster 3 FILE)"))
	}
	return srv, nil
}

// nodeName checks the one argument of node stop and node start.
func nodeName(rest []string, verb string) (string, error) {
	if len(rest) != 1 {
		return "", usageErrorf("node %s needs one node name, for example: node %s n2 (nodes: %s)", verb, verb, strings.Join(broker.NodeNames, ", "))
	}
	for _, n := range broker.NodeNames {
		if rest[0] == n {
			return n, nil
		}
	}
	return "", usageErrorf("there is no node %q%s: the nodes are %s", rest[0], didYouMean(rest[0], broker.NodeNames), strings.Join(broker.NodeNames, ", "))
}

// nodeList prints one row per node: whether it runs, what it leads, how many
// stream copies it holds, where real clients reach it.
func nodeList(c *Call, srv broker.Cluster) error {
	nodes := srv.Nodes()
	up := 0
	for _, n := range nodes {
		if n.Running {
			up++
		}
	}
	t := newTable("Cluster %s: %d nodes, %d up", broker.ClusterName, len(nodes), up)
	withURL := c.S.dep.ClientURL() != ""
	headers := []any{"Node", "Status", "Meta Leader", "Leads", "Streams"}
	if withURL {
		headers = append(headers, "URL")
	}
	t.AddHeaders(headers...)
	for _, n := range nodes {
		status, meta, streams := "down", "", ""
		if n.Running {
			status, streams = "up", human(n.Streams)
		}
		if n.MetaLeader {
			meta = "yes"
		}
		row := []any{n.Name, status, meta, strings.Join(n.Leads, ", "), streams}
		if withURL {
			row = append(row, n.ClientURL)
		}
		t.AddRow(row...)
	}
	fmt.Fprint(c.Out, t.Render())
	return nil
}

// completeNode offers the sub-commands, then node names (and "leader").
func completeNode(args []string) []string {
	switch {
	case len(args) == 0:
		return []string{"ls", "stop", "start"}
	case len(args) == 1 && args[0] == "stop":
		return append([]string{"leader"}, broker.NodeNames...)
	case len(args) == 1 && args[0] == "start":
		return append([]string{}, broker.NodeNames...)
	}
	return nil
}
