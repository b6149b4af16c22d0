package command

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/choria-io/fisk"
	"github.com/nats-io/jsm.go/api"
	"github.com/nats-io/nats.go"

	"natslab/broker/command/jsadmin"
)

// The stream command family. It talks to JetStream with jsm.go's api types,
// those of the library the real CLI is built on, and sends the requests as
// jsm.go's Manager does (package jsadmin), so that configurations, API
// requests and the JSON it prints are the real CLI's; the lab's own work is
// in what happens where the real CLI would prompt, and in the errors.

func init() {
	register(&natsCommand{name: "stream", aliases: []string{"str", "st", "ms", "s"}, summary: "Create, inspect and manage JetStream streams", build: buildStream})
	examples["stream"] = `stream ls`
	examples["stream add"] = `stream add ORDERS --subjects "orders.>" --defaults`
	examples["stream edit"] = `stream edit ORDERS --max-msgs 5 --force`
	examples["stream info"] = `stream info ORDERS`
	examples["stream state"] = `stream state ORDERS`
	examples["stream view"] = `stream view ORDERS`
	examples["stream get"] = `stream get ORDERS 1`
	examples["stream subjects"] = `stream subjects ORDERS`
	examples["stream purge"] = `stream purge ORDERS --force`
	examples["stream rm"] = `stream rm ORDERS --force`
	examples["stream rmm"] = `stream rmm ORDERS 1 --force`
}

// streamCmd holds every flag of every sub-command; one is made per line, so
// sub-commands never see each other's values.
type streamCmd struct {
	stream  string
	showAll bool
	force   bool
	json    bool
	cfg     streamConfigFlags

	// info
	stateOnly bool
	noSelect  bool

	// ls, report
	filterSubject string
	names         bool
	sortConsumers bool
	sortMsgs      bool
	sortName      bool
	sortStorage   bool
	raw           bool
	cluster       string
	leaders       bool

	// subjects
	subjectFilter string
	subjectSort   string
	reverse       bool

	// get, rmm
	seq       int64
	seqIsSet  bool
	lastFor   string
	translate string

	// view
	pageSize int
	startID  int
	since    string
	viewRaw  bool
	viewSubj string

	// purge
	purgeSubject string
	purgeSeq     uint64
	purgeKeep    uint64

	// edit
	dryRun      bool
	interactive bool
}

// streamSub is one sub-command: its name, aliases and summary, and build,
// which declares its action, arguments and flags.
type streamSub struct {
	name    string
	aliases []string
	summary string
	build   func(s *streamCmd, cmd *fisk.CmdClause, c *Call)
}

// streamSubs in the real CLI's order.
var streamSubs = []streamSub{
	{"add", []string{"create", "new"}, "Create a stream", (*streamCmd).buildAdd},
	{"ls", []string{"list", "l"}, "List the streams", (*streamCmd).buildLs},
	{"report", nil, "Summarise every stream in a table", (*streamCmd).buildReport},
	{"info", []string{"nfo", "i"}, "Show a stream's configuration and state", (*streamCmd).buildInfo},
	{"state", nil, "Show a stream's state", (*streamCmd).buildState},
	{"subjects", []string{"subj"}, "Count the stored messages per subject", (*streamCmd).buildSubjects},
	{"edit", []string{"update"}, "Change a stream's configuration", (*streamCmd).buildEdit},
	{"rm", []string{"delete", "del"}, "Delete a stream and all its messages", (*streamCmd).buildRm},
	{"purge", nil, "Remove messages from a stream, all or some", (*streamCmd).buildPurge},
	{"rmm", nil, "Remove one message from a stream, overwriting its data", (*streamCmd).buildRmm},
	{"view", nil, "Show the messages in a stream, page by page", (*streamCmd).buildView},
	{"get", nil, "Show one stored message, by sequence or the last on a subject", (*streamCmd).buildGet},
	{"cluster", []string{"c"}, "Manage a replicated stream in a cluster: step-down", (*streamCmd).buildCluster}, // stream_cluster.go
}

func buildStream(app *fisk.Application, c *Call) {
	s := &streamCmd{seq: -1}
	str := app.Command("stream", "Create, inspect and manage JetStream streams").Alias("str").Alias("st").Alias("ms").Alias("s")
	str.Flag("all", "Include the streams behind KV buckets and object stores").Short('a').UnNegatableBoolVar(&s.showAll)
	// Declaring every flag of every sub-command costs more than the work
	// of a stream info; when the line names its sub-command, the others
	// are declared bare (their names still answer typos and help).
	want := streamWanted(c)
	for _, sub := range streamSubs {
		cmd := str.Command(sub.name, sub.summary)
		for _, a := range sub.aliases {
			cmd.Alias(a)
		}
		if want == "" || want == sub.name {
			sub.build(s, cmd, c)
		}
	}
}

