package command

import (
	"time"

	"github.com/choria-io/fisk"
)

// The consumer command family: a consumer is a cursor on a stream with its
// own delivery and acknowledgement state. The grammar follows natscli's
// `nats consumer`; the actions live in consumer_*.go, one job per file.

func init() {
	register(&natsCommand{name: "consumer", aliases: []string{"con", "obs", "c"}, summary: "Create, inspect and read from JetStream consumers", build: buildConsumer})
	examples["consumer add"] = "consumer add EVENTS worker --pull --ack explicit --defaults"
	examples["consumer edit"] = "consumer edit EVENTS worker --max-deliver 3"
	examples["consumer info"] = "consumer info EVENTS worker"
	examples["consumer ls"] = "consumer ls EVENTS"
	examples["consumer report"] = "consumer report EVENTS"
	examples["consumer next"] = "consumer next EVENTS worker --ack"
	examples["consumer rm"] = "consumer rm EVENTS worker --force"
}

// consumerCmd holds what one consumer command line asked for.
type consumerCmd struct {
	stream   string
	consumer string

	// add and edit
	defaults      bool
	pull          bool
	target        string
	deliverGroup  string
	deliver       string
	ack           string
	ackWait       time.Duration
	ackWaitSet    bool
	maxDeliver    int
	maxDeliverSet bool
	filters       []string
	replay        string
	maxPending    int
	maxPendingSet bool
	maxWaiting    int
	description   string
	descSet       bool
	inactive      time.Duration
	inactiveSet   bool
	ephemeral     bool
	headersOnly   bool
	headersSet    bool
	heartbeat     time.Duration
	flowControl   bool
	// what the real CLI would ask for when not given
	deliverGroupSet, heartbeatSet, flowControlSet bool
	memory                                        bool
	replicas                                      int
	maxPullBatch                                  int
	maxPullExpire                                 time.Duration
	maxPullBytes                                  int
	backoff                                       string
	backoffSteps                                  uint
	backoffMin                                    time.Duration
	backoffMax                                    time.Duration
	metadata                                      map[string]string
	dryRun                                        bool

	// info, ls, report
	json  bool
	names bool

	// next
	ackNext    bool
	ackNextSet bool
	nak        bool
	term       bool
	raw        bool
	ackDelay   time.Duration
	count      int

	force bool
}

