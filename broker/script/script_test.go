package script_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"natslab/broker/brokertest"
	"natslab/broker/command"
	"natslab/broker/script"
)

// A script can wait: sleep DURATION is a line of its own, and a bad
// duration is one clear error while the script carries on.
func TestScriptsSleep(t *testing.T) {
	srv := brokertest.Start(t, brokertest.InProcessOnly())
	s := command.NewSession(srv)
	defer s.Close()
	var out, errb bytes.Buffer
	res, err := script.Run(context.Background(), s, strings.NewReader("sleep 10ms\nsleep soon\nsleep 2m\nsleep\npub greet hi\n"), command.Streams{Out: &out, Err: &errb})
	if err != nil {
		t.Fatal(err)
	}
	if res.Lines != 5 || res.Failed != 3 {
		t.Fatalf("want 5 lines, 3 failed: %+v\n%s", res, errb.String())
	}
	for _, want := range []string{`sleep wants a duration with a unit, like 500ms or 3s, got "soon"`, "sleep waits at most 1m0s, got 2m0s", "sleep takes one duration", `Published 2 bytes to "greet"`} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb.String())
		}
	}
}
