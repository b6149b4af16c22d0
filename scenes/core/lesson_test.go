package core

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"natslab/broker/brokertest"
	"natslab/lab/episode"
)

// The episodes that show these scenes judge the same with the scene open:
// the scene's tap is a real subscription, but not the learner's, so it
// neither ticks a step (a subscriber on greet, messages received) nor
// keeps a subject heard. Each solution still completes its lesson, each
// wrong one still fails where it says. The lessons restart the server
// (their own store area): the scene rides through it.
func TestLessonsJudgeTheSameWithTheirSceneOpen(t *testing.T) {
	const dir = "../../lab/episode/testdata"
	cat := episode.MustLoad()
	for _, c := range []struct {
		id   string
		kind Kind
		file string
	}{
		{"hello", Hello, "solutions/hello.txt"},
		{"hello", Hello, "wrong/hello-still-listening.txt"},
		{"hello", Hello, "wrong/hello-typo.txt"},
		{"subjects", Wildcards, "solutions/subjects.txt"},
		{"subjects", Wildcards, "wrong/subjects-missing.txt"},
		{"subjects", Wildcards, "wrong/subjects-star.txt"},
		{"queue-groups", Queues, "solutions/queue-groups.txt"},
		{"queue-groups", Queues, "wrong/queue-groups-double.txt"},
		{"queue-groups", Queues, "wrong/queue-groups-typo.txt"},
	} {
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			script, err := os.ReadFile(filepath.Join(dir, c.file))
			if err != nil {
				t.Skipf("the episodes' test data: %v", err)
			}
			want := ""
			for _, l := range strings.Split(string(script), "\n") {
				if w, ok := strings.CutPrefix(l, "# want: "); ok {
					want = w
				}
			}
			srv := brokertest.Start(t)
			h := newHarnessOn(t, srv, c.kind)
			if c.kind == Wildcards {
				h.do("watch", "orders.>")
			}
			var out, errw bytes.Buffer
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			rep, err := episode.RunScript(ctx, cat, c.id, episode.HeadlessOptions{Deployment: srv}, bytes.NewReader(script), &out, &errw)
			if err != nil {
				t.Fatalf("run: %v\n%s", err, errw.String())
			}
			if solution := want == ""; rep.Complete != solution {
				t.Fatalf("complete %v with the %s scene open:\n%s", rep.Complete, c.kind.info().name, out.String())
			}
			if want != "" && !strings.Contains(out.String(), want) {
				t.Errorf("want a line with\n  %s\ngot:\n%s", want, out.String())
			}
			// The scene came through the lesson's restart: it watches still.
			before := h.s.Snapshot().Published
			h.do("publish")
			h.until("its publish after the restart", func(s Snapshot) bool { return s.ServerUp && s.Published > before })
		})
	}
}
