package kit_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"natslab/broker"
	"natslab/broker/brokertest"
	"natslab/scenes"
	"natslab/scenes/kit"
	"natslab/scenes/kit/kittest"
	"natslab/scenes/watch"
)

// A scene in the two parts a scene package writes (here in one file): a
// counter of the messages on a subject, each drawn arriving.

// pingState is the driver's snapshot.
type pingState struct{ Seen int }

// pingDriver is the NATS side: a tap on ping.> counting what it sees.
type pingDriver struct {
	*watch.Life
	feed *kit.Feed
	nc   *nats.Conn
	mu   sync.Mutex
	seen int
}

func startPing(dep broker.Deployment, feed *kit.Feed) (*pingDriver, error) {
	d := &pingDriver{Life: watch.NewLife(), feed: feed}
	nc, err := d.Connect(dep, "natslab scene ping", nil)
	if err != nil {
		d.End()
		return nil, err
	}
	d.nc = nc
	if _, err := nc.Subscribe("ping.>", func(m *nats.Msg) {
		d.mu.Lock()
		d.feed.Send(kit.Event{Kind: kit.Published, Subject: m.Subject})
		d.seen++
		d.mu.Unlock()
	}); err != nil {
		d.End()
		return nil, err
	}
	return d, nc.Flush()
}

func (d *pingDriver) Snapshot() pingState {
	d.mu.Lock()
	defer d.mu.Unlock()
	return pingState{Seen: d.seen}
}

func (d *pingDriver) Controls() []kit.Control {
	return []kit.Control{{Control: scenes.Control{Name: "ping", Usage: "ping", Summary: "publish on ping.scene"}, Run: func(args []string) (string, error) {
		if err := kit.NoArgs("ping", args); err != nil {
			return "", err
		}
		return "pinged", d.nc.Publish("ping.scene", nil)
	}}}
}

func (d *pingDriver) Close() { d.End() }

// pingScene is the picture: the count, and a dot for a second after each.
type pingScene struct {
	kit.Scene[pingState]
	d    *pingDriver
	snap pingState
	last time.Time
}

var pingSpec = kit.Spec{Name: "ping", Summary: "pings counted", Keys: []scenes.KeyBinding{kit.Key("p", "ping", "ping")}}

func newPing(env scenes.Env) (*pingScene, error) {
	s := &pingScene{}
	d, err := kit.Open(&s.Scene, s, env, pingSpec, func(feed *kit.Feed) (*pingDriver, error) { return startPing(env.Deployment, feed) })
	if err != nil {
		return nil, err
	}
	s.d = d
	return s, nil
}

func (s *pingScene) Titles() []string {
	return []string{fmt.Sprintf("%d pings seen", s.snap.Seen), fmt.Sprintf("%d pings", s.snap.Seen)}
}

func (s *pingScene) Apply(m kit.FeedMsg, now time.Time) {
	if len(m.Events) > 0 {
		s.last = now
	}
	s.snap = s.d.Snapshot()
}

func (s *pingScene) Next(now time.Time) time.Duration {
	return kit.Every(!s.last.IsZero() && now.Sub(s.last) < time.Second)
}

func (s *pingScene) Draw(now time.Time) string {
	c := s.Blank()
	if c == nil {
		return ""
	}
	c.Text(0, 0, fmt.Sprintf("seen %d", s.snap.Seen), kit.Strong)
	if s.Next(now) > 0 {
		c.Text(0, 1, "•", kit.Msg)
	}
	return c.Render(s.Styles)
}

// The scaffold joins the two parts into a scenes.Scene: controls by name
// (any case, one at a time, unknown ones refused with the list), keys and
// their help, the heartbeat carrying the driver's events, frames only
// while the picture says something moves, and the last frame kept.
func TestSceneScaffold(t *testing.T) {
	srv := brokertest.Start(t)
	h := kittest.Open(t, srv, newPing, func(s *pingScene) pingState { return s.snap }, kittest.FollowCommands())
	var sc scenes.Scene = h.Scene
	if sc.Name() != "ping" || sc.Title() != "0 pings seen" {
		t.Fatalf("name %q title %q", sc.Name(), sc.Title())
	}
	if st, ok := sc.(scenes.ShortTitled); !ok || st.TitleWithin(10) != "0 pings" || st.TitleWithin(6) != "" {
		t.Fatal("a narrow border gets the fullest wording that fits, or none")
	}
	if got := sc.Controls(); len(got) != 1 || got[0].Name != "ping" {
		t.Fatalf("controls %+v", got)
	}
	if _, err := sc.Do("pong", nil); err == nil || !strings.Contains(err.Error(), "the ping scene has no control \"pong\": it knows ping") {
		t.Fatalf("an unknown control: %v", err)
	}
	if _, err := sc.Do("ping", []string{"now"}); err == nil {
		t.Fatal("ping takes no arguments")
	}
	if help := sc.ShortHelp(); len(help) != 1 || help[0].Help().Key != "p" || help[0].Help().Desc != "ping" {
		t.Fatalf("short help %+v", help)
	}
	if k := sc.(scenes.Keyed).Keys(); len(k) != 1 || k[0].Control != "ping" {
		t.Fatalf("keys %+v", k)
	}

	h.Do("PING")
	h.Settle("one ping", func(s pingState) bool { return s.Seen == 1 })
	if !sc.Animating() || sc.Title() != "1 pings seen" {
		t.Fatalf("after a ping: animating %v, title %q", sc.Animating(), sc.Title())
	}
	if v := h.View(10, 2); v != "seen 1\n•" {
		t.Fatalf("mid-animation:\n%s", v)
	}
	h.Clock.Advance(time.Second)
	if sc.Animating() {
		t.Fatal("still animating a second later")
	}
	if v := h.View(10, 2); v != "seen 1\n" {
		t.Fatalf("at rest:\n%q", v)
	}
}

// A key that runs no control is a mistake the scene refuses to open with.
func TestSceneKeysRunControls(t *testing.T) {
	srv := brokertest.Start(t)
	spec := pingSpec
	spec.Keys = []scenes.KeyBinding{kit.Key("x", "explode", "explode")}
	s := &pingScene{}
	_, err := kit.Open(&s.Scene, s, scenes.Env{Deployment: srv}, spec, func(feed *kit.Feed) (*pingDriver, error) { return startPing(srv, feed) })
	if err == nil || !strings.Contains(err.Error(), "key x runs explode") {
		t.Fatalf("got %v", err)
	}
}
