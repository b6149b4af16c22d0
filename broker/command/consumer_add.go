package command

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/google/go-cmp/cmp"
	"github.com/nats-io/jsm.go"
	"github.com/nats-io/jsm.go/api"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"
)

// consumer add and consumer edit.

func (x *consumerCmd) add(c *Call) error {
	// In natscli's order: the stream, the name, the configuration (each
	// answer it would ask for), what jsm.go checks, then the server.
	mgr, err := c.manager()
	if err != nil {
		return err
	}
	// natscli's connectAndSetup: with both names it loads the consumer
	// first, and picks the stream only when that fails (a user the server
	// refuses the load sees that refusal first).
	loaded := false
	if x.stream != "" && x.consumer != "" {
		_, lerr := mgr.LoadConsumer(x.stream, x.consumer)
		loaded = lerr == nil
	}
	if !loaded {
		if _, err := c.selectStreamFor(mgr, x.stream, false, "could not select Stream"); err != nil {
			return err
		}
	}
	if x.consumer == "" && !x.ephemeral {
		return explain(fatalIf(errNoPrompt, "could not request durable name"), "the real CLI asks for the consumer's name here, and has no terminal to ask in: give it after the stream, for example: consumer add %s worker --pull --defaults", x.stream)
	}
	badName := validConsumerName(x.consumer)
	if badName != nil && !x.ephemeral && strings.ContainsAny(x.consumer, ".*>") {
		return noteOf(errors.New("durable name can not contain '.', '*', '>'"), badName)
	}
	cfg, err := x.newConfig(c.Now())
	if err != nil {
		return err
	}
	if x.consumer != "" && badName != nil {
		//lint:ignore ST1005 the real CLI's line, capital and all
		return noteOf(fmt.Errorf("Consumer creation failed: %q is not a valid consumer name", x.consumer), badName)
	}
	if err := x.badFilter(); err != nil {
		// jsm.go puts the filter in the request's subject, which nats.go
		// refuses to send.
		//lint:ignore ST1005 the real CLI's line, capital and all
		return noteOf(errors.New("Consumer creation failed: nats: invalid subject"), err)
	}
	st, err := c.stream(x.stream)
	if err != nil {
		return err
	}
	ctx, cancel := c.Timeout()
	defer cancel()
	// As natscli: create, or update one of that name (the server refuses
	// what cannot change).
	existed := false
	if _, err := c.consumerInfo(x.stream, consumerName(cfg)); err == nil {
		existed = true
	}
	var ci *jetstream.ConsumerInfo
	if cfg.DeliverSubject != "" {
		pc, err := st.CreateOrUpdatePushConsumer(ctx, cfg)
		if err != nil {
			return c.createError(ctx, st, cfg, err)
		}
		ci = pc.CachedInfo()
	} else {
		cons, err := st.CreateOrUpdateConsumer(ctx, cfg)
		if err != nil {
			return c.createError(ctx, st, cfg, err)
		}
		ci = cons.CachedInfo()
	}
	if existed && consumerName(cfg) != "" {
		c.Notef("consumer %s existed already: consumer add changed it as consumer edit would, where the server allows the change", consumerName(cfg))
	}
	c.warnUnmatchedFilters(st.CachedInfo(), cfg)
	return renderConsumerInfo(c.Out, ci)
}

