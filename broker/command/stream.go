package command

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/choria-io/fisk"
	"github.com/nats-io/nats.go"

	"github.com/nats-io/jsm.go"
)

// The stream command family, natscli's stream_command.go action for action:
// it manages streams with jsm.go's Manager, the library the real CLI uses,
// so that requests, configurations, errors and the JSON it prints are the
// real CLI's. Where the real CLI would ask (a prompt, a confirmation, a
// stream picked from a list) and has no terminal, it refuses as the real
// CLI does; the lab's pane asks instead where it can, and notes say what
// to type.

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
	seq     int64
	lastFor string

	// view
	pageSize int
	startID  int
	since    time.Duration
	viewRaw  bool
	viewSubj string

	// purge
	purgeSubject string
	purgeSeq     uint64
	purgeKeep    uint64

	// edit
	dryRun bool
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

// manager is jsm.go's JetStream manager on the session's connection, the
// library the real CLI manages streams and consumers with, so requests,
// answers and errors are the real CLI's.
func (c *Call) manager(opts ...jsm.Option) (*jsm.Manager, error) {
	nc, err := c.Conn()
	if err != nil {
		return nil, c.jsError(err)
	}
	return jsm.New(nc, append([]jsm.Option{jsm.WithTimeout(c.timeout)}, opts...)...)
}

// askStream is natscli's connectAndAskStream: it connects and selects the
// stream named (see selectStream), as "could not pick a Stream to operate
// on" when it cannot.
func (s *streamCmd) askStream(c *Call) (*jsm.Manager, *jsm.Stream, error) {
	mgr, err := c.manager()
	if err != nil {
		return nil, nil, fatalIf(err, "setup failed")
	}
	st, err := c.selectStream(mgr, s.stream, s.showAll)
	if err != nil {
		return nil, nil, err
	}
	return mgr, st, nil
}

// loadStream loads the stream s names, as the real CLI does after picking
// it (LoadStream); failures carry the real CLI's prefix.
func (s *streamCmd) loadStream(c *Call, mgr *jsm.Manager, st *jsm.Stream, format string, a ...any) (*jsm.Stream, error) {
	if st != nil {
		return st, nil
	}
	st, err := mgr.LoadStream(s.stream)
	if err != nil {
		return nil, c.explainAPI(fatalIf(err, format, a...))
	}
	return st, nil
}

// explainAPI adds the lab's note to a JetStream API error the real CLI
// prints as it is: what the error code means here and what to do.
func (c *Call) explainAPI(err error) error {
	if err == nil {
		return nil
	}
	code := apiErrorCode(err)
	if code == 0 {
		// natscli often wraps with %s, so the text is what is left to test.
		if errors.Is(err, nats.ErrNoResponders) || strings.Contains(err.Error(), nats.ErrNoResponders.Error()) {
			return explain(err, "nobody answers the JetStream API: %s", c.jetStreamOffNote())
		}
		if unreachable(err) {
			return explain(err, "%s", unreachableNote)
		}
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) {
			return explain(err, "JetStream did not answer within %s: the server may be restarting or, in a cluster, electing a new leader; try again in a moment", c.timeout)
		}
		return err
	}
	switch code {
	case streamErrCodeJetStreamOff, streamErrCodeJetStreamOffSrv:
		return explain(err, "%s", c.jetStreamOffNote())
	case errCodeClusterUnavailable:
		return c.noMetaLeader(err)
	case errCodeNoPeers:
		return c.noPeers(err)
	}
	return err
}

// JetStream API error codes the lab explains (nats errors ls).
const (
	streamErrCodeJetStreamOff     = 10076 // JetStream not enabled for the account
	streamErrCodeJetStreamOffSrv  = 10039 // JetStream not enabled
	streamErrCodeNoMessage        = 10037
	streamErrCodeSeqNotFound      = 10043 // deleting a message that is not there
	streamErrCodeMsgDeleteFailed  = 10057 // deleting a message failed; "no message found" below the first
	streamErrCodeStreamExists     = 10058
	streamErrCodeStreamNotFound   = 10059
	streamErrCodeSubjectsOverlap  = 10065
	streamErrCodeReplicasCluster  = 10074
	streamErrCodeMirrorSubjects   = 10034 // stream mirrors can not contain subjects
	streamErrCodeInsufficientRsrc = 10023
	streamErrCodeMemoryFull       = 10028
	streamErrCodeStorageFull      = 10047
	streamErrCodeInvalidConfig    = 10052
	streamErrCodeNoPeers          = 10005 // no suitable peers for placement
)
