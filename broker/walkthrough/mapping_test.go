package walkthrough

import (
	"testing"

	"natslab/broker/brokertest"
)

// The examples of docs.nats.io's Subject Mapping and Transforms page, as
// `nats server mapping` tests them: prefixes, reordering, dropping,
// splitting and slicing tokens, and deterministic partitioning. Weighted
// and cluster-scoped mappings live in a server's configuration, which
// `nats server mapping` does not read, so the page has no command for them.
// Without a subject to test the real CLI prompts for one, which needs a
// terminal: both sides refuse alike.
func TestSubjectMappingWalkthrough(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs natslab and the real nats CLI")
	}
	t.Parallel()
	brokertest.CompareScript(t, brokertest.Script{
		Name: "subject mapping",
		Lines: []string{
			`nats server mapping foo bar foo`,
			`nats server mapping ">" "baz.>" bar.a.b`,
			`nats server mapping "bar.*.*" "baz.{{wildcard(2)}}.{{wildcard(1)}}" bar.a.b`,
			`nats server mapping "orders.*.*" "foo.{{wildcard(2)}}" orders.local.order1`,
			`nats server mapping "*" "{{split(1,-)}}" foo-bar`,
			`nats server mapping "*" "{{split(1,--)}}" foo--bar`,
			`nats server mapping "*" "{{splitfromleft(1,4)}}" 1234567`,
			`nats server mapping "*" "{{splitfromright(1,4)}}" 1234567`,
			`nats server mapping "*" "{{slicefromleft(1,2)}}" 1234567`,
			`nats server mapping "*" "{{slicefromright(1,2)}}" 1234567`,
			`nats server mapping "neworders.*" "neworders.{{wildcard(1)}}.{{partition(3,1)}}" neworders.customerid1`,
			`nats server mapping "neworders.*" "neworders.{{wildcard(1)}}.{{partition(3,1)}}" neworders.customerid2`,
			`nats server mapping "neworders.*" "neworders.{{wildcard(1)}}.{{partition(3,1)}}" neworders.customerid3`,
			`nats server mapping "foo.*.*" "foo.{{wildcard(1)}}.{{wildcard(2)}}.{{partition(5,1,2)}}" foo.us.customerid`,
			`nats server mapping "foo.*.*" "foo.{{wildcard(1)}}.{{wildcard(2)}}.{{partition(3,1,2)}}"`,
			`nats server mapping "foo.*" "bar.{{wildcard(2)}}" foo.x`,
			`nats server mappings "orders.>" "orders.central.>" orders.flush`,
		},
	})
}
