package command

import (
	"fmt"
	"strings"

	"github.com/nats-io/jsm.go/api"
	"github.com/nats-io/nats.go"

	"natslab/broker/realcli"
)

// The lab gives the real CLI no terminal: its output is a pipe into the
// pane or into `natslab run`'s output. What the real CLI does without one
// was read command by command in natscli v0.5.0's source:
//
//   - it refuses by itself, in one line of its own, to prompt, confirm,
//     pick a stream or consumer from a list, page (stream view), draw a
//     graph (stream graph, consumer graph, server graph) or a full-screen
//     table (server watch servers, accounts, jetstream). The lab lets it
//     say so and adds a note that names the flag or argument that avoids
//     the question, or says to use a terminal of its own
//     (explainRealError);
//   - top takes the whole screen with termui, bench draws progress bars
//     that repaint in place, and context edit and errors edit start
//     $EDITOR, which the lab does not pass on: those do not work in a
//     pipe, so the lab says so before it starts them (needsTerminal).

// needsTerminal says in one line why the lab does not start a line that
// needs a terminal of its own, and what to type instead; "" when it runs.
func needsTerminal(l realcli.Line) string {
	if !l.Leaf {
		return "" // the real CLI lists the sub-commands
	}
	name := l.Name()
	switch {
	case name == "top":
		if _, ok := l.Flags["output"]; ok {
			return ""
		}
		return "nats top takes over the whole terminal, which the lab does not give the real CLI: top --output FILE saves one snapshot to a file instead, or run nats top in a terminal of its own"
	case strings.HasPrefix(name, "bench "):
		if v := l.Flags["progress"]; len(v) > 0 && v[len(v)-1] == "false" {
			return ""
		}
		return fmt.Sprintf("nats %s draws progress bars that repaint a terminal, which the lab does not give the real CLI: add --no-progress", l.Typed())
	case name == "context edit":
		return "nats context edit opens your editor, which the lab cannot show: change a context with context add NAME and the flags to set (context add --help lists them)"
	case name == "errors edit":
		return "nats errors edit opens your editor, which the lab cannot show: run it in a terminal of its own"
	}
	return ""
}

// listsConnections are the real CLI's commands that list or count the
// clients connected to the servers: the lab's own connections are among
// them, which the real CLI alone against the same servers would not find.
var listsConnections = map[string]bool{
	"account report connections": true,
	"account report statistics":  true,
	"server report connections":  true,
	"server request connections": true,
}

// ownConnectionsNote says whose the connections named natslab are.
const ownConnectionsNote = "The connections named natslab … are the lab's own, which its own commands (pub, sub, stream …), scenes and status bar use; the real CLI's are named NATS CLI Version v0.5.0"

// realRefusals are the real CLI's own error lines the lab knows the cause
// of here (mostly: it needs a terminal to ask something), and what the
// lab's note says to type instead. own is whether the CLI ran against the
// lab's own server rather than a deployment named with --server.
var realRefusals = []struct {
	says string
	note func(l realcli.Line, own bool) string
}{
	{"cannot ask for confirmation without a terminal", func(l realcli.Line, _ bool) string {
		if hasFlag(l, "force") {
			return fmt.Sprintf("nats %s asks before it goes ahead, and the lab gives the real CLI no terminal to ask in: add --force to go ahead without asking", l.Typed())
		}
		if _, given := l.Flags["defaults"]; hasFlag(l, "defaults") && !given {
			return fmt.Sprintf("nats %s asks for the values the line leaves out, and the lab gives the real CLI no terminal to ask in: add --defaults to take the default values without asking", l.Typed())
		}
		return fmt.Sprintf("The real CLI wants an answer and the lab gives it no terminal to ask in: give every value on the line (help %s lists the flags)", l.Typed())
	}},
	{"cannot pick a Stream without a terminal", func(l realcli.Line, _ bool) string {
		return fmt.Sprintf("The real CLI would offer a list of streams to pick from, which needs a terminal: name the stream on the line (help %s)", l.Typed())
	}},
	{"cannot pick a Consumer without a terminal", func(l realcli.Line, _ bool) string {
		return fmt.Sprintf("The real CLI would offer a list of consumers to pick from, which needs a terminal: name the stream and the consumer on the line (help %s)", l.Typed())
	}},
	{"cannot pick an Operator without a terminal", func(l realcli.Line, _ bool) string {
		return fmt.Sprintf("The real CLI would offer a list of operators to pick from, which needs a terminal: name one on the line (help %s says how), or select one with auth operator select NAME (auth operator ls lists them)", l.Typed())
	}},
	{"cannot pick an Account without a terminal", func(l realcli.Line, _ bool) string {
		// The real CLI offers the list when the line names no account
		// the operator has, as when it names none.
		return "The real CLI would offer a list of the operator's accounts to pick from, which needs a terminal: name one of them on the line (auth account ls lists them)"
	}},
	{"cannot prompt for user input without a terminal", func(l realcli.Line, _ bool) string {
		return fmt.Sprintf("The real CLI asks for what the line leaves out, which needs a terminal: give every value on the line (help %s lists the flags)", l.Typed())
	}},
	{"can only graph data on an interactive terminal", func(l realcli.Line, _ bool) string {
		return fmt.Sprintf("nats %s draws a live graph across a whole terminal: run it in a terminal of its own", l.Typed())
	}},
	{"could not determine screen dimensions", func(l realcli.Line, _ bool) string {
		return fmt.Sprintf("nats %s draws a table across a whole terminal: run it in a terminal of its own", l.Typed())
	}},
	{"--name is required when reading from stdin", func(l realcli.Line, _ bool) string {
		bucket := "BUCKET"
		if v := l.Args["bucket"]; len(v) > 0 {
			bucket = v[0]
		}
		return fmt.Sprintf("with no file named, the real CLI reads the object from standard input, which the lab gives commands none of: name a file, like object put %s notes.txt", bucket)
	}},
	{"mirrors cannot listen for messages on subjects", func(l realcli.Line, _ bool) string {
		origin := "its origin"
		if v := l.Flags["mirror"]; len(v) > 0 {
			origin = v[len(v)-1]
		}
		return fmt.Sprintf("a mirror stores only what it copies from %s, so it captures no subjects of its own: drop --subjects, or, to copy %s and capture subjects too, use --source %s in place of --mirror", origin, origin, origin)
	}},
	{"ensure the account used has system privileges", func(l realcli.Line, own bool) string {
		if !own {
			return "Commands that ask the servers themselves (server list, info, report, ping …) need a user of the system account: start natslab with --server and the credentials (--creds, or --user and --password) of a system user"
		}
		return "Commands that ask the servers themselves (server list, info, report, ping …) need a user of the system account; the lab's server, like nats-server -js, has none configured"
	}},
}

