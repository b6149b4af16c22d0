package walkthrough

import (
	"testing"

	"natslab/broker/brokertest"
)

// natscli's own cheat sheets (nats cheat stream, consumer, kv, publish,
// subscribe, reply, account), the lines a learner copies, with what a
// script needs: the names they leave as placeholders made to exist,
// flags for what the real CLI would ask in a terminal, quotes where a
// shell would split a word (-H Count:{{ Count }}), a count or a wait
// where they run until stopped, a directory of the script's own for
// --dump. The lines that fail as printed (no terminal to ask in, a
// sequence that is not there, sub --next, which natscli v0.5.0 does not
// have) fail in the real CLI's words.
func TestCheatSheets(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs natslab and the real nats CLI")
	}
	t.Parallel()
	brokertest.CompareScript(t, brokertest.Script{
		Name: "cheat sheets",
		Lines: []string{
			// nats cheat stream
			"nats stream add",
			"nats stream add ORDERS --subjects 'ORDERS.*' --defaults",
			"nats pub ORDERS.new 'order 1'",
			"nats pub ORDERS.new 'order 2'",
			"nats pub one.subject x",
			"nats stream add ONE --subjects one.subject --defaults",
			"nats pub one.subject 'one 1'",
			"nats stream info ORDERS",
			"nats stream edit ORDERS --description \"new description\"",
			"nats stream edit ORDERS --description \"new description\" -f",
			"nats stream edit -i ORDERS",
			"nats stream list",
			"nats stream list -n",
			"nats stream get ORDERS 12345",
			"nats stream get ORDERS 2",
			"nats stream rmm ORDERS 12345",
			"nats stream rmm ORDERS 2 -f",
			"nats stream view ORDERS",
			"nats stream view --id 1000",
			"nats stream view ORDERS --id 1",
			"nats stream view ORDERS --since 1h",
			"nats stream view ONE --subject one.subject",
			"nats stream purge ORDERS",
			"nats stream purge ONE --subject one.subject -f",
			"nats stream purge ORDERS --keep 100 -f",
			"nats stream purge ORDERS --seq 1000 -f",
			"nats stream cluster ORDERS down",
			// nats cheat consumer
			"nats consumer add",
			"nats pub ORDERS.new 'order 3'",
			"nats pub ORDERS.new 'order 4'",
			"nats consumer add ORDERS NEW --pull --defaults",
			"nats consumer info ORDERS NEW",
			"nats consumer edit ORDERS NEW --description \"new description\"",
			"nats consumer edit ORDERS NEW --description \"new description\" -f",
			"nats consumer next ORDERS NEW --ack",
			"nats consumer next ORDERS NEW --no-ack",
			"nats consumer cluster down ORDERS NEW",
			"nats consumer rm ORDERS NEW",
			"nats consumer rm ORDERS NEW -f",
			"nats stream rm ORDERS",
			"nats stream rm ORDERS -f",
			// nats cheat kv
			"nats kv add CONFIG --replicas 3",
			"nats kv add CONFIG",
			"nats kv put CONFIG username bob",
			"nats kv get CONFIG username --raw",
			"nats kv history CONFIG username",
			"nats kv status CONFIG",
			"nats kv ls",
			// nats cheat publish
			"nats stream add DEST --subjects 'destination.>' --defaults",
			"nats pub destination.subject \"{{ Random 100 1000 }}\" -H 'Count:{{ Count }}' --count 100",
			"nats stream purge DEST -f", // the random bodies' sizes, out of account info's usage
			"nats pub destination.subject \"hello world\" --count 3 --sleep 10ms --jitter 5ms",
			"nats request destination.subject \"hello world\" -H \"Content-type:text/plain\" --raw",
			// nats cheat subscribe
			"nats sub source.subject --queue work --ack --wait 100ms",
			"nats sub --inbox --wait 100ms",
			"nats sub --inbox --dump archive --wait 100ms",
			"nats sub ORDERS.new --next",
			"nats stream add ENC --subjects encoded.sub --defaults",
			"nats pub encoded.sub aGVsbG8=",
			"nats sub encoded.sub --all --count 1 --translate \"base64 -d\"",
			// nats cheat reply
			"nats reply 'service.requests.>' --command 'echo {{2}}' --count 1 &",
			"nats request service.requests.a.b x",
			// nats cheat account
			"nats account info",
		},
		Shown: map[string][]string{
			"nats reply 'service.requests.>' --command 'echo {{2}}' --count 1 &": {"", "x"},
		},
	})
}
