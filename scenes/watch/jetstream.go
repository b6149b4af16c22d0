package watch

import (
	"cmp"
	"context"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// StreamList names the streams there are, for an error that says a name
// is not among them: "streams are A, B", or "there are no streams yet".
// It asks for at most three seconds.
func StreamList(ctx context.Context, js jetstream.JetStream) string {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	var names []string
	l := js.StreamNames(ctx)
	for n := range l.Name() {
		names = append(names, n)
	}
	if len(names) == 0 {
		return "there are no streams yet"
	}
	return "streams are " + strings.Join(names, ", ")
}

// OfflineConsumer reports whether the server listed ci with its
// configuration alone, as it lists a consumer whose every copy is on a
// stopped node of the lab's cluster, and the consumer's name, from that
// configuration then ("" where it names none).
func OfflineConsumer(ci *jetstream.ConsumerInfo) (name string, offline bool) {
	if ci.Name != "" {
		return ci.Name, false
	}
	return cmp.Or(ci.Config.Name, ci.Config.Durable), true
}

// Literal makes a subject a stream captures out of one of its filters,
// for the scene's own publishes: each wildcard becomes "scene".
func Literal(filter string) string {
	toks := strings.Split(filter, ".")
	for i, t := range toks {
		if t == "*" || t == ">" {
			toks[i] = "scene"
		}
	}
	return strings.Join(toks, ".")
}

// Lively is when a stream last showed life: its last message, or its
// creation when that came later (a stream made anew holds nothing yet). An
// automatic choice of stream shows the liveliest.
func Lively(si *jetstream.StreamInfo) time.Time {
	if si.State.LastTime.After(si.Created) {
		return si.State.LastTime
	}
	return si.Created
}

// Retention names a stream's retention policy as the CLI's stream add
// --retention spells it, and the server's own JSON: "limits", "interest",
// "workqueue".
func Retention(r jetstream.RetentionPolicy) string {
	return strings.ToLower(r.String())
}
