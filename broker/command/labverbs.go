package command

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"natslab/broker"
	"natslab/broker/realcli"
	"natslab/broker/text"
)

// builtinVerbs are the lab's own commands, beside the real CLI's.
var builtinVerbs = map[string]Verb{}

func addBuiltin(v Verb) {
	for _, n := range append([]string{v.Name}, v.Aliases...) {
		builtinVerbs[n] = v
	}
}

func init() {
	addBuiltin(Verb{Name: "nats-server", Usage: "nats-server [-js]", Summary: "Restart the lab's server, with JetStream (-js) or without, and show its startup log", Run: runNatsServer})
	addBuiltin(Verb{Name: "restart", Usage: "restart", Summary: "Restart the lab's server as it is; file-backed streams survive", Run: runRestart})
	addBuiltin(Verb{Name: "reset", Usage: "reset [--force]", Summary: "Erase every stream, consumer and bucket on the lab's server", Run: runReset})
	addBuiltin(Verb{Name: "jobs", Usage: "jobs", Summary: "List the commands running in the background", Run: runJobs})
	addBuiltin(Verb{Name: "stop", Aliases: []string{"kill"}, Usage: "stop N|all", Summary: "Stop background job N, or all of them", Run: runStop})
	addBuiltin(Verb{Name: "help", Usage: "help [COMMAND]", Summary: "List the commands, or explain one", Run: runHelp})
	addBuiltin(Verb{Name: "clear", Usage: "clear", Summary: "Clear the command pane", Run: func(*Call, []string) error { return nil }})
}

func embeddedOnly(c *Call, verb string) error {
	if !c.S.dep.Own() {
		return fmt.Errorf("%s works on the lab's own server only; the lab is connected to %s", verb, c.S.dep.Describe())
	}
	return nil
}

func runNatsServer(c *Call, args []string) error {
	if err := embeddedOnly(c, "nats-server"); err != nil {
		return err
	}
	js := false
	var notes []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; a {
		case "-js", "--js", "--jetstream":
			js = true
		case "-p", "--port", "-a", "--addr", "--net", "-sd", "--store_dir":
			if i+1 < len(args) {
				i++
			}
			notes = append(notes, fmt.Sprintf("%s is ignored: the lab's server keeps its address %s and store %s", a, c.S.dep.Describe(), c.S.dep.StoreDir()))
		default:
			return usageErrorf("the lab's nats-server takes -js (JetStream on) or nothing (JetStream off), not %q", a)
		}
	}
	srv := c.S.dep
	mark := srv.Log().Total()
	err := c.S.Reconnecting(func() error { return srv.Restart(js) })
	var notReady *NotReadyError
	if err != nil && !errors.As(err, &notReady) {
		return err
	}
	// The server did start: its log is shown even when the lab was not
	// ready in time, which err then says after it.
	lines, _ := srv.Log().Since(mark)
	for _, l := range lines {
		fmt.Fprintln(c.Out, l)
	}
	for _, n := range notes {
		c.Notef("%s", n)
	}
	return err
}

func runRestart(c *Call, args []string) error {
	if err := embeddedOnly(c, "restart"); err != nil {
		return err
	}
	if len(args) > 0 {
		return usageErrorf("restart takes no arguments; to switch JetStream use nats-server -js or nats-server")
	}
	srv := c.S.dep
	down := c.stoppedNodes()
	start := time.Now()
	if err := c.S.Reconnecting(func() error { return srv.Restart(srv.JetStream()) }); err != nil {
		return err
	}
	c.awaitStreamsReachable()
	st := srv.Stats()
	js := "off"
	if st.JetStream {
		js = "on"
	}
	what := "Server restarted in " + humanDuration(time.Since(start))
	if srv.Cluster() != nil {
		// Every node starts again, those node stop had stopped too.
		what = fmt.Sprintf("Cluster restarted in %s, every node running (%s", humanDuration(time.Since(start)), strings.Join(broker.NodeNames, ", "))
		if len(down) > 0 {
			what += "; " + joinAnd(down) + " had been stopped"
		}
		what += ")"
	}
	c.Statusf("%s with JetStream %s: %s, %s", what, js, text.Count(st.Streams, "stream", "streams"), text.Count(st.Consumers, "consumer", "consumers"))
	return nil
}

