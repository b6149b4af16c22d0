package episode

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// What the mirrors-sources text says beyond its steps, on the real server
// with the client library the real CLI uses.

// copyOf adds ORDERS with n messages and a stream made by cfg that copies it.
func copyOf(t *testing.T, ctx context.Context, js jetstream.JetStream, n int, cfg jetstream.StreamConfig) {
	t.Helper()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "ORDERS", Subjects: []string{"orders.>"}}); err != nil {
		t.Fatal(err)
	}
	for range n {
		if _, err := js.Publish(ctx, "orders.new", []byte("order")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := js.CreateStream(ctx, cfg); err != nil {
		t.Fatal(err)
	}
}

func streamInfo(t *testing.T, ctx context.Context, js jetstream.JetStream, name string) *jetstream.StreamInfo {
	t.Helper()
	st, err := js.Stream(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	return st.CachedInfo()
}

// A stream is a mirror from the start or never.
func TestClaimAStreamCannotBecomeAMirror(t *testing.T) {
	claimIn(t, "mirrors-sources", "the server refuses to make an existing stream a mirror")
	js, _ := claimJS(t, newServer(t))
	ctx := claimCtx(t)
	copyOf(t, ctx, js, 1, jetstream.StreamConfig{Name: "LATER", Subjects: []string{"later"}})
	_, err := js.UpdateStream(ctx, jetstream.StreamConfig{Name: "LATER", Mirror: &jetstream.StreamSource{Name: "ORDERS"}})
	if err == nil || !strings.Contains(err.Error(), "stream mirror configuration can not be updated") {
		t.Fatalf("making LATER a mirror of ORDERS: want the server's refusal, got %v", err)
	}
}

// With its origin gone a copy keeps what it copied, its Active grows, and
// the server then reports that the origin is not found; a source whose
// origin is still there stays active.
func TestClaimACopyOutlivesItsOrigin(t *testing.T) {
	claimIn(t, "mirrors-sources", "`BACKUP` and `ALL` keep everything they copied")
	claimIn(t, "mirrors-sources", "With `ORDERS` gone, Active for `BACKUP` and `ALL` keeps growing, and after a while the report shows the server's error, *stream not found*; `RETURNS`, still there, keeps `ALL`'s other source active.")
	js, _ := claimJS(t, newServer(t))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	copyOf(t, ctx, js, 3, jetstream.StreamConfig{Name: "BACKUP", Mirror: &jetstream.StreamSource{Name: "ORDERS"}})
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "RETURNS", Subjects: []string{"returns.>"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(ctx, "returns.new", []byte("return")); err != nil {
		t.Fatal(err)
	}
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "ALL", Sources: []*jetstream.StreamSource{{Name: "ORDERS"}, {Name: "RETURNS"}}}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, ctx, "BACKUP and ALL to copy", func() bool {
		return streamInfo(t, ctx, js, "BACKUP").State.Msgs == 3 && streamInfo(t, ctx, js, "ALL").State.Msgs == 4
	})
	if err := js.DeleteStream(ctx, "ORDERS"); err != nil {
		t.Fatal(err)
	}
	var lost *jetstream.StreamInfo
	waitUntil(t, ctx, "BACKUP to report ORDERS not found", func() bool {
		lost = streamInfo(t, ctx, js, "BACKUP")
		return lost.Mirror != nil && lost.Mirror.Error != nil && strings.Contains(lost.Mirror.Error.Description, "stream not found")
	})
	if lost.State.Msgs != 3 {
		t.Errorf("BACKUP holds %d messages without its origin, want the 3 it copied", lost.State.Msgs)
	}
	// The server's check for a stalled copy runs every 10 seconds: by the
	// time it reports the error, the copy has not heard for longer.
	if lost.Mirror.Active < 5*time.Second {
		t.Errorf("BACKUP last heard from ORDERS %v ago, yet reports it lost", lost.Mirror.Active)
	}
	all := streamInfo(t, ctx, js, "ALL")
	if all.State.Msgs != 4 {
		t.Errorf("ALL holds %d messages without ORDERS, want the 4 it copied", all.State.Msgs)
	}
	for _, src := range all.Sources {
		switch src.Name {
		case "ORDERS":
			if src.Active < 5*time.Second {
				t.Errorf("ALL last heard from the removed ORDERS %v ago", src.Active)
			}
		case "RETURNS":
			if src.Active < 0 || src.Active > 5*time.Second {
				t.Errorf("ALL last heard from RETURNS %v ago: want it active", src.Active)
			}
		}
	}
}
