package reqreply

import (
	"strings"
	"testing"

	"natslab/scenes"
	"natslab/scenes/kit/kittest"
)

// The episodes that show this scene judge the same with it open: its taps
// are real subscriptions, but never a learner's, and they never change
// what the server answers. Each solution still completes its lesson, each
// wrong one still fails where it says, at a script's speed (faster than
// anyone types). The lessons restart the server (their own store area):
// the scene rides through it.
func TestLessonsJudgeTheSameWithTheSceneOpen(t *testing.T) {
	kittest.JudgeWithScene(t, "request-reply", []kittest.Lesson{
		{ID: "request-reply", File: "solutions/request-reply.txt"},
		{ID: "request-reply", File: "wrong/request-reply-subject.txt"},
	}, sceneCameThrough)
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
