package episode

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"natslab/broker"
	"natslab/broker/brokertest"
	"natslab/broker/command"
	"natslab/scenes"
	"natslab/scenes/contrast"
	"natslab/scenes/core"
	"natslab/scenes/kit/kittest"
	_ "natslab/scenes/reqreply"
	retentionscene "natslab/scenes/retention"
	"natslab/scenes/streamlog"
)

// A scene open beside a lesson is the lab's eyes, not the learner's: its
// taps are real subscriptions and its apps real clients (the contrast
// scene's core subscriber and durable consumer), but none of them ticks a
// step or keeps one from ticking, but for what an app hears: that is
// heard (TestTheScenesAppHearsWhatItSubscribesTo). Each script judges the
// same with its episode's scene open: a solution completes its lesson, a
// wrong one fails where its "# want: " line says, at a script's speed.
// The lessons restart the server (their own store area): the scene comes
// through still at work.
func TestLessonsJudgeTheSameWithTheirSceneOpen(t *testing.T) {
	for _, c := range []struct {
		scene   string
		control [][]string // run on the scene before the script, as the lesson opens it
		files   []string   // under testdata
		after   func(t *testing.T, h *sceneHarness)
	}{
		// The app offline, as lesson offline-client's second step has it.
		{scene: "contrast", control: [][]string{{"mode", "core"}, {"offline"}},
			files: []string{"solutions/offline-client.txt", "wrong/offline-client-online.txt"}},
		{scene: "contrast", control: [][]string{{"mode", "jetstream"}},
			files: []string{"solutions/first-stream.txt", "wrong/first-stream-no-replay.txt"}},
		{scene: "contrast", control: [][]string{{"mode", "jetstream", "wait"}},
			files: []string{"solutions/first-stream.txt", "wrong/first-stream-evts.txt", "wrong/first-stream-no-js.txt"}},
		{scene: "hello", after: publishesStill,
			files: []string{"solutions/hello.txt", "wrong/hello-still-listening.txt", "wrong/hello-typo.txt"}},
		{scene: "wildcards", control: [][]string{{"watch", "orders.>"}}, after: publishesStill,
			files: []string{"solutions/subjects.txt", "wrong/subjects-missing.txt", "wrong/subjects-star.txt"}},
		{scene: "queue-groups", after: publishesStill,
			files: []string{"solutions/queue-groups.txt", "wrong/queue-groups-double.txt", "wrong/queue-groups-typo.txt"}},
		{scene: "request-reply", after: asksStill,
			files: []string{"solutions/request-reply.txt", "wrong/request-reply-subject.txt"}},
		{scene: "retention", after: showsStreamsStill,
			files: []string{"solutions/retention.txt", "wrong/retention-limits-everywhere.txt", "wrong/retention-one-reader.txt"}},
		{scene: "log", after: showsStreamsStill,
			files: []string{
				"solutions/stream-log.txt", "wrong/stream-log-memory.txt", "wrong/stream-log-uncaptured.txt",
				"solutions/limits.txt", "wrong/limits-discard.txt", "wrong/limits-no-wait.txt",
				"solutions/dedupe.txt", "wrong/dedupe-no-id.txt",
				"solutions/restart.txt", "wrong/restart-memory.txt",
			}},
	} {
		for _, file := range c.files {
			var controls []string
			for _, ctl := range c.control {
				controls = append(controls, strings.Join(ctl, "-"))
			}
			name := c.scene + "/" + strings.Join(controls, "+") + "/" + strings.TrimSuffix(filepath.Base(file), ".txt")
			t.Run(name, func(t *testing.T) {
				id, script, want := judgedScript(t, file)
				srv := brokertest.Start(t, brokertest.InProcessOnly())
				h := openScene(t, srv, c.scene)
				for _, ctl := range c.control {
					h.Do(ctl[0], ctl[1:]...)
				}
				rep, out := runLesson(t, srv, nil, id, script)
				if solution := want == ""; rep.Complete != solution {
					t.Fatalf("complete %v with the %s scene open:\n%s", rep.Complete, c.scene, out)
				}
				if want != "" && !strings.Contains(out, want) {
					t.Errorf("want a line with\n  %s\ngot:\n%s", want, reportLines(out))
				}
				if c.after != nil {
					c.after(t, h)
				}
			})
		}
	}
}

