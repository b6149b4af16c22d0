package watch

import (
	"encoding/json"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
)

// The retention names the scenes show are the ones stream add --retention
// takes and the server's JSON carries.
func TestRetentionIsSpelledAsTheServerSpellsIt(t *testing.T) {
	for _, p := range []jetstream.RetentionPolicy{jetstream.LimitsPolicy, jetstream.InterestPolicy, jetstream.WorkQueuePolicy} {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		var server string
		if err := json.Unmarshal(b, &server); err != nil {
			t.Fatal(err)
		}
		if got := Retention(p); got != server {
			t.Errorf("Retention(%v) = %q, the server says %q", p, got, server)
		}
	}
}
