package core

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/nats-io/nats-server/v2/server"

	"natslab/broker/text"
	"natslab/scenes"
	"natslab/scenes/kit"
)

// maxPublish bounds `publish N`: a flood is what `nats bench pub` is for.
const maxPublish = 10_000

func (k Kind) keys() []scenes.KeyBinding {
	more := "5"
	if k == Queues {
		more = "6"
	}
	return []scenes.KeyBinding{
		kit.Key("p", "publish 1", "publish", "1"),
		kit.Key("P", "publish "+more, "publish", more),
		kit.Key("R", "reset", "reset"),
	}
}

// Controls implements kit.Driver: bad input is an error saying what to
// type instead; publish waits for the server's confirmation.
func (d *driver) Controls() []kit.Control {
	info := d.kind.info()
	pub := "publish N messages (default 1) on SUBJECT (default " + info.watch + ")"
	if d.kind == Wildcards {
		pub = "publish N messages (default 1) on SUBJECT (default: the next of " + strings.Join(samples(info.watch), ", ") + ")"
	}
	return []kit.Control{
		{Control: scenes.Control{Name: "watch", Usage: "watch SUBJECT", Summary: "watch other subjects (wildcards allowed; default " + info.watch + "): who subscribes there, and what is published"}, Run: d.watchControl},
		{Control: scenes.Control{Name: "publish", Usage: "publish [N] [SUBJECT]", Summary: pub}, Run: d.publishControl},
		{Control: scenes.Control{Name: "reset", Usage: "reset", Summary: "start every count on screen again from 0"}, Run: func(args []string) (string, error) {
			if err := kit.NoArgs("reset", args); err != nil {
				return "", err
			}
			d.reset()
			return "reset: every count on screen starts again from 0", nil
		}},
	}
}

func (d *driver) watchControl(args []string) (string, error) {
	if len(args) != 1 {
		return "", fmt.Errorf("watch needs one subject, for example: watch %s", d.kind.info().watch)
	}
	if err := checkFilter(args[0]); err != nil {
		return "", err
	}
	if err := d.setWatch(args[0]); err != nil {
		return "", err
	}
	d.poll()
	d.feed.Send(kit.Event{Kind: kit.Changed, Note: "watch"})
	d.feed.Poke()
	return "watching " + args[0] + ": who subscribes there and what is published; counts start from 0", nil
}

func (d *driver) publishControl(args []string) (string, error) {
	n, subject, err := publishArgs(args)
	if err != nil {
		return "", err
	}
	if subject == "" {
		if subject, err = d.defaultSubject(); err != nil {
			return "", err
		}
	}
	if err := d.publish(subject, n, d.kind.info().body); err != nil {
		return "", err
	}
	note := ""
	if w := d.Snapshot().Watch; !server.SubjectMatchesFilter(subject, w) {
		note = " (the scene watches " + w + ", so it does not show them: watch " + subject + " does)"
	}
	return fmt.Sprintf("published %s on %s%s", text.Count(n, "message", "messages"), subject, note), nil
}

// publishArgs reads `publish [N] [SUBJECT]`, in either order.
func publishArgs(args []string) (n int, subject string, err error) {
	n = 1
	seenN := false
	for _, a := range args {
		if v, convErr := strconv.Atoi(a); convErr == nil {
			if seenN {
				return 0, "", fmt.Errorf("publish takes one count, got %q (for example: publish 5)", strings.Join(args, " "))
			}
			if v < 1 || v > maxPublish {
				return 0, "", fmt.Errorf("publish %s: the count is a whole number from 1 to %d (for a flood: nats bench pub)", a, maxPublish)
			}
			n, seenN = v, true
			continue
		}
		if subject != "" {
			return 0, "", fmt.Errorf("publish takes one subject, got %q (for example: publish 3 orders.us.created)", strings.Join(args, " "))
		}
		if err := checkSubject(a); err != nil {
			return 0, "", err
		}
		subject = a
	}
	return n, subject, nil
}

// defaultSubject is where `publish` without a subject goes: the watched
// subject when it is one, else (wildcards) the next sample it captures.
func (d *driver) defaultSubject() (string, error) {
	watch := d.Snapshot().Watch
	if server.IsValidLiteralSubject(watch) {
		return watch, nil
	}
	if d.kind == Wildcards {
		s := samples(watch)
		return s[int(d.sample.Add(1)-1)%len(s)], nil
	}
	return "", fmt.Errorf("the scene watches %s, which has wildcards: say where to publish, for example: publish %s", watch, samples(watch)[0])
}

// samples are subjects a filter captures, one token per wildcard, with a >
// standing for one, two and three tokens in turn: orders.> gives
// orders.created, orders.us.created and orders.us.west.created, the three
// shapes the subjects episode compares.
func samples(filter string) []string {
	tokens := strings.Split(filter, ".")
	fill := [][]string{{"created"}, {"us", "created"}, {"us", "west", "created"}}
	var out []string
	for _, tail := range fill {
		var s []string
		for _, t := range tokens {
			switch t {
			case "*":
				s = append(s, "us")
			case ">":
				s = append(s, tail...)
			default:
				s = append(s, t)
			}
		}
		subj := strings.Join(s, ".")
		if len(out) == 0 || out[len(out)-1] != subj {
			out = append(out, subj)
		}
	}
	return out
}

// checkSubject explains why a subject cannot be published to.
func checkSubject(s string) error {
	if server.IsValidPublishSubject(s) {
		return nil
	}
	if err := checkFilter(s); err != nil {
		return err
	}
	return fmt.Errorf("%s has a wildcard: publish to a complete subject such as %s (wildcards are for subscribers)", s, samples(s)[0])
}

// checkFilter explains why a subject cannot be subscribed to.
func checkFilter(s string) error {
	switch {
	case s == "":
		return errors.New("the subject is empty: a subject is tokens joined by dots, for example orders.us.created")
	case strings.ContainsAny(s, " \t\r\n"):
		return fmt.Errorf("%q has a space: a subject is tokens joined by dots, without spaces (orders.us.created)", s)
	case server.IsValidSubject(s):
		return nil
	}
	for i, t := range strings.Split(s, ".") {
		switch {
		case t == "":
			return fmt.Errorf("%s has an empty token (two dots in a row, or a dot at an end)", s)
		case t == ">" && i != strings.Count(s, "."):
			return fmt.Errorf("%s has > before its end: > stands for the rest of a subject, so it comes last (orders.>)", s)
		}
	}
	return fmt.Errorf("%s is not a valid subject", s)
}
