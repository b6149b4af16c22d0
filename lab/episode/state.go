package episode

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker"
)

// snapshot is the broker's state as one evaluation sees it, fetched lazily
// and at most once per evaluation: a check after every command stays cheap.
type snapshot struct {
	ctx context.Context
	l   *Lesson
	ns  *broker.Monitor // nil for a deployment that is not the lab's own, or while stopped

	names     []string
	namesErr  error
	namesDone bool
	streams   map[string]streamResult
	consumers map[string]consumerResult
	accSubs   *broker.Subscriptions // every account's, read once (see accountSubs)
	subs      []server.SubDetail
	subsDone  bool
	shadows   []broker.Shadow            // stream imports' shadows of client subscriptions
	imported  map[subID]map[string]int64 // a subscription → exporting account → messages
	users     map[uint64]string          // client connection → the user it logged in as
	watchers  map[uint64]bool            // connections scenes watch with (see sceneWatcher)
	apps      map[uint64]bool            // the scenes' apps among them (see sceneApp)
	appSubs   []server.SubDetail         // the scenes' apps' subscriptions
}

type streamResult struct {
	info *jetstream.StreamInfo
	err  error
}

type consumerResult struct {
	info *jetstream.ConsumerInfo
	err  error
}

// apiTimeout bounds each request to the JetStream API made by a check.
const apiTimeout = 2 * time.Second

func (l *Lesson) snapshot(ctx context.Context) *snapshot {
	s := &snapshot{ctx: ctx, l: l, streams: map[string]streamResult{}, consumers: map[string]consumerResult{}}
	s.ns = l.env.Deployment.Monitor()
	return s
}

func (s *snapshot) timeout() (context.Context, context.CancelFunc) {
	return context.WithTimeout(s.ctx, apiTimeout)
}

// boot identifies the server process running now: it changes on restart.
func (s *snapshot) boot() string {
	if s.ns == nil {
		return ""
	}
	return s.ns.ID()
}

// jetStreamOn says whether JetStream is on.
func (s *snapshot) jetStreamOn() bool {
	if dep := s.l.env.Deployment; dep.Own() {
		return dep.JetStream()
	}
	ctx, cancel := s.timeout()
	defer cancel()
	_, err := s.l.js.AccountInfo(ctx)
	return err == nil
}

// jsErr turns a JetStream API failure into what the learner should know.
func (s *snapshot) jsErr(err error) string {
	switch {
	case errors.Is(err, nats.ErrReconnectBufExceeded), errors.Is(err, nats.ErrConnectionReconnecting), errors.Is(err, nats.ErrConnectionClosed):
		return "the server is not reachable right now (is it restarting?)"
	case !s.jetStreamOn():
		return "JetStream is off (nats-server -js turns it on)"
	case timedOut(err):
		return "the server did not answer in time (is it restarting?)"
	}
	return err.Error()
}

func (s *snapshot) streamNames() ([]string, error) {
	if s.namesDone {
		return s.names, s.namesErr
	}
	s.namesDone = true
	ctx, cancel := s.timeout()
	defer cancel()
	l := s.l.js.StreamNames(ctx)
	for n := range l.Name() {
		s.names = append(s.names, n)
	}
	s.namesErr = l.Err()
	sort.Strings(s.names)
	return s.names, s.namesErr
}

// stream fetches a stream's info, or says why it cannot.
func (s *snapshot) stream(name string) (*jetstream.StreamInfo, string) {
	r, ok := s.streams[name]
	if !ok {
		ctx, cancel := s.timeout()
		st, err := s.l.js.Stream(ctx, name)
		if err == nil {
			r.info = st.CachedInfo() // fetched just now by Stream
		} else {
			r.err = err
		}
		cancel()
		s.streams[name] = r
	}
	if r.err == nil {
		return r.info, ""
	}
	if errors.Is(r.err, jetstream.ErrStreamNotFound) {
		names, _ := s.streamNames()
		if len(names) == 0 {
			return nil, fmt.Sprintf("there is no stream %s: there are no streams yet", name)
		}
		return nil, fmt.Sprintf("there is no stream %s (streams: %s)", name, strings.Join(names, ", "))
	}
	if offline(r.err) {
		return nil, fmt.Sprintf("stream %s is offline: no node that holds it runs%s", name, s.nodesDown())
	}
	if timedOut(r.err) && s.fewNodesRun() {
		// The node left keeps quiet about a stream without a leader for
		// its first seconds, so the question times out rather than hear
		// that there is none.
		return nil, fmt.Sprintf("stream %s has no leader right now: too few of the nodes run to elect one%s", name, s.nodesDown())
	}
	return nil, s.jsErr(r.err)
}

// timedOut reports whether a JetStream request went unanswered.
func timedOut(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, jetstream.ErrNoStreamResponse)
}

