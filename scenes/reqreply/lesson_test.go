package reqreply

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
	"natslab/scenes"
	"natslab/scenes/kit"
)

// The episodes that show this scene judge the same with it open: its taps
// are real subscriptions, but never a learner's, and they never change
// what the server answers. Each solution still completes its lesson, each
// wrong one still fails where it says, at a script's speed (faster than
// anyone types). The lessons restart the server (their own store area):
// the scene rides through it.
func TestLessonsJudgeTheSameWithTheSceneOpen(t *testing.T) {
	const dir = "../../lab/episode/testdata"
	cat := episode.MustLoad()
	for _, c := range []struct{ id, file string }{
		{"request-reply", "solutions/request-reply.txt"},
		{"request-reply", "wrong/request-reply-subject.txt"},
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
			f, ok := scenes.Lookup("request-reply")
			if !ok {
				t.Fatal("the request-reply scene is not registered")
			}
			sc, err := f.New(scenes.Env{Deployment: srv, Clock: kit.NewManualClock(time.Now())})
			if err != nil {
				t.Fatal(err)
			}
			defer sc.Close()
			var out, errw bytes.Buffer
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			rep, err := episode.RunScript(ctx, cat, c.id, episode.HeadlessOptions{Deployment: srv}, bytes.NewReader(script), &out, &errw)
			if err != nil {
				t.Fatalf("run: %v\n%s", err, errw.String())
			}
			if solution := want == ""; rep.Complete != solution {
				t.Fatalf("complete %v with the request-reply scene open:\n%s", rep.Complete, out.String())
			}
			if want != "" && !strings.Contains(out.String(), want) {
				t.Errorf("want a line with\n  %s\ngot:\n%s", want, out.String())
			}
			sceneCameThrough(t, sc)
		})
	}
}

// sceneCameThrough: after the lesson's restart the scene still sees the
// server (its own ask is answered by the server, bounced: nobody listens).
func sceneCameThrough(t *testing.T, sc scenes.Scene) {
	t.Helper()
	out, err := sc.Do("ask", nil)
	if err != nil || !strings.Contains(out, "no responders") {
		t.Fatalf("ask after the lesson: %q, %v", out, err)
	}
}
