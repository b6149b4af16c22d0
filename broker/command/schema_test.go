package command

import (
	"slices"
	"testing"
	"time"

	"github.com/nats-io/jsm.go/api"
	"github.com/nats-io/natscli/cli"
)

// The lab's validator says what natscli's says, word for word, of
// configurations the schema takes and of ones it refuses; and it compiles
// each schema once, where natscli's compiles it at every check.
func TestSchemaValidatorSaysWhatNatscliSays(t *testing.T) {
	stream := func(edit func(*api.StreamConfig)) api.StreamConfig {
		cfg := api.StreamConfig{Name: "ORDERS", Subjects: []string{"orders.>"}, Retention: api.LimitsPolicy, Storage: api.FileStorage, Discard: api.DiscardOld, Replicas: 1, MaxMsgs: -1, MaxBytes: -1, MaxMsgsPer: -1, MaxMsgSize: -1, MaxConsumers: -1}
		edit(&cfg)
		return cfg
	}
	for _, tc := range []struct {
		name  string
		cfg   api.StreamConfig
		valid bool
	}{
		{"defaults", stream(func(*api.StreamConfig) {}), true},
		{"max msgs -5", stream(func(c *api.StreamConfig) { c.MaxMsgs = -5 }), false},
		{"max age -3s", stream(func(c *api.StreamConfig) { c.MaxAge = -3 * time.Second }), false},
		{"two limits wrong", stream(func(c *api.StreamConfig) { c.MaxBytes, c.MaxConsumers = -7, -2 }), false},
		{"negative replicas", stream(func(c *api.StreamConfig) { c.Replicas = -1 }), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The schema's checks run in map order: natscli lists two
			// complaints in either order from run to run.
			wantOK, wantErrs := tc.cfg.Validate(cli.SchemaValidator{})
			gotOK, gotErrs := tc.cfg.Validate(schemaValidator{})
			slices.Sort(wantErrs)
			slices.Sort(gotErrs)
			if gotOK != wantOK || !slices.Equal(gotErrs, wantErrs) {
				t.Fatalf("natscli: %v %q\nthe lab: %v %q", wantOK, wantErrs, gotOK, gotErrs)
			}
			if gotOK != tc.valid {
				t.Fatalf("want valid=%v, got %v %q", tc.valid, gotOK, gotErrs)
			}
		})
	}
	first, err := compiledSchema(api.StreamConfig{}.SchemaType())
	if err != nil {
		t.Fatal(err)
	}
	again, err := compiledSchema(api.StreamConfig{}.SchemaType())
	if err != nil || again != first {
		t.Fatalf("the schema was compiled again (%p, then %p, %v)", first, again, err)
	}
}