// fewNodesRun reports whether the lab's cluster runs no majority of its
// nodes, so that no replicated stream can elect a leader.
func (s *snapshot) fewNodesRun() bool {
	c := s.l.env.Deployment.Cluster()
	if c == nil {
		return false
	}
	nodes, running := c.Nodes(), 0
	for _, n := range nodes {
		if n.Running {
			running++
		}
	}
	return 2*running <= len(nodes)
}

// offline reports whether err is the server's answer for a stream or a
// consumer none of whose copies runs: on the lab's cluster, its nodes are
// stopped.
func offline(err error) bool {
	var api jetstream.JetStreamError
	if !errors.As(err, &api) || api.APIError() == nil {
		return false
	}
	code := uint16(api.APIError().ErrorCode)
	return code == server.ApiErrors[server.JSStreamOfflineErr].ErrCode || code == server.ApiErrors[server.JSConsumerOfflineErr].ErrCode
}

// nodesDown says which of the cluster's nodes are stopped, and how to start
// them; "" when none is.
func (s *snapshot) nodesDown() string {
	c := s.l.env.Deployment.Cluster()
	if c == nil {
		return ""
	}
	var names []string
	for _, n := range c.Nodes() {
		names = append(names, n.Name)
	}
	return s.down(names)
}

// subjects lists the subjects a stream holds messages on, with counts.
func (s *snapshot) subjects(name string) map[string]uint64 {
	ctx, cancel := s.timeout()
	defer cancel()
	st, err := s.l.js.Stream(ctx, name)
	if err != nil {
		return nil
	}
	info, err := st.Info(ctx, jetstream.WithSubjectFilter(">"))
	if err != nil {
		return nil
	}
	return info.State.Subjects
}

// consumer fetches a consumer's info, or says why it cannot.
func (s *snapshot) consumer(stream, name string) (*jetstream.ConsumerInfo, string) {
	key := stream + " > " + name
	r, ok := s.consumers[key]
	if !ok {
		ctx, cancel := s.timeout()
		c, err := s.l.js.Consumer(ctx, stream, name)
		if errors.Is(err, jetstream.ErrNotPullConsumer) {
			var pc jetstream.PushConsumer
			if pc, err = s.l.js.PushConsumer(ctx, stream, name); err == nil {
				r.info = pc.CachedInfo()
			}
		} else if err == nil {
			r.info = c.CachedInfo() // fetched just now by Consumer
		}
		r.err = err
		cancel()
		s.consumers[key] = r
	}
	if r.err == nil {
		return r.info, ""
	}
	switch {
	case errors.Is(r.err, jetstream.ErrStreamNotFound):
		_, why := s.stream(stream)
		if why == "" {
			why = "there is no stream " + stream
		}
		return nil, why
	case errors.Is(r.err, jetstream.ErrConsumerNotFound):
		names := s.consumerNames(stream)
		if len(names) == 0 {
			return nil, fmt.Sprintf("there is no consumer %s on stream %s: it has no consumers yet", name, stream)
		}
		return nil, fmt.Sprintf("there is no consumer %s on stream %s (consumers: %s)", name, stream, strings.Join(names, ", "))
	case offline(r.err):
		return nil, fmt.Sprintf("consumer %s on stream %s is offline: no node that holds it runs%s", name, stream, s.nodesDown())
	}
	return nil, s.jsErr(r.err)
}

