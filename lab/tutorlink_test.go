package lab

import (
	"strings"
	"testing"
	"time"

	"natslab/broker/brokertest"
	"natslab/lab/episode"
	"natslab/scenes"
	"natslab/scenes/kit"
)

// After lesson 15, next passes over the cluster lesson on a single server:
// the completion note says so, so that nobody looks for what went wrong
// with lesson 16. With a cluster, 16 comes next and nothing is passed.
func TestNextAfterSaysWhichLessonItPassesOver(t *testing.T) {
	cat := episode.MustLoad()
	retention, ok := cat.Get("retention")
	if !ok {
		t.Fatal("no lesson retention")
	}
	single := (&tutorLink{cat: cat, nodes: 1}).nextAfter(retention)
	if want := "Type next for lesson 17 · kv: Key-value. Lesson 16 · replicas needs natslab --cluster 3."; single != want {
		t.Errorf("on one server:\n got %q\nwant %q", single, want)
	}
	cluster := (&tutorLink{cat: cat, nodes: 3}).nextAfter(retention)
	if !strings.HasPrefix(cluster, "Type next for lesson 16 · replicas:") || strings.Contains(cluster, "needs") {
		t.Errorf("on a cluster: %q", cluster)
	}
}

// Every scene a lesson or one of its steps asks for is one the lab has,
// and takes the control the lesson gives it (as followTutor opens it).
func TestLessonsAskForScenesTheLabHas(t *testing.T) {
	srv := brokertest.Start(t, brokertest.InProcessOnly())
	for _, e := range episode.MustLoad().Episodes {
		specs := []string{e.Scene}
		for _, st := range e.Steps {
			specs = append(specs, st.Scene)
		}
		for _, spec := range specs {
			words := strings.Fields(spec)
			if len(words) == 0 {
				continue
			}
			f, ok := scenes.Lookup(words[0])
			if !ok {
				t.Errorf("lesson %s asks for the scene %q, which the lab does not have", e.ID, words[0])
				continue
			}
			if len(words) == 1 {
				continue
			}
			sc, err := f.New(scenes.Env{Deployment: srv, Clock: kit.NewManualClock(time.Time{})})
			if err != nil {
				t.Fatalf("scene %s: %v", words[0], err)
			}
			if _, err := sc.Do(words[1], words[2:]); err != nil {
				t.Errorf("lesson %s: scene %s refuses %q: %v", e.ID, words[0], strings.Join(words[1:], " "), err)
			}
			sc.Close()
		}
	}
}
