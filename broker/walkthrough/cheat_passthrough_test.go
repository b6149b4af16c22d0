package walkthrough

import (
	"bytes"
	"testing"

	"natslab/broker/brokertest"
)

// natscli's cheat sheets for the commands the lab runs with the real
// CLI's own code (nats cheat object, context, errors, schemas), as a
// learner copies them, with what a script needs: the names they leave as
// placeholders made to exist, a file to put, --force where the real CLI
// would ask in a terminal. `cat x.jpg|nats obj put` is a shell pipeline,
// left out. The editor lines (context edit, errors edit) name what does
// not exist, so the real CLI refuses them in its own words before it
// would start an editor; the lab refuses an editor line that would start
// one (see TestPassthroughRefusals).
func TestPassthroughCheatSheets(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs natslab and the real nats CLI")
	}
	t.Parallel()
	brokertest.CompareScript(t, brokertest.Script{
		Name:  "passthrough cheat sheets",
		Files: map[string][]byte{"image.jpg": bytes.Repeat([]byte("jpeg "), 2000), "request.json": []byte(`{"seq":1}`)},
		Lines: []string{
			// nats cheat object
			"nats obj add FILES --replicas 3",
			"nats obj add FILES",
			"nats obj put FILES image.jpg --no-progress",
			"nats obj get FILES image.jpg -O out.jpg --no-progress",
			"nats obj info FILES",
			"nats obj info FILES image.jpg",
			"nats obj ls",
			"nats obj ls FILES",
			"nats obj seal FILES",
			"nats obj seal FILES --force",
			"nats obj status FILES",
			"nats obj del FILES image.jpg",
			"nats obj del FILES image.jpg --force",
			"nats obj del FILES",
			"nats obj del FILES --force",
			// nats cheat context
			"nats context add development --server nats.dev.example.net:4222",
			`nats context add ngs --description "NGS Connection in Orders Account" --nsc nsc://acme/orders/new`,
			"nats context edit staging",
			"nats context ls",
			"nats context info development --json",
			"nats context validate",
			"nats context select",
			"nats context select development",
			"nats context show",
			// nats cheat errors
			"nats errors lookup 1000",
			"nats errors lookup 10013",
			"nats errors ls stream",
			"nats errors edit errors.json 10013",
			"nats errors add errors.json",
			// nats cheat schemas
			"nats schema search 'response|request'",
			"nats schema info io.nats.jetstream.api.v1.stream_msg_get_request --yaml",
			"nats schema validate io.nats.jetstream.api.v1.stream_msg_get_request request.json",
		},
	})
}