// createError explains why the server refused a new consumer.
func (c *Call) createError(ctx context.Context, st jetstream.Stream, cfg jetstream.ConsumerConfig, err error) error {
	stream := st.CachedInfo().Config.Name
	name := consumerName(cfg)
	var apiErr *jetstream.APIError
	if !errors.As(err, &apiErr) {
		//lint:ignore ST1005 the real CLI's words, capital and all
		line := fmt.Errorf("Consumer creation failed: %w", c.jsError(err))
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			// Removed since it was selected.
			return noteOf(line, c.unknownStream(stream))
		}
		return line
	}
	code := fmt.Sprintf("Consumer creation failed: %s (%d)", apiErr.Description, apiErr.ErrorCode)
	switch apiErr.ErrorCode {
	case jetstream.JSErrCodeConsumerExists, jetstream.JSErrCodeConsumerAlreadyExists, jetstream.JSErrCodeConsumerNameExists:
		if note := c.existingConsumerNote(ctx, st, cfg, apiErr.Description); note != "" {
			return explain(errors.New(code), "%s", note)
		}
		return errors.New(code)
	case 10099: // multiple non-filtered consumers not allowed on workqueue stream
		return explain(errors.New(code), "stream %s is a work queue, where each message goes to exactly one consumer, so it takes only one consumer without a filter (it has %s); give this one a --filter on subjects no other consumer takes, or share the existing consumer", stream, c.consumerList(st))
	case 10100: // filtered consumer not unique on workqueue stream
		return explain(errors.New(code), "stream %s is a work queue, where each message goes to exactly one consumer, so consumer filters may not overlap (it has %s); choose a --filter no other consumer covers", stream, c.consumerList(st))
	case 10101:
		return explain(errors.New(code), "a work queue stream hands out every message once, so its consumers must start at the beginning: use --deliver all")
	case 10098, 10084:
		return explain(errors.New(code), "a work queue removes a message once it is acknowledged, so its consumers need --ack explicit")
	case streamErrCodeReplicasCluster:
		return explain(errors.New(code), "%s", c.replicasNote(cfg.Replicas))
	case 10094:
		return explain(errors.New(code), "stream sequences start at 1: --deliver 1 (or --deliver all) starts at the first message")
	case 10112:
		return explain(errors.New(code), "--target must be a subject to publish to, with no spaces or wildcards, like deliver.%s", name)
	case 10026: // maximum consumers limit reached
		return explain(errors.New(code), "stream %s has as many consumers as its --max-consumers allows (it has %s): remove one first with consumer rm %s NAME", stream, c.consumerList(st), stream)
	case 10116: // max deliver is required to be > length of backoff values
		return explain(errors.New(code), "each redelivery waits the next --backoff delay, so --max-deliver must be more than the delays (%d here): raise --max-deliver, or lower --backoff-steps", len(cfg.BackOff))
	}
	// Adding a consumer that exists changes it: the server refuses what
	// cannot change (the deliver policy, say).
	if note := c.existingConsumerNote(ctx, st, cfg, apiErr.Description); note != "" {
		return explain(errors.New(code), "%s", note)
	}
	return errors.New(code)
}

// existingConsumerNote says how an existing consumer of cfg's name differs
// from cfg, and what to do instead; "" when there is none. refusal is the
// server's word: where it names what can not be updated (the deliver
// policy, the ack policy), consumer edit can not change it either.
func (c *Call) existingConsumerNote(ctx context.Context, st jetstream.Stream, cfg jetstream.ConsumerConfig, refusal string) string {
	stream, name := st.CachedInfo().Config.Name, consumerName(cfg)
	if name == "" {
		return ""
	}
	var info *jetstream.ConsumerInfo
	if cur, err := st.Consumer(ctx, name); err == nil {
		info = cur.CachedInfo()
	} else if errors.Is(err, jetstream.ErrNotPullConsumer) {
		if pc, perr := st.PushConsumer(ctx, name); perr == nil {
			info = pc.CachedInfo()
		}
	}
	if info == nil {
		return ""
	}
	what := "a different configuration"
	if d := configChanges(info.Config, cfg, true); len(d) > 0 {
		what = strings.Join(d, ", ")
	}
	if fixed, ok := strings.CutSuffix(refusal, " can not be updated"); ok && fixed != "" {
		return fmt.Sprintf("consumer %s already exists on stream %s with %s; its %s is fixed when it is made, and neither consumer add nor consumer edit changes it: remove it first with consumer rm %s %s --force, then add it again", name, stream, what, fixed, stream, name)
	}
	return fmt.Sprintf("consumer %s already exists on stream %s with %s; consumer add changes an existing consumer only where the server allows it: change what can change with consumer edit, or remove it first with consumer rm %s %s --force", name, stream, what, stream, name)
}

// consumerList describes a stream's consumers and their filters, for errors.
func (c *Call) consumerList(st jetstream.Stream) string {
	ctx, cancel := c.Timeout()
	defer cancel()
	var parts []string
	l := st.ListConsumers(ctx)
	for ci := range l.Info() {
		filter := "no filter"
		switch {
		case ci.Config.FilterSubject != "":
			filter = "filter " + ci.Config.FilterSubject
		case len(ci.Config.FilterSubjects) > 0:
			filter = "filters " + strings.Join(ci.Config.FilterSubjects, ", ")
		}
		parts = append(parts, fmt.Sprintf("%s with %s", ci.Name, filter))
	}
	if len(parts) == 0 {
		return "no consumers"
	}
	return strings.Join(parts, "; ")
}

func consumerName(cfg jetstream.ConsumerConfig) string {
	if cfg.Durable != "" {
		return cfg.Durable
	}
	return cfg.Name
}

// warnUnmatchedFilters says when a filter matches none of the subjects the
// stream captures: the server accepts it, and the consumer then never gets
// a message, which is usually a typo.
func (c *Call) warnUnmatchedFilters(si *jetstream.StreamInfo, cfg jetstream.ConsumerConfig) {
	if si == nil || len(si.Config.Subjects) == 0 {
		return // a mirror or sourced stream: any subject may arrive
	}
	filters := cfg.FilterSubjects
	if cfg.FilterSubject != "" {
		filters = []string{cfg.FilterSubject}
	}
	for _, flt := range filters {
		matched := false
		for _, s := range si.Config.Subjects {
			if server.SubjectsCollide(flt, s) {
				matched = true
				break
			}
		}
		if matched {
			continue
		}
		hint := ""
		if s := fixFilter(flt, si.Config.Subjects); s != "" {
			hint = fmt.Sprintf("; did you mean %s?", s)
		}
		c.Notef("filter %s matches no subject stream %s captures (%s), so this consumer will never receive a message%s", flt, si.Config.Name, strings.Join(si.Config.Subjects, ", "), hint)
	}
}

