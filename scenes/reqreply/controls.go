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

var controls = []scenes.Control{
	{Name: "watch", Usage: "watch SUBJECT", Summary: "watch requests on another subject (default " + DefaultSubject + ")"},
	{Name: "ask", Usage: "ask [BODY]", Summary: "send a request of the scene's own on the watched subject: the round trip, or the bounce when nobody answers"},
	{Name: "reset", Usage: "reset", Summary: "start the counts again"},
}

var keys = []scenes.KeyBinding{
	{Key: "a", Control: "ask", Help: "ask"},
	{Key: "R", Control: "reset", Help: "reset"},
}

// do runs one control: typing mistakes are errors saying what to type.
// ask waits for its reply.
func (d *driver) do(control string, args []string) (string, error) {
	d.ctl.Lock()
	defer d.ctl.Unlock()
	switch control {
	case "watch":
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
		s := d.snapshot()
		if len(s.Responders) == 0 {
			return "watching " + subject + ": nobody subscribes to it yet, so a request there bounces at once (try: reply " + subject + " 'answer')", nil
		}
		return fmt.Sprintf("watching %s: %s", subject, text.Count(len(s.Responders), "responder", "responders")), nil
	case "ask":
		return d.ask(strings.Join(args, " "), askTimeout)
	case "reset":
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
	return "", kit.UnknownControl("request-reply", control, controls)
}