// streamWanted is the sub-command the line names, or "" when it names none
// or the call only describes the grammar.
func streamWanted(c *Call) string {
	if c.Job == nil || c.Job.Line == "" {
		return ""
	}
	words, err := SplitWords(c.Job.Line)
	if err != nil || len(words) < 2 {
		return ""
	}
	for _, w := range words[1:] {
		if strings.HasPrefix(w, "-") {
			if w == "-a" || w == "--all" {
				continue
			}
			return ""
		}
		for _, sub := range streamSubs {
			if w == sub.name {
				return sub.name
			}
			for _, a := range sub.aliases {
				if w == a {
					return sub.name
				}
			}
		}
		return ""
	}
	return ""
}

// streamManager sends JetStream API requests on the session's connection.
func (c *Call) streamManager() (*jsadmin.Manager, error) {
	nc, err := c.Conn()
	if err != nil {
		return nil, err
	}
	return jsadmin.New(nc, c.S.timeout), nil
}

// streamNameError explains what a stream name may hold.
func streamNameError(name string) error {
	return usageErrorf("%q is not a valid stream name: names cannot hold spaces, dots, * or > (for example ORDERS)", name)
}

// needStream explains a missing stream name: the real CLI would offer a list
// to pick from; the lab names the streams instead.
func (s *streamCmd) needStream(c *Call, full string) error {
	if s.stream != "" {
		if !jsadmin.IsValidName(s.stream) {
			return streamNameError(s.stream)
		}
		return nil
	}
	all, err := c.streamNames()
	if err != nil {
		return err
	}
	var names []string
	for _, n := range all {
		if s.showAll || !jsadmin.IsInternalStream(n) {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return usageErrorf("%s needs a stream name, and there are no streams yet: create one with stream add ORDERS --subjects \"orders.>\" --defaults", full)
	}
	return usageErrorf("%s needs a stream name: one of %s (for example: %s %s)", full, strings.Join(names, ", "), full, names[0])
}

// load fetches a stream, with the lab's errors for a name that does not exist.
func (s *streamCmd) load(c *Call) (*jsadmin.Stream, error) {
	mgr, err := c.streamManager()
	if err != nil {
		return nil, err
	}
	st, err := mgr.LoadStream(s.stream)
	if err != nil {
		return nil, c.streamAPIError(err, s.stream, "")
	}
	return st, nil
}

// JetStream API error codes the lab explains (nats errors ls).
const (
	streamErrCodeJetStreamOff     = 10076 // JetStream not enabled for the account
	streamErrCodeJetStreamOffSrv  = 10039 // JetStream not enabled
	streamErrCodeNoMessage        = 10037
	streamErrCodeSeqNotFound      = 10043 // deleting a message that is not there
	streamErrCodeStreamExists     = 10058
	streamErrCodeStreamNotFound   = 10059
	streamErrCodeSubjectsOverlap  = 10065
	streamErrCodeReplicasCluster  = 10074
	streamErrCodeInsufficientRsrc = 10023
	streamErrCodeMemoryFull       = 10028
	streamErrCodeStorageFull      = 10047
	streamErrCodeInvalidConfig    = 10052
	streamErrCodeNoPeers          = 10005 // no suitable peers for placement
)

// streamAPIError explains an error from the JetStream API about stream name;
// action ("could not create Stream") prefixes errors the lab passes
// through, as the real CLI does.
func (c *Call) streamAPIError(err error, name, action string) error {
	if err == nil {
		return nil
	}
	var ae api.ApiError
	var aep *api.ApiError
	code := uint16(0)
	if errors.As(err, &aep) {
		code = aep.NatsErrorCode()
	} else if errors.As(err, &ae) {
		code = ae.NatsErrorCode()
	}
	switch {
	case code == streamErrCodeStreamNotFound:
		return c.unknownStream(name)
	case code == streamErrCodeJetStreamOff, code == streamErrCodeJetStreamOffSrv,
		errors.Is(err, nats.ErrNoResponders), errors.Is(err, nats.ErrJetStreamNotEnabled):
		return c.jetStreamOff()
	case strings.Contains(err.Error(), "is not a valid stream name"):
		return streamNameError(name)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, nats.ErrTimeout):
		return fmt.Errorf("JetStream did not answer within %s: the server may be restarting or, in a cluster, electing a new leader; try again in a moment", c.S.timeout)
	}
	if e := c.jsError(err); e != err {
		return e
	}
	if action != "" {
		return fmt.Errorf("%s: %w", action, err)
	}
	return err
}

// streamSplitSubjects accepts subjects as separate flags, or as one flag holding a
// comma or space separated list, as the real CLI does.
func streamSplitSubjects(in []string) []string {
	var out []string
	for _, s := range in {
		out = append(out, strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' })...)
	}
	return out
}