// The contrast scene's core app is a real subscriber on events.>: what is
// published there while it is online is heard, the scene counts it
// received, not lost. Lesson offline-client's "Take it offline and
// publish three events" waits for offline, as its text says; it ticked
// with the app still receiving the three.
func TestTheScenesAppHearsWhatItSubscribesTo(t *testing.T) {
	srv := brokertest.Start(t, brokertest.InProcessOnly())
	h := openScene(t, srv, "contrast")
	h.Do("mode", "core")
	pr, pw := io.Pipe()
	type result struct {
		rep Report
		out string
	}
	done := make(chan result, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		var out syncBuf
		rep, err := RunScript(ctx, catalog(), "offline-client", HeadlessOptions{Deployment: srv}, pr, &out, &out)
		if err != nil {
			fmt.Fprintf(&out, "RunScript: %v\n", err)
		}
		done <- result{rep, out.String()}
	}()
	// The script is read once the lesson has started its server: the
	// app is back on it before the publish, as it is by the time a
	// learner types.
	if _, err := io.WriteString(pw, "sub \"events.>\" &\nstop 1\n"); err != nil {
		t.Fatal(err)
	}
	until(h, "the app subscribed on the lesson's server", func() bool {
		m := srv.Monitor()
		if m == nil {
			return false
		}
		cz, err := m.Connz(&server.ConnzOptions{Subscriptions: true})
		if err != nil {
			return false
		}
		for _, c := range cz.Conns {
			if strings.Contains(c.Name, ": app") && slices.Contains(c.Subs, "events.>") {
				return true
			}
		}
		return false
	})
	if _, err := io.WriteString(pw, "pub events.page_loaded \"while you were away\" --count 3\n"); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	r := <-done
	want := "✗ Take it offline and publish three events: the scene's app still listens to events.>, so what is published there is heard: offline takes it away"
	if r.rep.Complete || !strings.Contains(r.out, want) {
		t.Fatalf("with the scene's app online, want\n  %s\ngot:\n%s", want, reportLines(r.out))
	}
}

// judgedScript reads a script under testdata: the lesson it is for (the
// file's name starts with the lesson's ID) and, for a wrong one, the line
// its report must have.
func judgedScript(t *testing.T, file string) (id, script, want string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimSuffix(filepath.Base(file), ".txt")
	for _, candidate := range catalog().IDs() {
		if (name == candidate || strings.HasPrefix(name, candidate+"-")) && len(candidate) > len(id) {
			id = candidate
		}
	}
	if id == "" {
		t.Fatalf("%s names no lesson", file)
	}
	for _, l := range strings.Split(string(raw), "\n") {
		if w, ok := strings.CutPrefix(l, "# want: "); ok {
			want = w
		}
	}
	return id, string(raw), want
}

// sceneHarness is a registered scene, opened as the lab's scene verb opens
// it, driven as Bubble Tea drives it.
type sceneHarness = kittest.Harness[kittest.Scene, struct{}]

func openScene(t *testing.T, dep broker.Deployment, name string) *sceneHarness {
	t.Helper()
	f, ok := scenes.Lookup(name)
	if !ok {
		t.Fatalf("the %s scene is not registered", name)
	}
	return kittest.Open(t, dep, func(env scenes.Env) (kittest.Scene, error) {
		sc, err := f.New(env)
		if err != nil {
			return nil, err
		}
		return sc.(kittest.Scene), nil
	}, func(kittest.Scene) struct{} { return struct{}{} })
}

// until delivers the scene's messages until cond holds.
func until(h *sceneHarness, what string, cond func() bool) {
	h.T.Helper()
	h.Until(what, func(struct{}) bool { return cond() })
}

// publishesStill: the core scenes' own publish is seen after the restart.
func publishesStill(t *testing.T, h *sceneHarness) {
	sc := h.Scene.(*core.Scene)
	before := sc.Snapshot().Published
	h.Do("publish")
	until(h, "its publish after the restart", func() bool { s := sc.Snapshot(); return s.ServerUp && s.Published > before })
}

