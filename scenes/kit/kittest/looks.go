package kittest

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker"
)

// LookCost counts what a driver's looks at the broker cost: it has the
// driver look (sync: a round trip that ends after a look) three times, and
// returns how many looks the driver counted (looks) and how many JetStream
// API requests the server counted meanwhile, less the counting's own.
func LookCost(t testing.TB, dep broker.Deployment, looks func() uint64, sync func(limit time.Duration) bool) (taken, asked uint64) {
	t.Helper()
	nc, err := dep.Connect("natslab test api count")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	api := func() uint64 {
		ai, err := js.AccountInfo(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return ai.API.Total
	}
	looks0, api0 := looks(), api()
	for i := 0; i < 3; i++ {
		if !sync(10 * time.Second) {
			t.Fatal("the driver did not look")
		}
	}
	return looks() - looks0, api() - api0 - 1
}
