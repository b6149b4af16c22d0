package walkthrough

import (
	"testing"

	"natslab/broker/brokertest"
)

// Templates a learner gets wrong in pub, request and reply: a field the
// template data does not have, in a body, a subject and a header. The
// real CLI sends the text unchanged and says why, naming its template
// data's type.
func TestTemplateMistakes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs natslab and the real nats CLI")
	}
	t.Parallel()
	brokertest.CompareScript(t, brokertest.Script{
		Name: "template mistakes",
		Lines: []string{
			"nats reply svc 'answer {{ .Nope }}' &",
			"nats stream add S --subjects 's.>' --defaults",
			"nats pub s.e '{{ .Unknown }}'",
			"nats pub 's.{{.Nope}}' x",
			"nats pub s.e x -H 'A:{{.Nope}}'",
			"nats pub s.e '{{ .Count.X }}'",
			"nats request svc '{{ .Nope }}'",
			"nats sub 's.>' --all -T --raw",
		},
		Shown: map[string][]string{
			"nats reply svc 'answer {{ .Nope }}' &": {"", "{{ .Nope }}"},
		},
	})
}
