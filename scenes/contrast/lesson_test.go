package contrast

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"natslab/lab/episode"
)

// The episodes that show the contrast scene judge the same with it open:
// its app (a core subscriber on events.>, a durable consumer on EVENTS) is
// the scene's, not the learner's, so it neither keeps "nobody listened" from
// happening nor reads a replay for the learner.
func TestLessonsJudgeTheSameWithTheContrastSceneOpen(t *testing.T) {
	const dir = "../../lab/episode/testdata"
	cat := episode.MustLoad()
	for _, c := range []struct {
		id   string
		mode Mode
		wait bool // mode … wait: as the lesson opens it, never making EVENTS
		file string
	}{
		{"offline-client", Core, false, "solutions/offline-client.txt"},
		{"offline-client", Core, false, "wrong/offline-client-online.txt"},
		{"first-stream", JetStream, false, "solutions/first-stream.txt"},
		{"first-stream", JetStream, false, "wrong/first-stream-no-replay.txt"},
		{"first-stream", JetStream, true, "solutions/first-stream.txt"},
		{"first-stream", JetStream, true, "wrong/first-stream-evts.txt"},
		{"first-stream", JetStream, true, "wrong/first-stream-no-js.txt"},
	} {
		t.Run(fmt.Sprintf("%s-wait=%v", filepath.Base(c.file), c.wait), func(t *testing.T) {
			script, err := os.ReadFile(filepath.Join(dir, c.file))
			if err != nil {
				t.Fatalf("the episodes' test data: %v", err)
			}
			want := ""
			for _, l := range strings.Split(string(script), "\n") {
				if w, ok := strings.CutPrefix(l, "# want: "); ok {
					want = w
				}
			}
			h := newHarness(t, Options{})
			mode := []string{c.mode.String()}
			if c.wait {
				mode = append(mode, "wait")
			}
			if _, err := h.s.Do("mode", mode); err != nil {
				t.Fatal(err)
			}
			var out, errw bytes.Buffer
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			rep, err := episode.RunScript(ctx, cat, c.id, episode.HeadlessOptions{Deployment: h.srv}, bytes.NewReader(script), &out, &errw)
			if err != nil {
				t.Fatalf("run: %v\n%s", err, errw.String())
			}
			if solution := want == ""; rep.Complete != solution {
				t.Fatalf("complete %v with the contrast scene open in %s mode:\n%s", rep.Complete, c.mode, out.String())
			}
			if want != "" && !strings.Contains(out.String(), want) {
				t.Errorf("want a line with\n  %s\ngot:\n%s", want, out.String())
			}
		})
	}
}