func runReset(c *Call, args []string) error {
	if err := embeddedOnly(c, "reset"); err != nil {
		return err
	}
	force := false
	for _, a := range args {
		if a == "--force" || a == "-f" {
			force = true
			continue
		}
		return usageErrorf("reset takes only --force, not %q", a)
	}
	srv := c.S.dep
	st := srv.Stats()
	question := fmt.Sprintf("Erase every stream, consumer and bucket (%s, %s) in %s?", text.Count(st.Streams, "stream", "streams"), text.Count(st.Consumers, "consumer", "consumers"), srv.JetStreamDir())
	if !force {
		if c.S.confirm == nil {
			return usageErrorf("reset erases every stream, consumer and bucket: run reset --force to go ahead")
		}
		if !c.S.confirm(question) {
			c.Statusf("Nothing was erased")
			return nil
		}
	}
	if err := c.S.Reconnecting(srv.Reset); err != nil {
		return err
	}
	c.Statusf("Erased %s and %s; the server is running again", text.Count(st.Streams, "stream", "streams"), text.Count(st.Consumers, "consumer", "consumers"))
	return nil
}

func runJobs(c *Call, args []string) error {
	if len(args) > 0 {
		return usageErrorf("jobs takes no arguments")
	}
	n := 0
	for _, j := range c.S.Jobs() {
		if j == c.Job {
			continue
		}
		n++
		fmt.Fprintln(c.Out, describeJob(j, c.Now()))
	}
	if n == 0 {
		fmt.Fprintln(c.Out, "No jobs are running")
	}
	return nil
}

// describeJob is one line of the jobs list.
func describeJob(j *Job, now time.Time) string {
	line := fmt.Sprintf("[%d] %s  (running %s", j.ID, j.Shown(), humanDuration(now.Sub(j.Started).Round(time.Second)))
	if subj, _ := j.Listening(); subj != "" {
		line += ", " + text.Count(j.Received(), "message", "messages") + " received"
		if d := j.Dropped(); d > 0 {
			line += fmt.Sprintf(", %d dropped as a slow consumer", d)
		}
	}
	return line + ")"
}

func runStop(c *Call, args []string) error {
	if len(args) != 1 {
		return usageErrorf("stop needs a job number from jobs, or all: for example stop 1")
	}
	var targets []*Job
	if args[0] == "all" {
		for _, j := range c.S.Jobs() {
			if j != c.Job {
				targets = append(targets, j)
			}
		}
		if len(targets) == 0 {
			fmt.Fprintln(c.Out, "No jobs are running")
			return nil
		}
	} else {
		id, err := strconv.Atoi(strings.TrimPrefix(args[0], "%"))
		j := c.S.Job(id)
		if err != nil || j == nil || j == c.Job {
			var ids []string
			for _, j := range c.S.Jobs() {
				if j != c.Job {
					ids = append(ids, strconv.Itoa(j.ID))
				}
			}
			if len(ids) == 0 {
				return usageErrorf("there is no job %s: no jobs are running", args[0])
			}
			return usageErrorf("there is no job %s: running jobs are %s (see jobs)", args[0], strings.Join(ids, ", "))
		}
		targets = append(targets, j)
	}
	for _, j := range targets {
		j.Stop()
		<-j.Done()
		fmt.Fprintf(c.Out, "[%d] stopped: %s\n", j.ID, j.Shown())
	}
	return nil
}

