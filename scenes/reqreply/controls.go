package reqreply

import (
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"natslab/broker/text"
	"natslab/scenes"
	"natslab/scenes/kit"
)

// askTimeout is how long the scene's own request waits for a reply.
const askTimeout = 2 * time.Second

// Controls implements kit.Driver: typing mistakes are errors saying what
// to type; ask waits for its reply.
func (d *driver) Controls() []kit.Control {
	return []kit.Control{
		{Control: scenes.Control{Name: "watch", Usage: "watch SUBJECT", Summary: "watch requests on another subject (default " + DefaultSubject + ")"}, Run: d.watch},
		{Control: scenes.Control{Name: "ask", Usage: "ask [BODY]", Summary: "send a request of the scene's own on the watched subject: the round trip, or the bounce when nobody answers"}, Run: func(args []string) (string, error) {
			return d.ask(strings.Join(args, " "), askTimeout)
		}},
		{Control: scenes.Control{Name: "reset", Usage: "reset", Summary: "start the counts again"}, Run: d.reset},
	}
}

func (d *driver) watch(args []string) (string, error) {
	if len(args) != 1 {
		return "", fmt.Errorf("watch needs one subject, the one requests are sent to (for example: watch %s)", DefaultSubject)
	}
	subject := args[0]
	if !server.IsValidLiteralSubject(subject) {
		return "", fmt.Errorf("watch %s: give the subject a request is sent to, without wildcards or spaces (for example: watch svc.time)", subject)
	}
	d.mu.Lock()
	d.feed.Send(kit.Event{Kind: kit.Changed, Note: "reset"})
	d.snap = Snapshot{Subject: subject, ServerUp: d.snap.ServerUp}
	clear(d.pending)
	clear(d.served)
	d.mu.Unlock()
	d.setTaps("")
	d.poll()
	d.feed.Poke()
	s := d.Snapshot()
	if len(s.Responders) == 0 {
		return "watching " + subject + ": nobody subscribes to it yet, so a request there bounces at once (try: reply " + subject + " 'answer')", nil
	}
	return fmt.Sprintf("watching %s: %s", subject, text.Count(len(s.Responders), "responder", "responders")), nil
}

func (d *driver) reset(args []string) (string, error) {
	if err := kit.NoArgs("reset", args); err != nil {
		return "", err
	}
	d.mu.Lock()
	d.feed.Send(kit.Event{Kind: kit.Changed, Note: "reset"})
	d.snap = Snapshot{Subject: d.snap.Subject, ServerUp: d.snap.ServerUp, Responders: d.snap.Responders, Watching: d.snap.Watching}
	clear(d.pending)
	d.mu.Unlock()
	d.feed.Poke()
	return "reset: the counts start again from 0", nil
}