func (x *consumerCmd) edit(c *Call) error {
	// In natscli's order: the stream and consumer, the edited copy, the
	// diff, the confirmation, then what jsm.go and the server refuse.
	mgr, err := c.manager()
	if err != nil {
		return err
	}
	if err := x.selectConsumer(c, mgr); err != nil {
		return err
	}
	cur, err := c.consumerInfo(x.stream, x.consumer)
	if err != nil {
		return err
	}
	if cur.Config.Durable == "" {
		return explain(errors.New("only durable consumers can be edited"), "consumer %s is ephemeral (made with --ephemeral, or by a client for itself): add a durable one with consumer add %s NAME instead", x.consumer, x.stream)
	}
	cfg, err := x.editConfig(cur.Config)
	if err != nil {
		return fatalIf(err, "could not create new configuration for Consumer %s", x.consumer)
	}
	if len(cfg.BackOff) > 0 && cfg.AckWait != cur.Config.AckWait {
		return explain(errors.New("consumers with backoff policies do not support editing Ack Wait"), "the backoff policy sets when each redelivery comes; change it with --backoff, or drop it with --backoff none in the same edit")
	}
	diff, err := c.consumerEditDiff(x.stream, x.consumer, cur.Config, cfg)
	if err != nil {
		return err
	}
	if diff == "" {
		if !x.dryRun {
			fmt.Fprintln(c.Out, "No difference in configuration")
		}
		return nil
	}
	fmt.Fprintf(c.Out, "Differences (-old +new):\n%s", diff)
	if x.dryRun {
		// The real CLI exits with status 1 here, saying nothing more.
		return errSilent
	}
	ok, err := c.confirm(x.force, fmt.Sprintf("Really edit Consumer %s > %s", x.stream, x.consumer),
		fmt.Sprintf("editing a consumer asks first: add --force to apply it (consumer edit %s %s ... --force)", x.stream, x.consumer))
	if err != nil || !ok {
		return err
	}
	if err := x.badFilter(); err != nil {
		// jsm.go puts the filter in the request's subject, which nats.go
		// refuses to send.
		return noteOf(errors.New("nats: invalid subject"), err)
	}
	st, err := c.stream(x.stream)
	if err != nil {
		return err
	}
	ctx, cancel := c.Timeout()
	defer cancel()
	var ci *jetstream.ConsumerInfo
	if cfg.DeliverSubject != "" {
		pc, err := st.UpdatePushConsumer(ctx, cfg)
		if err != nil {
			return c.editError(err, cfg.Replicas)
		}
		ci = pc.CachedInfo()
	} else {
		cons, err := st.UpdateConsumer(ctx, cfg)
		if err != nil {
			return c.editError(err, cfg.Replicas)
		}
		ci = cons.CachedInfo()
	}
	c.warnUnmatchedFilters(st.CachedInfo(), cfg)
	return renderConsumerInfo(c.Out, ci)
}

// selectConsumer is natscli's connectAndSetup for a stream and a
// consumer: the consumer named, when it loads; otherwise the stream, then
// the consumer, picked from lists it cannot show without a terminal (with
// --force: the consumer named, or an error).
func (x *consumerCmd) selectConsumer(c *Call, mgr *jsm.Manager) error {
	var loadErr error
	if x.stream != "" && x.consumer != "" {
		if _, loadErr = mgr.LoadConsumer(x.stream, x.consumer); loadErr == nil {
			return nil
		}
	}
	if _, err := c.selectStreamFor(mgr, x.stream, false, "could not select Stream"); err != nil {
		return err
	}
	refusal := errNoPickConsumer
	if x.force {
		refusal = fmt.Errorf("unknown consumer %q > %q", x.stream, x.consumer)
	}
	names, _ := mgr.ConsumerNames(x.stream)
	note := fmt.Sprintf("stream %s has no consumers yet: add one with consumer add %s NAME --pull --defaults", x.stream, x.stream)
	switch {
	case len(names) > 0 && x.consumer == "":
		note = fmt.Sprintf("name the consumer on the line: %s", strings.Join(names, ", "))
	case slices.Contains(names, x.consumer) && apiErrorCode(loadErr) == errCodeConsumerOffline:
		// The stream names it, but no running node holds a copy.
		note = fmt.Sprintf("consumer %s on stream %s is offline: every copy of it is on a stopped node, so no server can answer for it", x.consumer, x.stream)
		if down := c.stoppedNodes(); len(down) > 0 {
			note += fmt.Sprintf(" (stopped: %s; node start starts them again)", strings.Join(down, ", "))
		}
	case slices.Contains(names, x.consumer) && loadErr != nil:
		note = fmt.Sprintf("consumer %s on stream %s exists, but did not load: %v", x.consumer, x.stream, loadErr)
	case len(names) > 0:
		note = fmt.Sprintf("there is no consumer %s on stream %s%s (consumers: %s)", x.consumer, x.stream, didYouMean(x.consumer, names), strings.Join(names, ", "))
	}
	return explain(fatalIf(refusal, "could not select Consumer"), "%s", note)
}

