package streamlog

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
		{"stream-log", "solutions/stream-log.txt"},
		{"stream-log", "wrong/stream-log-memory.txt"},
		{"stream-log", "wrong/stream-log-uncaptured.txt"},
		{"limits", "solutions/limits.txt"},
		{"limits", "wrong/limits-discard.txt"},
		{"limits", "wrong/limits-no-wait.txt"},
		{"dedupe", "solutions/dedupe.txt"},
		{"dedupe", "wrong/dedupe-no-id.txt"},
		{"restart", "solutions/restart.txt"},
		{"restart", "wrong/restart-memory.txt"},
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
			f, ok := scenes.Lookup("log")
			if !ok {
				t.Fatal("the log scene is not registered")
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
				t.Fatalf("complete %v with the log scene open:\n%s", rep.Complete, out.String())
			}
			if want != "" && !strings.Contains(out.String(), want) {
				t.Errorf("want a line with\n  %s\ngot:\n%s", want, out.String())
			}
			sceneCameThrough(t, sc)
		})
	}
}

// sceneCameThrough: after the lesson's restart the scene still reads the
// broker: it shows the lesson's streams, or says why it cannot.
func sceneCameThrough(t *testing.T, sc scenes.Scene) {
	t.Helper()
	s := sc.(*Scene)
	deadline := time.Now().Add(5 * time.Second)
	for {
		snap := s.Snapshot()
		if snap.ServerUp && (len(snap.Streams) > 0 || snap.Problem != "") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the scene after the lesson: %+v", snap)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
