package watch

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"natslab/broker/brokertest"
)

// turns records what a Loop asks of its driver. It looks only when asked
// to (the first look, and Sync's), so what it records is the loop's doing.
type turns struct {
	mu     sync.Mutex
	calls  []string
	looked bool
}

func (r *turns) add(s string) {
	r.mu.Lock()
	r.calls = append(r.calls, s)
	r.mu.Unlock()
}

func (r *turns) Heard(m *nats.Msg)            { r.add("heard " + m.Subject) }
func (r *turns) Server(up bool)               { r.add(fmt.Sprint("server ", up)) }
func (r *turns) Kicked()                      { r.add("kicked") }
func (r *turns) Due(time.Time) bool           { return !r.looked }
func (r *turns) Next(now time.Time) time.Time { return now.Add(time.Hour) }
func (r *turns) Look()                        { r.looked = true; r.add("look") }
func (r *turns) Publish()                     { r.add("publish") }
func (r *turns) Stopped()                     { r.add("stopped") }
func (r *turns) taken() []string              { r.mu.Lock(); defer r.mu.Unlock(); return slices.Clone(r.calls) }
func (r *turns) without(s string) (out []string) {
	for _, c := range r.taken() {
		if c != s {
			out = append(out, c)
		}
	}
	return out
}

// The loop looks once before Start returns; Sync returns once what the
// server sent before it is taken in, in order, and looked at since; the
// driver's Stopped is the loop's last call.
func TestLoopTakesNewsInThenLooks(t *testing.T) {
	srv := brokertest.Start(t, brokertest.WithoutJetStream())
	lp := NewLoop(64)
	defer lp.End()
	nc, _, err := lp.Dial(srv, "loop test", "news.>")
	if err != nil {
		t.Fatal(err)
	}
	r := &turns{}
	lp.Start(srv, r)
	if got := r.taken(); !slices.Equal(got, []string{"look", "publish"}) {
		t.Fatalf("before Start returned the loop did %q, want one look, published", got)
	}

	pub := brokertest.Connect(t, srv, "publisher")
	for i := range 5 {
		if err := pub.Publish(fmt.Sprintf("news.%d", i), nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := pub.Flush(); err != nil {
		t.Fatal(err)
	}
	if !lp.Sync(nc, 10*time.Second) {
		t.Fatal("Sync did not return")
	}
	got := r.without("kicked")
	if got[len(got)-1] != "publish" || got[len(got)-2] != "look" {
		t.Fatalf("Sync returned before a look: %q", got)
	}
	var heard []string
	for _, c := range got {
		if strings.HasPrefix(c, "heard ") {
			heard = append(heard, c)
		}
	}
	want := []string{"heard news.0", "heard news.1", "heard news.2", "heard news.3", "heard news.4"}
	if !slices.Equal(heard, want) {
		t.Fatalf("the loop heard %q, want %q in order", heard, want)
	}

	lp.End()
	if got := r.taken(); got[len(got)-1] != "stopped" {
		t.Fatalf("after End the loop's last call was %q, want stopped", got[len(got)-1])
	}
}
