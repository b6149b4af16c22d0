package replicas

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker"
	"natslab/scenes"
	"natslab/scenes/kit"
)

// maxPublish bounds `publish N`: the scene is about what each copy holds,
// not throughput.
const maxPublish = 10_000

// The stream publish creates when the cluster has none yet.
const (
	defaultStream  = "ORDERS"
	defaultSubject = "orders.>"
)

// Controls implements kit.Driver: typing mistakes are errors saying what
// to type; what the cluster cannot do right now is said in the result
// line. Stopping a node waits for it to shut down, publishing for the
// acknowledgements; after each the driver looks at the nodes.
func (d *driver) Controls() []kit.Control {
	looked := func(run func(args []string) (string, error)) func(args []string) (string, error) {
		return func(args []string) (string, error) {
			defer d.poke()
			return run(args)
		}
	}
	return []kit.Control{
		{Control: scenes.Control{Name: "publish", Usage: "publish [N]", Summary: "publish N messages (default 1) to the stream on screen, and count the acknowledgements"}, Run: looked(func(args []string) (string, error) {
			n, err := kit.Count(args, maxPublish, "publish 5")
			if err != nil {
				return "", err
			}
			return d.publish(n)
		})},
		{Control: scenes.Control{Name: "stop", Usage: "stop NAME | stop leader", Summary: "stop a node gracefully (n1, n2, n3), or whichever leads the stream on screen"}, Run: looked(func(args []string) (string, error) {
			if len(args) == 1 && args[0] == "leader" {
				return d.stopLeader("")
			}
			if len(args) == 2 && args[0] == "leader" {
				return d.stopLeader(args[1])
			}
			name, err := nodeArg("stop", args)
			if err != nil {
				return "", err
			}
			return d.stop(name)
		})},
		{Control: scenes.Control{Name: "start", Usage: "start NAME", Summary: "start a stopped node again: it rejoins and catches up"}, Run: looked(func(args []string) (string, error) {
			name, err := nodeArg("start", args)
			if err != nil {
				return "", err
			}
			return d.start(name)
		})},
		{Control: scenes.Control{Name: "toggle", Usage: "toggle NAME", Summary: "stop the node if it runs, start it if it is stopped"}, Run: looked(func(args []string) (string, error) {
			name, err := nodeArg("toggle", args)
			if err != nil {
				return "", err
			}
			if d.srv.NodeUp(name) {
				return d.stop(name)
			}
			return d.start(name)
		})},
		{Control: scenes.Control{Name: "focus", Usage: "focus STREAM", Summary: "choose the stream that publish and stop leader act on"}, Run: looked(d.setFocus)},
	}
}

func (d *driver) setFocus(args []string) (string, error) {
	if len(args) != 1 {
		return "", errors.New("focus needs the name of a stream, for example: focus ORDERS")
	}
	snap := d.Snapshot()
	for _, st := range snap.Streams {
		if st == args[0] {
			d.mu.Lock()
			d.focus = st
			d.mu.Unlock()
			return "publish and stop leader now act on " + st, nil
		}
	}
	if len(snap.Streams) == 0 {
		return "", fmt.Errorf("there is no stream %s: the cluster has none yet (publish creates %s, or stream add %s --subjects '%s' --replicas 3 --defaults)", args[0], defaultStream, defaultStream, defaultSubject)
	}
	return "", fmt.Errorf("there is no stream %s: the streams are %s", args[0], strings.Join(snap.Streams, ", "))
}

func nodeArg(control string, args []string) (string, error) {
	if len(args) == 1 {
		for _, n := range broker.NodeNames {
			if args[0] == n {
				return n, nil
			}
		}
	}
	return "", fmt.Errorf("%s needs a node: %s (for example: %s n2)", control, strings.Join(broker.NodeNames, ", "), control)
}

func (d *driver) stop(name string) (string, error) {
	led := []string{}
	for _, r := range d.srv.Copies(name) {
		if r.Leader {
			led = append(led, r.Stream)
		}
	}
	if err := d.srv.StopNode(name); err != nil {
		return "", err
	}
	if len(led) == 0 {
		return "stopped " + name, nil
	}
	return fmt.Sprintf("stopped %s, the leader of %s: watch the election", name, strings.Join(led, ", ")), nil
}

func (d *driver) stopLeader(stream string) (string, error) {
	if stream == "" {
		stream = d.Snapshot().Focus
	}
	if stream == "" {
		return "", fmt.Errorf("there is no stream yet to stop the leader of: publish creates %s, or stream add %s --subjects '%s' --replicas 3 --defaults", defaultStream, defaultStream, defaultSubject)
	}
	leader := d.srv.StreamLeader(stream)
	if leader == "" {
		return "", fmt.Errorf("%s has no leader right now (its nodes are down, or an election is going on)", stream)
	}
	return d.stop(leader)
}