func (s *snapshot) consumerNames(stream string) []string {
	ctx, cancel := s.timeout()
	defer cancel()
	st, err := s.l.js.Stream(ctx, stream)
	if err != nil {
		return nil
	}
	var names []string
	l := st.ConsumerNames(ctx)
	for n := range l.Name() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// consumerInfos lists every consumer of a stream.
func (s *snapshot) consumerInfos(stream string) []*jetstream.ConsumerInfo {
	ctx, cancel := s.timeout()
	defer cancel()
	st, err := s.l.js.Stream(ctx, stream)
	if err != nil {
		return nil
	}
	var out []*jetstream.ConsumerInfo
	l := st.ListConsumers(ctx)
	for ci := range l.Info() {
		out = append(out, ci)
	}
	return out
}

// sceneWatcher starts the name of a connection a scene watches the broker
// with (scenes/core.WatcherPrefix): its tap subscription is the scene's
// eyes, not a subscriber of the learner's, so it neither ticks a step nor
// makes a subject heard. What a scene publishes still counts.
const sceneWatcher = "natslab scene"

// sceneApp follows sceneWatcher and the scene's name in the name of a
// scene's app ("natslab scene contrast: app (core)"): a client standing
// for an application beside the learner's. It ticks no step of the
// learner's either, but what it subscribes to is heard: the server
// delivers there, so nothing published on its subjects goes unheard.
// A scene with an app takes it away with its control offline.
const sceneApp = ": app"

// accountSubs is every account's subscriptions, with stream imports'
// shadows apart, as the server running now lists them; empty while it is
// stopped.
func (s *snapshot) accountSubs() *broker.Subscriptions {
	if s.accSubs == nil {
		s.accSubs = &broker.Subscriptions{}
		if s.ns != nil {
			if all, err := s.ns.AccountSubscriptions(); err == nil {
				s.accSubs = all
			}
		}
	}
	return s.accSubs
}

// clientSubs lists the live subscriptions of client connections, leaving
// out the lab's own checker, the scenes' taps and the server's internal
// subscriptions, each in the account of the client that made it, with
// what reached it through stream imports counted in (see imported). A
// stream import's shadow of a client subscription is listed apart, in
// shadows: it is not a subscription anyone made in the exporter.
func (s *snapshot) clientSubs() []server.SubDetail {
	if s.subsDone || s.ns == nil {
		return s.subs
	}
	s.subsDone = true
	conns := s.clientConns(false)
	client := func(cid uint64) bool {
		_, ok := conns[cid]
		return ok && !s.watchers[cid]
	}
	all := s.accountSubs()
	s.imported = map[subID]map[string]int64{}
	for _, own := range all.Own {
		for _, sd := range own {
			if _, ok := conns[sd.Cid]; ok && s.apps[sd.Cid] {
				s.appSubs = append(s.appSubs, sd)
			}
			if !client(sd.Cid) {
				continue
			}
			for _, sh := range all.Imported(sd.Cid, sd.Sid) {
				sd.Msgs += sh.Msgs
				id := subID{sd.Cid, sd.Sid}
				if s.imported[id] == nil {
					s.imported[id] = map[string]int64{}
				}
				s.imported[id][sh.Exporter] += sh.Msgs
			}
			s.subs = append(s.subs, sd)
		}
	}
	for _, sh := range all.Shadows {
		if client(sh.Cid) {
			s.shadows = append(s.shadows, sh)
		}
	}
	slices.SortFunc(s.subs, func(a, b server.SubDetail) int {
		return cmp.Or(cmp.Compare(a.Cid, b.Cid), strings.Compare(a.Sid, b.Sid))
	})
	return s.subs
}

// subID identifies a subscription on the server running now.
type subID struct {
	cid uint64
	sid string
}

// clientConns maps the client connections (not the checker's) to the
// messages each has sent the server; with closed, recently closed
// connections too, so a real `nats pub` that came and went counts.
func (s *snapshot) clientConns(closed bool) map[uint64]int64 {
	out := map[uint64]int64{}
	if s.ns == nil {
		return out
	}
	states := []server.ConnState{server.ConnOpen}
	if closed {
		states = append(states, server.ConnClosed)
	}
	for _, st := range states {
		cz, err := s.ns.Connz(&server.ConnzOptions{State: st, Limit: 4096, Username: true})
		if err != nil {
			continue
		}
		for _, ci := range cz.Conns {
			if ci.Name == checkerName {
				continue
			}
			if strings.HasPrefix(ci.Name, sceneWatcher) {
				if s.watchers == nil {
					s.watchers = map[uint64]bool{}
				}
				s.watchers[ci.Cid] = true
				if strings.Contains(ci.Name, sceneApp) {
					if s.apps == nil {
						s.apps = map[uint64]bool{}
					}
					s.apps[ci.Cid] = true
				}
			}
			out[ci.Cid] = ci.InMsgs
			if s.users == nil {
				s.users = map[uint64]string{}
			}
			s.users[ci.Cid] = ci.AuthorizedUser
		}
	}
	return out
}

// kv opens a bucket.
func (s *snapshot) kv(bucket string) (jetstream.KeyValue, string) {
	ctx, cancel := s.timeout()
	defer cancel()
	kv, err := s.l.js.KeyValue(ctx, bucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil, fmt.Sprintf("there is no bucket %s", bucket)
	}
	if err != nil {
		return nil, s.jsErr(err)
	}
	return kv, ""
}

// maxScan bounds how many stored messages a check reads one by one; lesson
// streams are small.
const maxScan = 2000

// storedMessages calls f for each message the stream holds, oldest first,
// up to maxScan of them.
func (s *snapshot) storedMessages(info *jetstream.StreamInfo, f func(*jetstream.RawStreamMsg)) {
	ctx, cancel := context.WithTimeout(s.ctx, 4*apiTimeout)
	defer cancel()
	st, err := s.l.js.Stream(ctx, info.Config.Name)
	if err != nil {
		return
	}
	first, last := info.State.FirstSeq, info.State.LastSeq
	if last >= first+maxScan {
		first = last - maxScan + 1
	}
	for seq := first; seq <= last && seq > 0; seq++ {
		m, err := st.GetMsg(ctx, seq)
		if err != nil {
			continue // deleted, or expired meanwhile
		}
		f(m)
	}
}