// stoppedNodes names the lab's cluster's nodes that are down, if any.
func (c *Call) stoppedNodes() []string {
	cl := c.S.dep.Cluster()
	if cl == nil {
		return nil
	}
	var down []string
	for _, n := range cl.Nodes() {
		if !n.Running {
			down = append(down, n.Name)
		}
	}
	return down
}

// consumerEditDiff is the real CLI's go-cmp diff of an edit: the
// configuration as jsm.go loads it (server metadata left out), against a
// JSON copy of it with the fields the edit changed (from cur to cfg).
func (c *Call) consumerEditDiff(stream, consumer string, cur, cfg jetstream.ConsumerConfig) (string, error) {
	mgr, err := c.manager()
	if err != nil {
		return "", err
	}
	loaded, err := mgr.LoadConsumer(stream, consumer)
	if err != nil {
		return "", fatalIf(err, "could not load Consumer")
	}
	t := loaded.Configuration()
	t.Metadata = jsm.FilterServerMetadata(t.Metadata)
	fields := func(v any) (map[string]json.RawMessage, error) {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		var m map[string]json.RawMessage
		return m, json.Unmarshal(b, &m)
	}
	base, err := fields(t)
	if err != nil {
		return "", err
	}
	before, err := fields(cur)
	if err != nil {
		return "", err
	}
	after, err := fields(cfg)
	if err != nil {
		return "", err
	}
	for k, v := range after {
		if !bytes.Equal(before[k], v) {
			base[k] = v
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			delete(base, k)
		}
	}
	b, err := json.Marshal(base)
	if err != nil {
		return "", err
	}
	var ncfg api.ConsumerConfig
	if err := json.Unmarshal(b, &ncfg); err != nil {
		return "", err
	}
	if maps.Equal(userMetadata(cur.Metadata), userMetadata(cfg.Metadata)) {
		// The real CLI edits a copy of the loaded configuration: metadata
		// the edit leaves alone stays as it was, an empty map too.
		ncfg.Metadata = t.Metadata
	}
	ncfg.Metadata = jsm.FilterServerMetadata(ncfg.Metadata)
	sorted := cmp.Transformer("Sort", func(in []string) []string {
		out := append([]string(nil), in...)
		sort.Strings(out)
		return out
	})
	return cmp.Diff(t, ncfg, sorted), nil
}

// editError is what jsm.go returns when the server refuses an edit, as
// the real CLI prints it, with a note where the lab knows more.
func (c *Call) editError(err error, replicas int) error {
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) {
		line := fmt.Errorf("%s (%d)", apiErr.Description, apiErr.ErrorCode)
		switch {
		case strings.Contains(apiErr.Description, "can not be updated"):
			return explain(line, "the server cannot change that on an existing consumer; remove it and add it again")
		case apiErr.ErrorCode == 10080: // push mode can not set max waiting
			return explain(line, "a pull consumer cannot become a push consumer with --target: add a new consumer with --target instead")
		case apiErr.ErrorCode == streamErrCodeReplicasCluster:
			return explain(line, "%s", c.replicasNote(replicas))
		}
		return line
	}
	return err
}

// fixFilter guesses the filter meant: each token that is a near miss of
// the literal token in the same place of a stream subject is corrected
// (ordrs.new → orders.new). "" if no guess matches.
func fixFilter(filter string, subjects []string) string {
	ft := strings.Split(filter, ".")
	for _, subj := range subjects {
		st := strings.Split(subj, ".")
		fixed := append([]string(nil), ft...)
		changed := false
		for i := range fixed {
			if i >= len(st) || st[i] == ">" {
				break
			}
			if st[i] == "*" || st[i] == fixed[i] || fixed[i] == "*" || fixed[i] == ">" {
				continue
			}
			if suggest(fixed[i], []string{st[i]}) == "" {
				break
			}
			fixed[i], changed = st[i], true
		}
		guess := strings.Join(fixed, ".")
		if changed && server.SubjectsCollide(guess, subj) {
			return guess
		}
	}
	if s := suggest(filter, subjects); s != "" {
		return s
	}
	return ""
}