func (d *driver) start(name string) (string, error) {
	if err := d.srv.StartNode(name); err != nil {
		return "", err
	}
	return "started " + name + ": it rejoins and catches up", nil
}

// publish sends n messages to the stream on screen, one after the other,
// each acknowledged by the stream's leader once a majority stored it.
func (d *driver) publish(n int) (string, error) {
	stream, subject, created, err := d.target()
	if err != nil {
		return "", err
	}
	// After a node stopped, the connection may still be moving to another.
	broker.WaitFor(2*time.Second, func() bool { return d.srv.Attached(d.nc) })
	// A stream with a leader, or one just created, answers "no responders"
	// only while its leader is being elected or its subjects' interest is
	// still reaching this connection's node (a node just started): worth
	// trying again until the publish's own deadline. Without a leader it
	// is the answer, at once.
	retries := 0
	if created || d.Snapshot().Leader(stream) != "" {
		retries = 100
	}
	acked := 0
	for i := 0; i < n; i++ {
		ctx, cancel := context.WithTimeout(d.Ctx, 2*time.Second)
		_, err := d.js.Publish(ctx, subject, []byte("replicas scene"), jetstream.WithRetryAttempts(retries), jetstream.WithRetryWait(25*time.Millisecond))
		cancel()
		if err != nil {
			d.counted(uint64(acked+1), uint64(acked), 1)
			d.poke()
			return "", fmt.Errorf("published %d of %d to %s, then %s", acked, n, stream, d.explain(stream, err))
		}
		acked++
	}
	d.counted(uint64(n), uint64(n), 0)
	msg := fmt.Sprintf("published %d to %s on %s, every one acknowledged", n, stream, subject)
	if created {
		msg = fmt.Sprintf("created stream %s (3 replicas, %s) and %s", stream, defaultSubject, msg)
	}
	return msg, nil
}

// explain says why a publish got no acknowledgement.
func (d *driver) explain(stream string, err error) string {
	switch {
	case errors.Is(err, jetstream.ErrNoStreamResponse), errors.Is(err, context.DeadlineExceeded):
		for _, st := range d.Snapshot().Unavailable() {
			if st == stream {
				return "no acknowledgement: every copy of " + stream + " is on a stopped node (start it again)"
			}
		}
		return "no acknowledgement: " + stream + " has no leader (without a majority of its nodes none can be elected)"
	}
	return err.Error()
}

// target is the stream to publish to and a subject it captures, creating
// the default stream when the cluster has none.
func (d *driver) target() (stream, subject string, created bool, err error) {
	stream = d.Snapshot().Focus
	if stream == "" {
		ctx, cancel := context.WithTimeout(d.Ctx, 5*time.Second)
		defer cancel()
		_, err := d.js.CreateStream(ctx, jetstream.StreamConfig{Name: defaultStream, Subjects: []string{defaultSubject}, Replicas: broker.ClusterSize, Storage: jetstream.FileStorage})
		if err != nil {
			return "", "", false, fmt.Errorf("cannot create stream %s: %v", defaultStream, err)
		}
		stream, created = defaultStream, true
	}
	subjects := d.subjects(stream)
	if len(subjects) == 0 {
		return "", "", false, fmt.Errorf("%s captures no subjects of its own (a mirror or a sourced stream): publish to it with pub, or choose another with focus STREAM", stream)
	}
	return stream, sample(subjects[0]), created, nil
}

// subjects are the stream's subjects, as a node holding a copy reports
// them (or reported them, before it stopped).
func (d *driver) subjects(stream string) []string {
	for _, r := range d.srv.Replicas(stream) {
		if len(r.Subjects) > 0 {
			return r.Subjects
		}
	}
	if subj := d.Snapshot().Subjects[stream]; len(subj) > 0 {
		return subj
	}
	// Just created: ask the stream itself.
	ctx, cancel := context.WithTimeout(d.Ctx, 2*time.Second)
	defer cancel()
	if st, err := d.js.Stream(ctx, stream); err == nil {
		return st.CachedInfo().Config.Subjects
	}
	return nil
}

// sample is a subject the filter captures: orders.> gives orders.scene.
func sample(filter string) string {
	tokens := strings.Split(filter, ".")
	for i, t := range tokens {
		if t == "*" || t == ">" {
			tokens[i] = "scene"
		}
	}
	return strings.Join(tokens, ".")
}
