package command

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/choria-io/fisk"
	"github.com/nats-io/jsm.go"
	"github.com/nats-io/jsm.go/api"
	"github.com/nats-io/nats-server/v2/server"

	"natslab/broker"
	"natslab/broker/text"
)

func (s *streamCmd) buildAdd(add *fisk.CmdClause, c *Call) {
	add.Action(act(c, s.add))
	add.Arg("stream", "The stream's name, like ORDERS").StringVar(&s.stream)
	s.cfg.addConfigFlags(add, false)
	add.Flag("json", "Print the new stream's information as JSON").Short('j').UnNegatableBoolVar(&s.json)
	add.Flag("defaults", "Take the default for every value not given, instead of asking").UnNegatableBoolVar(&s.cfg.defaults)
}

// add is natscli's addAction: the configuration from the flags (refusing,
// as the real CLI does without a terminal, where it would ask), then the
// stream and its information.
func (s *streamCmd) add(c *Call) error {
	// natscli's manager checks a new stream's configuration against the
	// JSON schema of JetStream's API (jsm.go's schemas, natscli's
	// validator: schemaValidator) before it asks the server.
	mgr, err := c.manager(jsm.WithAPIValidation(schemaValidator{}))
	if err != nil {
		return fatalIf(err, "could not create Stream")
	}
	requireSize, _ := mgr.IsStreamMaxBytesRequired()
	cfg, err := s.cfg.prepareConfig(s.stream, requireSize)
	if err != nil {
		return err
	}
	st, err := mgr.NewStreamFromDefault(s.stream, cfg)
	if err != nil {
		return s.createError(c, mgr, cfg, false, fatalIf(err, "could not create Stream"))
	}
	c.awaitReachable(s.stream)
	fmt.Fprintf(c.Out, "Stream %s was created\n\n", s.stream)
	return s.showStream(c, st)
}

// awaitReachable waits until a publish on the stream's subjects reaches
// it from every node of the lab's cluster (broker.AwaitReachable): a
// script's next line or a lesson's setup may publish at once.
func (c *Call) awaitReachable(stream string) {
	broker.AwaitReachable(c.S.dep, stream, c.timeout)
}

// schemaMinimum is a schema check's complaint about a number too small:
// the field, the least it takes, the number found.
var schemaMinimum = text.Pattern(`/(\w+): must be >= (-?\d+) but found (-?\d+)`)

// streamSchemaFlags are stream add's flags by the configuration field
// they set.
var streamSchemaFlags = map[string]string{
	"max_msgs":             "--max-msgs",
	"max_msgs_per_subject": "--max-msgs-per-subject",
	"max_bytes":            "--max-bytes",
	"max_msg_size":         "--max-msg-size",
	"max_consumers":        "--max-consumers",
}

// streamSchemaDurations are those that set a duration (in nanoseconds in
// the configuration).
var streamSchemaDurations = map[string]string{
	"max_age":          "--max-age",
	"duplicate_window": "--dupe-window",
}

// replicasNote says why the server refused --replicas n (n > 1) for a
// stream or a consumer: it is no cluster.
func (c *Call) replicasNote(n int) string {
	if c.S.dep.Own() {
		return fmt.Sprintf("--replicas %d needs a cluster, and the lab's server is a single node: use --replicas 1, or start natslab with --cluster 3", n)
	}
	return fmt.Sprintf("--replicas %d needs a cluster, and the server the lab is connected to is not clustered: use --replicas 1", n)
}