func buildConsumer(app *fisk.Application, c *Call) {
	x := &consumerCmd{metadata: map[string]string{}}
	cons := app.Command("consumer", "Consumers: durable cursors on a stream that deliver and track acknowledgements").Alias("con").Alias("obs").Alias("c")
	cons.Flag("all", "Include system streams too (accepted for compatibility)").Short('a').Hidden().UnNegatableBool()
	// natscli runs these through jsm.go, which waits at least half a second.
	withJSM := func(run func(*Call) error) func(*Call) error {
		return func(c *Call) error {
			c.timeout = jsmTimeout(c.timeout)
			return run(c)
		}
	}

	add := cons.Command("add", "Creates a consumer on a stream").Alias("create").Alias("new").Action(act(c, withJSM(x.add)))
	add.Arg("stream", "The stream to consume from").StringVar(&x.stream)
	add.Arg("consumer", "The consumer's (durable) name").StringVar(&x.consumer)
	x.configFlags(add, false)
	add.Flag("defaults", "Use the default for every value not given (the lab never prompts)").UnNegatableBoolVar(&x.defaults)

	edit := cons.Command("edit", "Changes the editable settings of a consumer").Alias("update").Action(act(c, withJSM(x.edit)))
	edit.Arg("stream", "The consumer's stream").StringVar(&x.stream)
	edit.Arg("consumer", "The consumer to change").StringVar(&x.consumer)
	x.configFlags(edit, true)
	edit.Flag("force", "Change it without asking").Short('f').UnNegatableBoolVar(&x.force)
	edit.Flag("dry-run", "Only show what would change").UnNegatableBoolVar(&x.dryRun)

	ls := cons.Command("ls", "Lists the consumers of a stream").Alias("list").Action(act(c, withJSM(x.ls)))
	ls.Arg("stream", "The stream whose consumers to list").StringVar(&x.stream)
	ls.Flag("json", "Print the names as JSON").Short('j').UnNegatableBoolVar(&x.json)
	ls.Flag("names", "Print just the names").Short('n').UnNegatableBoolVar(&x.names)
	// natscli's --no-select is its force: a consumer named that does not
	// load is then unknown, not one to pick from a list.
	ls.Flag("no-select", "Never pick from a list (the lab never does)").UnNegatableBoolVar(&x.force)

	info := cons.Command("info", "Shows a consumer's configuration and state").Alias("nfo").Action(act(c, withJSM(x.info)))
	info.Arg("stream", "The consumer's stream").StringVar(&x.stream)
	info.Arg("consumer", "The consumer to show").StringVar(&x.consumer)
	info.Flag("json", "Print the server's JSON").Short('j').UnNegatableBoolVar(&x.json)
	info.Flag("no-select", "Never pick from a list (the lab never does)").UnNegatableBoolVar(&x.force)

	rm := cons.Command("rm", "Deletes a consumer and its state").Alias("delete").Alias("del").Action(act(c, withJSM(x.rm)))
	rm.Arg("stream", "The consumer's stream").StringVar(&x.stream)
	rm.Arg("consumer", "The consumer to delete").StringVar(&x.consumer)
	rm.Flag("force", "Delete without asking").Short('f').UnNegatableBoolVar(&x.force)

	next := cons.Command("next", "Pulls messages from a pull consumer, acknowledging them by default").Action(act(c, x.next))
	next.Arg("stream", "The consumer's stream").Required().StringVar(&x.stream)
	next.Arg("consumer", "The pull consumer to read from").Required().StringVar(&x.consumer)
	next.Flag("ack", "Acknowledge each message (--no-ack leaves it to be redelivered after the ack wait)").Default("true").IsSetByUser(&x.ackNextSet).BoolVar(&x.ackNext)
	next.Flag("nak", "Negatively acknowledge: ask for redelivery now").UnNegatableBoolVar(&x.nak)
	next.Flag("term", "Terminate the message: never deliver it again").UnNegatableBoolVar(&x.term)
	next.Flag("raw", "Print only the message bodies").Short('r').UnNegatableBoolVar(&x.raw)
	next.Flag("wait", "Pause a random time up to this long before acknowledging").PlaceHolder("WAIT").DurationVar(&x.ackDelay)
	next.Flag("count", "How many messages to pull, one after another").Default("1").IntVar(&x.count)

	report := cons.Command("report", "Tables every consumer of a stream with its progress").Action(act(c, withJSM(x.report)))
	report.Arg("stream", "The stream to report on").StringVar(&x.stream)
	report.Flag("raw", "Print numbers unformatted").Short('r').UnNegatableBoolVar(&x.raw)
	report.Flag("leaders", "Show the leader distribution (clusters only)").Short('l').UnNegatableBool()
}

