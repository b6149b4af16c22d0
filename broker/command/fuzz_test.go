package command_test

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"natslab/broker/brokertest"
	"natslab/broker/command"
)

// seedLines are typical and atypical command lines; the fuzzer mutates them.
var seedLines = []string{
	`pub greet "Hello NATS!"`,
	`nats pub events.page_loaded '{"page":"/home"}' --jetstream`,
	`pub tasks 'task {{Count}}' --count 6`,
	`pub orders.x hi -H Nats-Msg-Id:ord-1 -J`,
	`sub "events.>" --all --terminate-at-end`,
	`sub tasks --queue workers`,
	`stream add EVENTS --subjects "events.>" --defaults`,
	`stream add ORDERS --subjects "orders.>" --storage file --retention limits`,
	`stream edit ORDERS --max-msgs 5`,
	`stream info EVENTS`,
	`stream view ORDERS`,
	`stream rmm ORDERS 1 --force`,
	`consumer add EVENTS worker --pull --ack explicit --defaults`,
	`consumer next EVENTS worker --ack --count 2`,
	`consumer add EVENTS X --pull --ack-wait 10s --defaults`,
	`request time "" --timeout 2s`,
	`reply time --command "date"`,
	`kv add profiles`,
	`kv put profiles sue.color blue`,
	`kv update profiles sue.color red 3`,
	`help stream add`,
	`nats-server -js`,
	`pub "orders.us created" x`,
	`pub greet 'unterminated`,
	`pub greet "{{Random 1 5}}{{Count"`,
	`stream add --max-age=1x`,
	`--count 3`,
	`pub greet hi --count=-1`,
	"pub \x00 \xff",
	`consumer add EVENTS c --deliver 1h --filter events.x --filter events.y --defaults`,
}

// FuzzParse throws mutated lines at the parser (splitting, fisk, and the
// rewriting of its errors) without running anything: it must never panic,
// and every error must be one line that starts with the command's problem.
func FuzzParse(f *testing.F) {
	for _, l := range seedLines {
		f.Add(l)
	}
	srv := brokertest.Start(f, brokertest.InProcessOnly())
	s := command.NewSession(srv)
	f.Cleanup(s.Close)
	f.Fuzz(func(t *testing.T, line string) {
		err := s.Check(line)
		if err == nil {
			return
		}
		msg := command.ErrorLine(err)
		if strings.Contains(msg, "\n") {
			t.Fatalf("error for %q spans lines: %q", line, msg)
		}
		if strings.TrimSpace(strings.TrimPrefix(msg, "nats: error:")) == "" {
			t.Fatalf("empty error for %q", line)
		}
	})
}

// FuzzRun runs mutated lines for real against a real server, each with a
// short deadline: no panic, no hang past the deadline, and the server
// stays up.
func FuzzRun(f *testing.F) {
	for _, l := range seedLines {
		f.Add(l)
	}
	srv := brokertest.Start(f, brokertest.InProcessOnly())
	s := command.NewSession(srv, command.WithTimeout(200*time.Millisecond))
	f.Cleanup(s.Close)
	f.Fuzz(func(t *testing.T, line string) {
		if !utf8.ValidString(line) && len(line) > 256 {
			return
		}
		// Restarts and resets are legitimate but slow: the fuzzer would spend
		// its time there.
		if w, _ := command.SplitWords(line); len(w) > 0 && (w[0] == "nats-server" || w[0] == "restart" || w[0] == "reset") {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		done := make(chan error, 1)
		go func() { done <- s.Run(ctx, line, io.Discard, io.Discard) }()
		select {
		case err := <-done:
			if err != nil && strings.Contains(command.ErrorLine(err), "internal error") {
				t.Fatalf("%q: %v", line, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%q did not stop at its deadline", line)
		}
		if !srv.Running() {
			t.Fatalf("%q stopped the server", line)
		}
	})
}