// explainRealError adds a note after the real CLI's last error line when
// the lab knows why it failed here and what to type instead.
func (s *Session) explainRealError(c *Call, l realcli.Line, last string) {
	for _, r := range realRefusals {
		if strings.Contains(last, r.says) {
			c.Notef("%s", r.note(l, s.dep.Own()))
			return
		}
	}
	if strings.HasSuffix(last, nats.ErrNoServers.Error()) {
		c.Notef("%s", unreachableNote)
		return
	}
	if strings.HasSuffix(last, nats.ErrNoResponders.Error()) && len(l.Path) > 0 && jetStreamCommands[l.Path[0].Name] {
		// Nothing serves the JetStream API: JetStream is off.
		c.Notef("%s", c.jetStreamOffNote())
		return
	}
	if strings.HasSuffix(last, fmt.Sprintf("(%d)", streamErrCodeSubjectsOverlap)) && (l.Name() == "stream add" || l.Name() == "stream edit") {
		if note := c.passthroughOverlapNote(l); note != "" {
			c.Notef("%s", note)
			return
		}
	}
	if note := c.missingNote(l, last); note != "" {
		c.Notef("%s", note)
	}
}

// passthroughOverlapNote names the streams that capture the subjects a
// stream add or edit the real CLI ran (one with --source, say) asked for.
func (c *Call) passthroughOverlapNote(l realcli.Line) string {
	var cfg api.StreamConfig
	for _, v := range l.Flags["subjects"] {
		cfg.Subjects = append(cfg.Subjects, strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' })...)
	}
	name := l.Args["stream"]
	if len(cfg.Subjects) == 0 || len(name) == 0 {
		return ""
	}
	defer c.labAsks()()
	mgr, err := c.manager()
	if err != nil {
		return ""
	}
	return (&streamCmd{stream: name[0]}).overlapNote(mgr, cfg, l.Name() == "stream edit")
}

// jetStreamCommands are the real CLI's commands that ask the JetStream API
// only: where none answers, JetStream is off.
var jetStreamCommands = map[string]bool{"object": true, "stream": true, "consumer": true, "kv": true}

// missingNote says, from the lab's own look, what is there where the real
// CLI found no object store or no object: "" when it has nothing to add.
func (c *Call) missingNote(l realcli.Line, last string) string {
	if len(l.Path) == 0 || l.Path[0].Name != "object" {
		return ""
	}
	arg := func(name string) string {
		if v := l.Args[name]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	switch {
	case strings.HasSuffix(last, "nats: bucket not found"):
		return c.objectStoreNote(arg("bucket"))
	case strings.HasSuffix(last, "nats: object not found"):
		return c.objectNote(arg("bucket"), arg("file"))
	}
	return ""
}

func hasFlag(l realcli.Line, name string) bool {
	if len(l.Path) == 0 {
		return false
	}
	c := l.Path[len(l.Path)-1]
	if c.FlagGroupModel == nil {
		return false
	}
	for _, f := range c.Flags {
		if f.Name == name {
			return true
		}
	}
	return false
}
