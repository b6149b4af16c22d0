package kittest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"natslab/broker"
	"natslab/broker/brokertest"
	"natslab/lab/episode"
	"natslab/scenes"
	"natslab/scenes/kit"
)

// episodes is the episodes' test data, seen from a scene package's
// directory (scenes/<name>), where its tests run.
const episodes = "../../lab/episode/testdata"

var (
	catalogOnce sync.Once
	catalog     *episode.Catalog
)

// JudgeLesson runs an episode's test script (file, under the episodes'
// testdata) on dep the way natslab run does, with whatever the test has
// opened meanwhile, and checks that it judges the same: a solution
// completes the lesson, a wrong script (one with a "# want: " line) does
// not, and says what that line says. with names what is open, for the
// failure ("the log scene open").
func JudgeLesson(t testing.TB, dep broker.Deployment, id, file, with string) {
	t.Helper()
	script, err := os.ReadFile(filepath.Join(episodes, file))
	if err != nil {
		t.Fatalf("the episodes' test data: %v", err)
	}
	want := ""
	for _, l := range strings.Split(string(script), "\n") {
		if w, ok := strings.CutPrefix(l, "# want: "); ok {
			want = w
		}
	}
	catalogOnce.Do(func() { catalog = episode.MustLoad() })
	var out, errw bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rep, err := episode.RunScript(ctx, catalog, id, episode.HeadlessOptions{Deployment: dep}, bytes.NewReader(script), &out, &errw)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, errw.String())
	}
	if solution := want == ""; rep.Complete != solution {
		t.Fatalf("complete %v with %s:\n%s", rep.Complete, with, out.String())
	}
	if want != "" && !strings.Contains(out.String(), want) {
		t.Errorf("want a line with\n  %s\ngot:\n%s", want, out.String())
	}
}

// Registered opens the scene registered as name on dep, as the lab's
// scene verb does, closed when the test ends.
func Registered(t testing.TB, name string, dep broker.Deployment) scenes.Scene {
	t.Helper()
	f, ok := scenes.Lookup(name)
	if !ok {
		t.Fatalf("the %s scene is not registered", name)
	}
	sc, err := f.New(scenes.Env{Deployment: dep, Clock: kit.NewManualClock(time.Now())})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sc.Close)
	return sc
}

// Lesson names an episode's test script: the lesson it is for and the
// file, under the episodes' testdata.
type Lesson struct{ ID, File string }

// JudgeWithScene runs each lesson's script (a subtest each, named after
// its file) on a fresh server with the registered scene name open, and
// then hands the scene to cameThrough, to check it is still at work.
func JudgeWithScene(t *testing.T, name string, lessons []Lesson, cameThrough func(t *testing.T, sc scenes.Scene)) {
	for _, l := range lessons {
		t.Run(filepath.Base(l.File), func(t *testing.T) {
			srv := brokertest.Start(t)
			sc := Registered(t, name, srv)
			JudgeLesson(t, srv, l.ID, l.File, "the "+name+" scene open")
			cameThrough(t, sc)
		})
	}
}
