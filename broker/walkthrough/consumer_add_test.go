package walkthrough

import (
	"testing"

	"natslab/broker/brokertest"
)

// consumer add in a script, where the real CLI has no terminal to ask in:
// each line leaves out one more of what it asks for, in the order it
// asks, and the lines that give everything (or --defaults) make the
// consumer.
func TestConsumerAddWithoutATerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs natslab and the real nats CLI")
	}
	t.Parallel()
	brokertest.CompareScript(t, brokertest.Script{
		Name: "consumer add without a terminal",
		Lines: []string{
			"nats stream add S9 --subjects 's9.>' --defaults",
			"nats consumer add S9 C9 --defaults",
			"nats consumer add S9 C8 --pull",
			"nats consumer add S9 C7 --pull --deliver all",
			"nats consumer add S9 C6 --pull --deliver all --ack explicit --replay instant --filter ''",
			"nats consumer add S9 C5 --pull --deliver all --ack explicit --replay instant --filter '' --max-deliver 3 --max-pending 10",
			"nats consumer add S9 C4 --pull --deliver all --ack explicit --replay instant --filter '' --max-deliver 3 --max-pending 10 --no-headers-only",
			"nats consumer add S9 C3 --pull --deliver all --ack explicit --replay instant --filter '' --max-deliver 3 --max-pending 10 --no-headers-only --backoff none",
			"nats consumer add S9 C2 --target out --defaults",
			"nats consumer add S9 C1 --target out",
			"nats consumer add S9 C0 --target out --deliver-group '' --deliver all --ack none --replay instant --filter '' --heartbeat 0s --flow-control",
			"nats consumer add S9 CX --target out --deliver-group '' --deliver all --ack none --replay instant --filter '' --heartbeat 0s --flow-control --no-headers-only",
			"nats consumer add S9 --pull --defaults",
			"nats consumer ls S9 --names",
		},
	})
}

// consumer add lines that conflict or that the server refuses: --pull
// with push flags (the real CLI lets --target win), names the real CLI
// or the server refuses, backoff and start policies it cannot read, a
// filter outside the stream, a consumer added twice, work-queue rules.
// The real CLI's lines, with the lab's words only in notes.
func TestConsumerAddRefusals(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs natslab and the real nats CLI")
	}
	t.Parallel()
	brokertest.CompareScript(t, brokertest.Script{
		Name: "consumer add refusals",
		Lines: []string{
			"nats consumer add NOPE C0 --pull --defaults",
			"nats consumer add",
			"nats stream add S --subjects 's.>' --defaults",
			"nats consumer add NOPE C0 --pull",
			"nats consumer add S C1 --pull --target x",
			"nats consumer add S C2 --pull --target x --defaults",
			"nats consumer add S C3 --pull --heartbeat 5s --defaults",
			"nats consumer add S C4 --pull --deliver-group g --defaults",
			"nats consumer add S C5 --pull --flow-control --defaults",
			"nats consumer add S C6 --durable D6 --pull --defaults",
			"nats consumer add S C7 --ack-wait 5s --pull --defaults",
			"nats consumer add S 'bad name' --pull --defaults",
			"nats consumer add S a/b --pull --defaults",
			"nats consumer add S a.b --pull --defaults",
			"nats consumer add S C8 --pull --defaults --backoff linear --backoff-steps 0",
			"nats consumer add S C9 --pull --defaults --backoff linear --backoff-min 1s --backoff-max 1s --backoff-steps 3",
			"nats consumer add S C10 --pull --defaults --deliver 0",
			"nats consumer add S C11 --pull --defaults --deliver yesterday",
			"nats consumer add S C11 --pull --deliver yesterday",
			"nats consumer add S C11 --pull --defaults --deliver ALL",
			"nats consumer add S C11 --pull --defaults --deliver 2026-01-02",
			"nats consumer add S C11 --pull --defaults --max-deliver 0 --ack none",
			"nats consumer add S C18 --pull --deliver all --ack explicit --replay instant --filter '' --max-deliver 0",
			"nats consumer add S C12 --pull --defaults --filter 'z.>'",
			"nats consumer add S C12 --pull --defaults --filter 'z.>'",
			"nats consumer add S C12 --pull --defaults --filter 's.>'",
			"nats consumer add S C13 --target 'bad subject' --defaults",
			"nats consumer add S C14 --pull --defaults --filter 'bad subject'",
			"nats consumer add S C15 --pull --defaults --sample 200",
			"nats consumer add S C16 --pull --defaults --bps 100",
			"nats consumer add S C17 --pull --defaults --heartbeat -1",
			"nats stream add W --subjects 'w.>' --retention work --defaults",
			"nats consumer add W A --pull --defaults",
			"nats consumer add W B --pull --defaults",
			"nats consumer add W C --pull --defaults --deliver new --filter w.c",
			"nats consumer add W D --pull --defaults --ack none --filter w.d",
			"nats consumer ls S --names",
		},
	})
}

