package command_test

import (
	"testing"

	"natslab/broker/brokertest"
)

// reply --command, through natslab run and through the real CLI: a command
// that fails is named as it was written, its quotes kept, and a template
// that does not parse is reported once, for the whole command line, which
// then runs with none of its templates expanded.
func TestReplyCommandMatchesRealCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs natslab and the real nats CLI")
	}
	fails := `nats reply 'fail.>' --command "sh -c 'exit 3'" &`
	bad := `nats reply 'tmpl.>' --command "echo '{{1}} {{Nope}}' {{Nope}} {{.Count}}" &`
	brokertest.CompareScript(t, brokertest.Script{
		Name: "reply --command",
		Lines: []string{
			fails,
			"nats request fail.a x",
			bad,
			"nats request tmpl.a y",
		},
		Shown: map[string][]string{
			fails: {"", "x"},
			bad:   {"", "y"},
		},
	})
}
