package walkthrough

import (
	"testing"

	"natslab/broker/brokertest"
)

// The other names of the commands, as docs and answers online write them
// (str, st, nfo, con, req, kv view…), and one the real CLI does not have:
// kv del is also kv rm, but not kv delete, as it is for streams and
// consumers; the real CLI answers that with its usage.
func TestCommandAliases(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs natslab and the real nats CLI")
	}
	t.Parallel()
	brokertest.CompareScript(t, brokertest.Script{
		Name: "command aliases",
		Lines: []string{
			"nats str create S --subjects s.a --defaults",
			"nats st nfo S",
			"nats ms i S",
			"nats s l",
			"nats stream update S --max-msgs 5 -f",
			"nats stream subj S",
			"nats con create S C --pull --defaults",
			"nats obs list S",
			"nats c nfo S C",
			"nats consumer update S C --max-deliver 2 -f",
			"nats consumer del S C -f",
			"nats kv new K",
			"nats kv list",
			"nats kv view K",
			"nats kv status K",
			"nats kv delete K -f",
			"nats kv rm K -f",
			"nats publish s.a x",
			"nats req nobody x --timeout 100ms",
			"nats subscribe s.a --all --count 1",
			"nats a nfo",
			"nats stream delete S -f",
		},
	})
}

// nats alone, as a learner types it to see what there is: the real CLI's
// usage, its list of commands.
func TestNatsAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs natslab and the real nats CLI")
	}
	t.Parallel()
	brokertest.CompareScript(t, brokertest.Script{
		Name:  "nats alone",
		Lines: []string{"nats", "nats stream ls", "nats"},
	})
}