func runHelp(c *Call, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(c.Out, c.S.helpIndex())
		return nil
	}
	if v, ok := c.S.verb(args[0]); ok && realcli.Find(realcli.Model().Commands, args[0]) == nil {
		fmt.Fprintf(c.Out, "usage: %s\n\n%s\n", v.Usage, v.Summary)
		return nil
	}
	// help COMMAND is the real CLI's `nats help COMMAND`, the lab's own
	// commands included, with the lab's description of those after it.
	if p, ok := c.realAnswer(append([]string{"help"}, args...)); ok {
		if p.Code != 0 {
			return explain(exitErr(p), "%s", c.S.nothingToExplain(args))
		}
		if note := c.nativeSummary(args); note != "" {
			c.Notef("%s", note)
		}
		return nil
	}
	if err := c.S.runRealHelp(c, args); !errors.Is(err, errNoRealCommand) {
		return err
	}
	return usageErrorf("%s", c.S.nothingToExplain(args))
}

// nothingToExplain says why help COMMAND found no command to explain.
func (s *Session) nothingToExplain(args []string) string {
	l := realcli.Parse(args)
	if len(l.Path) == 0 {
		return fmt.Sprintf("there is no command %q to explain%s (type help for the list)", args[0], didYouMean(args[0], append(s.commandWords(), realTopNames()...)))
	}
	if l.Next == "" {
		return fmt.Sprintf("help %s explains %s", l.Name(), l.Name())
	}
	return noSubCommand(l) + fmt.Sprintf(" (help %s lists them)", l.Name())
}

// noSubCommand says that the line's command has no sub-command l.Next,
// and which it may have meant.
func noSubCommand(l realcli.Line) string {
	var subs []string
	for _, c := range l.Path[len(l.Path)-1].Commands {
		if !c.Hidden {
			subs = append(subs, c.Name)
			subs = append(subs, c.Aliases...)
		}
	}
	return fmt.Sprintf("%s has no sub-command %q%s", l.Name(), l.Next, didYouMean(l.Next, subs))
}

// writeRow writes a row of the help's list, its summary wrapped in its own
// column at width (the pane's): the pane would fold a longer line back to
// its first column, under the commands.
func writeRow(b *strings.Builder, name, summary string, width int) {
	for _, l := range text.Hanging(name, summary, 25, width) {
		b.WriteString(l + "\n")
	}
}

// helpIndex lists every command, the real CLI's first, then the lab's.
func (s *Session) helpIndex() string {
	var b strings.Builder
	b.WriteString("The real nats CLI's commands (the leading \"nats\" is optional):\n\n")
	for _, c := range realcli.Model().Commands {
		if c.Hidden {
			continue
		}
		name := c.Name
		if len(c.Aliases) > 0 {
			name += " (" + strings.Join(c.Aliases, ", ") + ")"
		}
		summary, _, _ := strings.Cut(c.Help, "\n")
		writeRow(&b, name, summary, s.HelpWidth())
	}
	b.WriteString("\nLab commands:\n\n")
	vs := map[string]Verb{}
	for _, v := range builtinVerbs {
		vs[v.Name] = v
	}
	s.jobsMu.Lock()
	for _, v := range s.verbs {
		vs[v.Name] = v
	}
	s.jobsMu.Unlock()
	names := make([]string, 0, len(vs))
	for n := range vs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		writeRow(&b, vs[n].Usage, vs[n].Summary, s.HelpWidth())
	}
	b.WriteString("\nhelp COMMAND explains one, for example: help stream add\n")
	return b.String()
}

// clusterStreamsWait bounds how long restart waits for the streams of the
// lab's cluster to elect their leaders: each waits out Raft's election
// timeout (4 to 9 seconds) after recovering from its store, and a split
// vote starts another round.
const clusterStreamsWait = 30 * time.Second

// awaitStreamsReachable waits, on the lab's cluster restarted from its
// stores, until a publish from every node reaches every stream: the meta
// group's leader is elected when the cluster is up, but each stream's only
// on its own Raft timeout, and a pub --jetstream before then goes
// unanswered.
func (c *Call) awaitStreamsReachable() {
	if c.S.dep.Cluster() == nil || !c.S.dep.JetStream() {
		return
	}
	mgr, err := c.manager()
	if err != nil {
		return
	}
	names, err := mgr.StreamNames(nil)
	if err != nil {
		return
	}
	deadline := time.Now().Add(clusterStreamsWait)
	for _, name := range names {
		broker.AwaitReachable(c.S.dep, name, time.Until(deadline))
	}
}
