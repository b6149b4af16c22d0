package command

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/choria-io/fisk"
)

func init() {
	register(&natsCommand{name: "subscribe", aliases: []string{"sub"}, summary: "Print messages as they arrive, live or replayed from a stream", build: buildSub})
	examples["subscribe"] = `sub "orders.>"`
}

// subCmd holds the flags of sub, named as in the real CLI.
type subCmd struct {
	subjects       []string
	queue          string
	durable        string
	raw            bool
	translate      string
	ack            bool
	inbox          bool
	count          uint
	dump           string
	headersOnly    bool
	subjectsOnly   bool
	startSeq       uint64
	all            bool
	deliverNew     bool
	last           bool
	since          string
	lastPerSubject bool
	terminate      bool
	stream         string
	ignore         []string
	wait           time.Duration
	timestamps     bool
	delta          bool
	direct         bool

	// Worked out by check.
	useJS    bool          // read from a stream
	sinceDur time.Duration // --since, parsed
}

func buildSub(app *fisk.Application, c *Call) {
	s := &subCmd{}
	cmd := app.Command("subscribe", "Prints the messages published on subjects; with --all, --new, --last, --since or --stream, reads them from the stream that stores them").Alias("sub").Action(act(c, s.run))
	cmd.Arg("subjects", "Subjects to listen on; wildcards * and > allowed").StringsVar(&s.subjects)
	cmd.Flag("queue", "Joins a queue group: each message goes to one member of the group").StringVar(&s.queue)
	cmd.Flag("durable", "Reads through this durable consumer (created if missing); needs --stream").StringVar(&s.durable)
	cmd.Flag("raw", "Prints only the bodies").Short('r').UnNegatableBoolVar(&s.raw)
	cmd.Flag("translate", "Pipes each body through this command before printing it").PlaceHolder("COMMAND").StringVar(&s.translate)
	cmd.Flag("ack", "Acknowledges JetStream messages that ask for it").BoolVar(&s.ack)
	cmd.Flag("inbox", "Listens on a new unique inbox subject").Short('i').UnNegatableBoolVar(&s.inbox)
	cmd.Flag("count", "Stops after this many messages").UintVar(&s.count)
	cmd.Flag("dump", "Writes each message as JSON to a file in this directory; - writes them to the output, NUL-separated").PlaceHolder("DIRECTORY").StringVar(&s.dump)
	cmd.Flag("headers-only", "Prints headers but no bodies").UnNegatableBoolVar(&s.headersOnly)
	cmd.Flag("subjects-only", "Prints one line per message, without headers or body").UnNegatableBoolVar(&s.subjectsOnly)
	cmd.Flag("start-sequence", "Reads the stream from this sequence on").PlaceHolder("SEQUENCE").Uint64Var(&s.startSeq)
	cmd.Flag("all", "Reads every message the stream holds, then new ones").UnNegatableBoolVar(&s.all)
	cmd.Flag("new", "Reads only messages the stream stores from now on").UnNegatableBoolVar(&s.deliverNew)
	cmd.Flag("last", "Reads the stream's latest message, then new ones").UnNegatableBoolVar(&s.last)
	cmd.Flag("since", "Reads the stream from this long ago, like 10m, 2h or 1d").PlaceHolder("DURATION").StringVar(&s.since)
	cmd.Flag("last-per-subject", "Reads the latest message of each subject in the stream").UnNegatableBoolVar(&s.lastPerSubject)
	cmd.Flag("terminate-at-end", "Stops once everything the stream held has been printed").Short('T').UnNegatableBoolVar(&s.terminate)
	cmd.Flag("stream", "Reads from this stream").PlaceHolder("STREAM").StringVar(&s.stream)
	cmd.Flag("ignore-subject", "Skips messages on these subjects (wildcards allowed)").Short('I').PlaceHolder("SUBJECT").StringsVar(&s.ignore)
	cmd.Flag("wait", "Stops after this long without a message").PlaceHolder("DURATION").DurationVar(&s.wait)
	cmd.Flag("timestamp", "Shows when each message was received (stored, for a stream)").Short('t').UnNegatableBoolVar(&s.timestamps)
	cmd.Flag("delta-time", "Shows how long after the start each message came").Short('d').UnNegatableBoolVar(&s.delta)
	cmd.Flag("direct", "Reads the stream with direct gets, leaving no consumer behind").UnNegatableBoolVar(&s.direct)
}