// createError adds the lab's note to the server's refusal of a new stream
// (or an edit): which stream already has the name or the subjects, what a
// replica needs.
func (s *streamCmd) createError(c *Call, mgr *jsm.Manager, cfg api.StreamConfig, edit bool, err error) error {
	switch {
	case api.IsNatsError(err, streamErrCodeStreamExists):
		if existing, lerr := mgr.LoadStream(s.stream); lerr == nil {
			return explain(err, "stream %s already exists, %s: change it with stream edit %s, or remove it first with stream rm %s --force",
				s.stream, capturing(existing, true), s.stream, s.stream)
		}
	case api.IsNatsError(err, streamErrCodeSubjectsOverlap):
		if note := s.overlapNote(mgr, cfg, edit); note != "" {
			return explain(err, "%s", note)
		}
	case api.IsNatsError(err, streamErrCodeReplicasCluster):
		return explain(err, "%s", c.replicasNote(cfg.Replicas))
	case api.IsNatsError(err, streamErrCodeMirrorSubjects) && cfg.Mirror != nil:
		origin, what := cfg.Mirror.Name, ""
		if o, lerr := mgr.LoadStream(origin); lerr == nil && len(o.Subjects()) > 0 {
			what = " (" + strings.Join(o.Subjects(), ", ") + ")"
		}
		return explain(err, "stream %s mirrors %s: it stores only what it copies from there, so it captures no subjects of its own; publish to %s's subjects%s, or, to copy %s and capture %s too, make a stream with stream add NAME --source %s --subjects '%s' --defaults",
			s.stream, origin, origin, what, origin, strings.Join(cfg.Subjects, ", "), origin, strings.Join(cfg.Subjects, ","))
	case api.IsNatsError(err, streamErrCodeNoPeers):
		if noted := c.noPeers(err); ErrorNote(noted) != "" {
			return noted
		}
		return explain(err, "the cluster has no %d servers able to keep a copy of stream %s: use fewer --replicas, or start the nodes that are down", cfg.Replicas, s.stream)
	case api.IsNatsError(err, streamErrCodeInsufficientRsrc), api.IsNatsError(err, streamErrCodeMemoryFull), api.IsNatsError(err, streamErrCodeStorageFull):
		return explain(err, "the server has no room for stream %s: lower --max-bytes, use --storage file, or remove streams you no longer need", s.stream)
	case api.IsNatsError(err, streamErrCodeInvalidConfig):
		msg := err.Error()
		switch {
		case strings.Contains(msg, "capturing all subjects"), strings.Contains(msg, "overlap with jetstream api"):
			return explain(err, "stream %s cannot capture %s: that includes the server's own API subjects; capture a prefix such as orders.> instead", s.stream, strings.Join(cfg.Subjects, ", "))
		case strings.Contains(msg, "duplicates window can not be larger"):
			return explain(err, "--dupe-window %v is longer than --max-age %v: messages would be gone while their IDs are still remembered; use a --dupe-window of %v or less", cfg.Duplicates, cfg.MaxAge, cfg.MaxAge)
		case strings.Contains(msg, "invalid subject"):
			return explain(err, "subjects are tokens separated by dots; * stands for one token, > for the rest and only at the end, like orders.>")
		case strings.Contains(msg, "discard new per subject requires discard new policy"):
			return explain(err, "--discard-per-subject refuses a new message on a subject that holds --max-msgs-per-subject already, which needs --discard new")
		case strings.Contains(msg, "discard new per subject requires max msgs per subject"):
			return explain(err, "--discard-per-subject refuses a new message on a subject that holds --max-msgs-per-subject already: give that limit, like --max-msgs-per-subject 10")
		case strings.Contains(msg, "subject delete marker TTL must be at least 1 second"):
			return explain(err, "--subject-del-markers-ttl takes 1s or more")
		case strings.Contains(msg, "roll-ups require the purge permission"):
			return explain(err, "a roll-up (a message with a Nats-Rollup header) purges the messages before it, so --allow-rollup needs purges allowed: use --no-deny-purge, or --no-allow-rollup")
		}
	case strings.Contains(err.Error(), "configuration validation failed"):
		if m := schemaMinimum().FindStringSubmatch(err.Error()); m != nil {
			flag, found := streamSchemaFlags[m[1]], m[3]
			if d, ok := streamSchemaDurations[m[1]]; ok {
				flag = d
				if n, perr := strconv.ParseInt(found, 10, 64); perr == nil {
					found = time.Duration(n).String()
				}
			}
			least := m[2]
			if least == "-1" {
				least = "-1 (unlimited)"
			}
			if flag != "" {
				return explain(err, "%s %s is too small: JetStream's schema takes %s or more, and natscli checks a new stream against it before asking the server", flag, found, least)
			}
		}
		return explain(err, "natscli checks a new stream against JetStream's schema before asking the server, and this one does not fit it: help stream add says what each flag takes")
	case strings.Contains(err.Error(), "is not a valid stream name"):
		return explain(err, "stream names cannot hold spaces, dots, * or > (for example ORDERS)")
	}
	return c.explainAPI(err)
}

// overlapNote names the streams that already store some of the subjects:
// each subject can be stored by one stream only. A new stream may leave
// them to the stream that has them; an edit that takes them over needs
// that stream to give them up first.
func (s *streamCmd) overlapNote(mgr *jsm.Manager, cfg api.StreamConfig, edit bool) string {
	streams, _, _, err := mgr.Streams(nil)
	if err != nil {
		return ""
	}
	var clashes, owners []string
	for _, other := range streams {
		if other.Name() == s.stream {
			continue
		}
		var mine, theirs []string
		for _, a := range cfg.Subjects {
			for _, b := range other.Subjects() {
				if server.SubjectsCollide(a, b) {
					mine = streamAppendNew(mine, a)
					theirs = streamAppendNew(theirs, b)
				}
			}
		}
		if len(mine) > 0 {
			clashes = append(clashes, fmt.Sprintf("stream %s already captures %s, which overlaps %s", other.Name(), strings.Join(theirs, ", "), strings.Join(mine, ", ")))
			owners = append(owners, other.Name())
		}
	}
	if len(clashes) == 0 {
		return ""
	}
	sort.Strings(clashes)
	sort.Strings(owners)
	what := "choose other subjects, or add them to the existing stream with stream edit"
	switch {
	case edit && len(owners) == 1:
		what = fmt.Sprintf("take them out of %s first (stream edit %s --subjects with the ones it keeps, or stream rm %s --force), or choose other subjects", owners[0], owners[0], owners[0])
	case edit:
		what = fmt.Sprintf("take them out of %s first (stream edit with the subjects each keeps, or stream rm), or choose other subjects", strings.Join(owners, ", "))
	}
	return fmt.Sprintf("%s. A subject can be stored by one stream only: %s", strings.Join(clashes, "; "), what)
}

func streamAppendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