// consumer edit's refusals: an ephemeral consumer, a pull consumer given a
// --target, the ack wait of a consumer with a backoff policy (and with the
// backoff dropped in the same edit), a bad backoff, a bad filter, a
// consumer or stream that is not there, a change the server refuses.
func TestConsumerEditRefusals(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs natslab and the real nats CLI")
	}
	t.Parallel()
	brokertest.CompareScript(t, brokertest.Script{
		Name: "consumer edit refusals",
		Lines: []string{
			"nats stream add S --subjects 's.>' --defaults",
			"nats consumer add S P --pull --defaults",
			"nats consumer add S B --pull --defaults --backoff linear --backoff-min 1s --backoff-max 5s --backoff-steps 2",
			"nats consumer add S E --ephemeral --pull --defaults",
			"nats consumer edit S E --max-deliver 3 -f",
			"nats consumer edit S P --target x -f",
			"nats consumer edit S B --wait 5s -f",
			"nats consumer edit S B --wait 5s --backoff none -f",
			"nats consumer edit S P --backoff linear --backoff-steps 0 -f",
			"nats consumer edit S P --filter 'bad subject' -f",
			"nats consumer edit S P --filter 'z.>' -f",
			"nats consumer edit S P --filter '' -f",
			"nats consumer edit S NOPE --max-deliver 3 -f",
			"nats consumer edit NOPE P --max-deliver 3 -f",
			"nats consumer edit S P --max-deliver 3",
			"nats consumer edit S P --max-deliver 3 --dry-run",
			"nats consumer edit S P --max-deliver 3 -f",
			"nats consumer edit S P --max-deliver 3 -f",
			"nats consumer edit S P --replicas 3 -f",
		},
	})
}

// TestConsumerSelection: consumer info, ls, report and rm where the stream
// or the consumer is left out, misspelt or not a valid name. Without a
// terminal the real CLI cannot offer its lists, and says so in its words;
// the lab names what exists in its notes.
func TestConsumerSelection(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs natslab and the real nats CLI")
	}
	t.Parallel()
	brokertest.CompareScript(t, brokertest.Script{
		Name: "consumer selection",
		Lines: []string{
			"nats consumer ls",
			"nats consumer info",
			"nats stream add S --subjects 's.>' --defaults",
			"nats consumer info S",
			"nats consumer add S P --pull --defaults",
			"nats consumer ls",
			"nats consumer ls NOPE",
			"nats consumer report",
			"nats consumer report NOPE",
			"nats consumer info",
			"nats consumer info S",
			"nats consumer info S NOPE",
			"nats consumer info S a.b",
			"nats consumer info S NOPE --json",
			"nats consumer info NOPE P",
			"nats consumer rm",
			"nats consumer rm -f",
			"nats consumer rm S",
			"nats consumer rm S -f",
			"nats consumer rm S NOPE",
			"nats consumer rm S NOPE -f",
			"nats consumer rm NOPE P -f",
			"nats consumer rm S P",
			"nats consumer rm S P -f",
			"nats consumer ls S",
		},
	})
}

// TestConsumerNextMistakes: consumer next on names that are not valid, a
// stream or consumer that is not there, --term with --ack or --nak,
// --count 0. (A push consumer is left out: the real CLI prints the status
// the server answers with as a message, its headers in random order. No
// pull follows --term --nak: the real CLI has sent its pull before it
// refuses the flags, so whether the next one gets the message races.)
func TestConsumerNextMistakes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs natslab and the real nats CLI")
	}
	t.Parallel()
	brokertest.CompareScript(t, brokertest.Script{
		Name: "consumer next mistakes",
		Lines: []string{
			"nats stream add S --subjects 's.>' --defaults",
			"nats pub s.a one",
			"nats consumer add S P --pull --defaults",
			"nats consumer next S a.b",
			"nats consumer next a.b P",
			"nats consumer next NOPE P",
			"nats consumer next S NOPE",
			"nats consumer next NOPE P --term --ack",
			// A pull that waits for nothing may still catch a message the
			// server sends at once (the real CLI sometimes does), and the
			// real CLI asks for the next message before it refuses --term
			// with --nak (whether the request leaves before it exits is a
			// race): a consumer with nothing to deliver makes each line
			// one outcome.
			"nats consumer add S IDLE --pull --filter s.none --defaults",
			"nats consumer next S IDLE --term --nak",
			"nats consumer next S P --count 0",
			"nats pub s.b two",
			"nats consumer next S IDLE --timeout=-1s",
			"nats consumer next S NOPE --timeout=-1s",
			"nats consumer next S P --wait=-1s",
			"nats consumer info S P",
		},
	})
}