// configFlags declares the settings add and edit share; edit omits those
// the server cannot change on an existing consumer.
func (x *consumerCmd) configFlags(cmd *fisk.CmdClause, edit bool) {
	if !edit {
		cmd.Flag("pull", "Deliver on request (pull), rather than pushing to a subject").UnNegatableBoolVar(&x.pull)
		cmd.Flag("deliver", "Where to start: all, new, last, last_per_subject, a stream sequence (5) or a time ago (1h)").PlaceHolder("POLICY").StringVar(&x.deliver)
		cmd.Flag("ack", "Acknowledgement policy (explicit, all, none, flow_control)").PlaceHolder("ACK").EnumVar(&x.ack, "explicit", "all", "none", "flow_control")
		cmd.Flag("replay", "Replay policy (instant, original)").PlaceHolder("POLICY").EnumVar(&x.replay, "instant", "original")
		cmd.Flag("ephemeral", "Create an ephemeral consumer, removed when idle").UnNegatableBoolVar(&x.ephemeral)
		cmd.Flag("deliver-group", "Push consumers: deliver only to this queue group").PlaceHolder("GROUP").IsSetByUser(&x.deliverGroupSet).StringVar(&x.deliverGroup)
		cmd.Flag("heartbeat", "Push consumers: idle heartbeat interval").PlaceHolder("HEARTBEAT").IsSetByUser(&x.heartbeatSet).DurationVar(&x.heartbeat)
		cmd.Flag("flow-control", "Push consumers: enable flow control").IsSetByUser(&x.flowControlSet).UnNegatableBoolVar(&x.flowControl)
		cmd.Flag("max-waiting", "Pull consumers: how many pull requests may wait at once").PlaceHolder("PULLS").IntVar(&x.maxWaiting)
		cmd.Flag("memory", "Keep the consumer's state in memory").UnNegatableBoolVar(&x.memory)
	}
	cmd.Flag("target", "Push consumers: the subject to deliver to").PlaceHolder("SUBJECT").StringVar(&x.target)
	cmd.Flag("wait", "Ack wait: how long a delivered message may go unacknowledged before it is redelivered").PlaceHolder("DURATION").IsSetByUser(&x.ackWaitSet).DurationVar(&x.ackWait)
	cmd.Flag("max-deliver", "How many times a message may be delivered (-1 for no limit)").PlaceHolder("TRIES").IsSetByUser(&x.maxDeliverSet).IntVar(&x.maxDeliver)
	cmd.Flag("max-pending", "How many messages may await acknowledgement before delivery pauses").PlaceHolder("MAX").IsSetByUser(&x.maxPendingSet).IntVar(&x.maxPending)
	cmd.Flag("max-outstanding", "Same as --max-pending").Hidden().IsSetByUser(&x.maxPendingSet).IntVar(&x.maxPending)
	cmd.Flag("filter", "Only deliver messages on these subjects (repeat for more)").PlaceHolder("SUBJECTS").StringsVar(&x.filters)
	cmd.Flag("description", "A description of the consumer").IsSetByUser(&x.descSet).StringVar(&x.description)
	cmd.Flag("inactive-threshold", "Remove the consumer after it has been idle this long").PlaceHolder("THRESHOLD").IsSetByUser(&x.inactiveSet).DurationVar(&x.inactive)
	cmd.Flag("headers-only", "Deliver only headers, not bodies").IsSetByUser(&x.headersSet).BoolVar(&x.headersOnly)
	cmd.Flag("replicas", "Replica count, instead of the stream's").IntVar(&x.replicas)
	cmd.Flag("max-pull-batch", "Pull consumers: the largest batch one request may ask for").PlaceHolder("BATCH_SIZE").IntVar(&x.maxPullBatch)
	cmd.Flag("max-pull-expire", "Pull consumers: the longest a pull request may wait").PlaceHolder("EXPIRES").DurationVar(&x.maxPullExpire)
	cmd.Flag("max-pull-bytes", "Pull consumers: the most bytes one request may ask for").PlaceHolder("BYTES").IntVar(&x.maxPullBytes)
	cmd.Flag("backoff", "Redelivery backoff policy (linear, none)").PlaceHolder("MODE").EnumVar(&x.backoff, "linear", "none")
	cmd.Flag("backoff-steps", "Steps in the backoff policy").Default("10").UintVar(&x.backoffSteps)
	cmd.Flag("backoff-min", "The shortest backoff period").Default("1m").DurationVar(&x.backoffMin)
	cmd.Flag("backoff-max", "The longest backoff period").Default("20m").DurationVar(&x.backoffMax)
	cmd.Flag("metadata", "Adds metadata K=V to the consumer").PlaceHolder("META").StringMapVar(&x.metadata)
}
