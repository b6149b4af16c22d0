package command_test

import (
	"fmt"
	"strings"
	"testing"
)

// A core publish returns once a stream that captures it has stored what
// it published, as the real CLI's next command (a process of its own,
// later) finds it: stream info right after pub counts every message.
func TestCorePublishIsStoredWhenTheNextLineRuns(t *testing.T) {
	l := newLab(t)
	l.must("stream add S --subjects 'foo' --defaults")
	for i := 1; i <= 300; i++ {
		l.must(`pub foo x`)
		r := l.must("stream info S --json")
		if want := fmt.Sprintf(`"messages": %d,`, i); !strings.Contains(r.out, want) {
			t.Fatalf("after publish %d, stream info says:\n%s", i, r.out)
		}
	}
}