// check is natscli's validateInputs, up to the stream lookup: the same
// combinations refused, in the same order, in the same words; the lab's
// note says what to type instead.
func (s *subCmd) check() error {
	s.useJS = s.startSeq > 0 || s.durable != "" || s.all || s.deliverNew || s.last || s.since != "" || s.lastPerSubject || s.stream != "" || s.direct
	if len(s.subjects) > 0 && s.durable != "" {
		return explain(errors.New("cannot specify both subjects and a durable consumer"), "--durable reads the subjects its consumer filters on: drop %s, for example: sub --stream ORDERS --durable %s", strings.Join(s.subjects, " "), s.durable)
	}
	switch {
	case len(s.subjects) == 0 && s.inbox:
		// The inbox is made once connected.
	case len(s.subjects) == 0 && s.stream == "":
		return explain(errors.New("subject is required"), `sub needs a subject to listen on, for example: sub "orders.>"`)
	case len(s.subjects) > 1 && s.useJS:
		return explain(errors.New("streams subscribe support only 1 subject"), `reading a stream takes one subject (%s given): use a wildcard like "orders.>" to cover several`, strings.Join(s.subjects, ", "))
	}
	if s.terminate && !s.useJS {
		return explain(errors.New("--terminate-at-end is only supported for JetStream subscriptions"), "-T stops at the end of a stream, and a live subscription has no end: add --all to read the stream, for example: sub %q --all -T", s.firstSubjectOr("orders.>"))
	}
	if s.inbox && s.useJS {
		return explain(errors.New("generating inboxes is not compatible with JetStream subscriptions"), "--inbox listens on a new subject no stream stores: drop --inbox, or drop the stream flags")
	}
	if s.queue != "" && s.useJS {
		return explain(errors.New("queue group subscriptions are not supported with JetStream"), "--queue groups live subscribers; a stream is shared through a consumer instead: drop --queue, or create one with consumer add and use --durable")
	}
	if s.dump == "-" && s.inbox {
		return explain(errors.New("generating inboxes is not compatible with dumping to stdout using null terminated strings"), "dump to a directory instead")
	}
	if s.timestamps && s.delta {
		return explain(errors.New("timestamp and delta-time flags are mutually exclusive"), "--timestamp (-t) and --delta-time (-d) both label each message: choose one")
	}
	if s.dump != "" && s.dump != "-" {
		if err := os.MkdirAll(s.dump, 0o700); err != nil {
			return explain(err, "choose another directory with --dump DIR")
		}
	}
	return nil
}

// sinceDuration is --since as natscli reads it, when a read starts.
func (s *subCmd) sinceDuration() (time.Duration, error) {
	d, err := fisk.ParseDuration(s.since)
	if err != nil {
		return 0, explain(err, "--since takes how long ago to start, like 30s, 10m, 2h or 1d")
	}
	s.sinceDur = d
	return d, nil
}

// deliverFlags lists the flags given that choose where a stream read starts.
func (s *subCmd) deliverFlags() []string {
	var out []string
	add := func(set bool, name string) {
		if set {
			out = append(out, name)
		}
	}
	add(s.all, "--all")
	add(s.deliverNew, "--new")
	add(s.last, "--last")
	add(s.since != "", "--since")
	add(s.lastPerSubject, "--last-per-subject")
	add(s.startSeq > 0, "--start-sequence")
	return out
}

// ignoreSubjects splits -I values given as "a,b" or "a b".
func (s *subCmd) ignoreSubjects() []string {
	var out []string
	for _, v := range s.ignore {
		out = append(out, strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' })...)
	}
	return out
}

func (s *subCmd) firstSubjectOr(def string) string {
	if len(s.subjects) > 0 {
		return s.subjects[0]
	}
	return def
}

// run is natscli's subscribe.
func (s *subCmd) run(c *Call) error {
	if len(s.subjects) == 0 && s.stream == "" && !s.inbox {
		// The real CLI says so on stdout, then fails as a parse error
		// does: "error: required argument" and its usage.
		const note = `sub needs a subject to listen on, for example: sub "orders.>" (or --stream NAME to read a stream, or --inbox)`
		fmt.Fprintln(c.Out, "No subjects or --stream flag provided.")
		if err, ok := c.realRefusal(fisk.ErrRequiredArgument); ok {
			return explain(err, note)
		}
		return explain(&parseError{msg: "required argument"}, note)
	}
	name := "natslab sub"
	if len(s.subjects) > 0 {
		name += " " + strings.Join(s.subjects, " ")
	}
	nc, err := c.connectJob(name)
	if err != nil {
		return err
	}
	defer c.closeJob(nc)
	c.watchSlow(nc)
	if err := s.check(); err != nil {
		return err
	}
	if len(s.subjects) == 0 && s.inbox {
		s.subjects = []string{nc.NewRespInbox()}
	}
	sk := newSubSink(c, s)
	defer sk.close()
	if s.useJS {
		err = s.runJetStream(c, nc, sk)
	} else {
		err = s.runCore(c, nc, sk)
	}
	if errors.Is(err, errSubEnded) {
		err = nil
	}
	return err
}

// errSubEnded unwinds a subscription that ended before it began (an empty
// stream read with -T).
var errSubEnded = errors.New("subscription ended")

// await blocks until the subscription has what it wanted (--count, -T),
// --wait passes without traffic, or the job is stopped.
func (s *subCmd) await(c *Call, sk *subSink) error {
	select {
	case <-c.Ctx.Done():
		return nil
	case <-sk.done:
		return sk.failure()
	}
}

// statusSuffix is what the real CLI appends to its "Subscribing" lines:
// the ignored subjects, or a lone space.
func (s *subCmd) statusSuffix() string {
	if ig := s.ignoreSubjects(); len(ig) > 0 {
		return fmt.Sprintf("\nIgnored subjects: %s", strings.Join(ig, ", "))
	}
	return ""
}
