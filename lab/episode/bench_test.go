package episode

import (
	"context"
	"testing"
)

// What a check after every command costs when nothing changed: the lab
// calls Evaluate after each line and once a second.
func BenchmarkEvaluate(b *testing.B) {
	for _, tc := range []struct{ id, script string }{
		{"hello", "sub greet &\n"},                                             // Subsz, Connz and the lab's deliveries
		{"first-stream", "nats-server -js\n"},                                  // a stream's info over the JetStream API
		{"durable-consumer", "consumer add EVENTS worker --pull --defaults\n"}, // a consumer's info
	} {
		b.Run(tc.id, func(b *testing.B) {
			srv := newServerB(b)
			l := newLabB(b, srv)
			l.run("lesson " + tc.id)
			for _, line := range splitLines(tc.script) {
				l.run(line)
			}
			ctx := context.Background()
			b.ResetTimer()
			for b.Loop() {
				l.tutor.Evaluate(ctx)
			}
		})
	}
}
