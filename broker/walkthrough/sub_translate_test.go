package walkthrough

import (
	"testing"

	"natslab/broker/brokertest"
)

// sub --translate pipes each body through a command; sub --dump writes
// each message to a file. When that goes wrong the real CLI says so in
// its own lines, and the sub goes on: a command that cannot be found or
// fails, a template or a quote that does not parse, a --dump directory
// that cannot be made or a file that cannot be written. natscli crashes on
// a --translate line with no command at all, so that one is left out
// (broker/command's tests pin the lab's refusal).
func TestSubTranslateAndDumpMistakes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs natslab and the real nats CLI")
	}
	t.Parallel()
	brokertest.CompareScript(t, brokertest.Script{
		Name: "sub --translate and --dump mistakes",
		// taken/1.json is a directory, where --dump taken writes message 1;
		// a-file is a file, where --dump a-file/x would make a directory.
		Files: map[string][]byte{"taken/1.json/keep": nil, "a-file": nil},
		Lines: []string{
			`nats stream add ORDERS --subjects "orders.>" --defaults`,
			"nats pub orders.new hello",
			"nats sub --stream ORDERS --all -T --translate 'tr a-z A-Z'",
			"nats sub --stream ORDERS --all -T --translate no-such-command-here",
			"nats sub --stream ORDERS --all -T --translate 'tr a-z A-Z {{'",
			`nats sub --stream ORDERS --all -T --translate "tr a-z 'A-Z"`,
			`nats sub --stream ORDERS --all -T --translate "sh -c 'echo out; exit 3'"`,
			"nats sub --stream ORDERS --all -T --raw --translate no-such-command-here",
			"nats sub --stream ORDERS --all -T --dump out --translate no-such-command-here",
			"nats sub --stream ORDERS --all -T --dump out --translate 'tr a-z A-Z {{'",
			"nats sub --stream ORDERS --all -T --dump taken",
			"nats sub --stream ORDERS --all -T --dump a-file/x",
		},
	})
}