// asksStill: the request-reply scene's own ask reaches the server, which
// bounces it (nobody listens after the lesson).
func asksStill(t *testing.T, h *sceneHarness) {
	if out := h.Do("ask"); !strings.Contains(out, "no responders") {
		t.Fatalf("ask after the lesson: %q", out)
	}
}

// showsStreamsStill: the stream scenes read the broker after the restart,
// showing the lesson's streams (or saying why they cannot).
func showsStreamsStill(t *testing.T, h *sceneHarness) {
	switch sc := h.Scene.(type) {
	case *retentionscene.Scene:
		until(h, "the lesson's streams in their columns", func() bool {
			s := sc.Snapshot()
			for _, c := range s.Columns {
				if s.ServerUp && c.Stream != "" {
					return true
				}
			}
			return false
		})
	case *streamlog.Scene:
		until(h, "the lesson's streams", func() bool {
			s := sc.Snapshot()
			return s.ServerUp && (len(s.Streams) > 0 || s.Problem != "")
		})
	default:
		t.Fatalf("no check for the %s scene", h.Scene.Name())
	}
}

// Lesson 6's stream info says "Active Consumers: 1" where the learner made
// no consumer: the text says whose it is, and the server shows it so. With
// the lesson's scene open (contrast, mode jetstream, waiting for a
// stream), the scene's app makes a durable pull consumer named app on
// EVENTS once the stream exists, with the description the text quotes, and
// receives what the pane publishes through it.
func TestFirstStreamSaysWhoseConsumerItIs(t *testing.T) {
	ep, _ := catalog().Get("first-stream")
	for _, claim := range []string{
		"It also says **Active Consumers: 1**, though you made no consumer: the scene did.",
		"As soon as EVENTS existed, the JetStream app in the scene beside this lesson (shown as `app`) made a durable pull consumer named `app` on it, and reads what you publish through it: its received count climbs with each message.",
		`Its description is "the natslab contrast scene's app".`,
	} {
		if !strings.Contains(collapse(ep.Text), collapse(claim)) {
			t.Fatalf("lesson first-stream no longer says %q", claim)
		}
	}
	if !strings.HasPrefix(ep.Scene, "contrast mode jetstream wait") {
		t.Fatalf("lesson first-stream opens the scene %q, not the contrast scene waiting for a stream", ep.Scene)
	}

	srv := brokertest.Start(t, brokertest.InProcessOnly())
	h := openScene(t, srv, "contrast")
	h.Do("mode", "jetstream", "wait")
	sc := h.Scene.(*contrast.Scene)
	s := command.NewSession(srv, command.WithTimeout(5*time.Second))
	t.Cleanup(s.Close)
	run := func(line string) string {
		t.Helper()
		var out, errb syncBuf
		if err := s.Run(context.Background(), line, &out, &errb); err != nil {
			t.Fatalf("%s: %v\n%s%s", line, err, out.String(), errb.String())
		}
		return errb.String() + out.String()
	}
	if out := run("stream ls"); !strings.Contains(out, "No Streams defined") {
		t.Fatalf("the scene made a stream before the learner did:\n%s", out)
	}
	run(`stream add EVENTS --subjects "events.>" --defaults`)
	until(h, "the app's consumer on EVENTS", func() bool { return sc.Snapshot().JS.Ready })
	run(`pub events.page_loaded '{"page":"/home"}' --jetstream`)
	run(`pub events.input_changed '{"field":"email"}' --jetstream`)
	until(h, "the app to receive both", func() bool { return sc.Snapshot().JS.Received == 2 })

	if out := run("stream info EVENTS"); !strings.Contains(out, "Active Consumers: 1") {
		t.Errorf("stream info EVENTS:\n%s", out)
	}
	if out := run("consumer ls EVENTS"); !strings.Contains(out, "│ app  │ the natslab contrast scene's app │") {
		t.Errorf("consumer ls EVENTS:\n%s", out)
	}
	out := run("consumer info EVENTS app --json")
	for _, want := range []string{`"durable_name": "app"`, `"description": "the natslab contrast scene's app"`, `"ack_policy": "explicit"`} {
		if !strings.Contains(out, want) {
			t.Errorf("consumer info EVENTS app --json lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, `"deliver_subject"`) {
		t.Errorf("the app's consumer is a push consumer, not a pull one:\n%s", out)
	}
}
