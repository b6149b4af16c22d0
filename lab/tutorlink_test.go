package lab

import (
	"strings"
	"testing"

	"natslab/lab/episode"
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
