package episode

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestProgressPersists(t *testing.T) {
	dir := t.TempDir()
	p, err := OpenProgress(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st := p.StatusOf(mustGet(t, "hello"), 1); st != New {
		t.Fatalf("fresh store: status %v, want new", st)
	}
	if err := p.Update("hello", func(e *EpisodeProgress) { e.StepsDone, e.Done = 3, true }); err != nil {
		t.Fatal(err)
	}
	if err := p.Update("subjects", func(e *EpisodeProgress) { e.StepsDone = 1 }); err != nil {
		t.Fatal(err)
	}
	if err := p.SetCurrent("subjects"); err != nil {
		t.Fatal(err)
	}
	q, err := OpenProgress(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st := q.StatusOf(mustGet(t, "hello"), 1); st != Done {
		t.Errorf("hello: %v, want done", st)
	}
	if st := q.StatusOf(mustGet(t, "subjects"), 1); st != InProgress {
		t.Errorf("subjects: %v, want in progress", st)
	}
	if q.Current() != "subjects" || q.Get("subjects").StepsDone != 1 {
		t.Errorf("reopened: current %q, steps %d", q.Current(), q.Get("subjects").StepsDone)
	}
	if st := q.StatusOf(mustGet(t, "replicas"), 1); st != Unavailable {
		t.Errorf("replicas on one server: %v, want unavailable", st)
	}
	if st := q.StatusOf(mustGet(t, "replicas"), 3); st != New {
		t.Errorf("replicas on a cluster: %v, want new", st)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, "*.tmp"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}
}

// Progress kept under a lesson's former ID (the capstone was "sandbox")
// carries over to its ID now.
func TestProgressOfARenamedLessonCarriesOver(t *testing.T) {
	dir := t.TempDir()
	old := `{"version": 1, "current": "sandbox", "episodes": {"sandbox": {"steps_done": 4}}}`
	if err := os.WriteFile(filepath.Join(dir, ProgressFile), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := OpenProgress(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p.Current() != "capstone" || p.Get("capstone").StepsDone != 4 {
		t.Errorf("current %q, capstone's steps done %d; want capstone and 4", p.Current(), p.Get("capstone").StepsDone)
	}
	if st := p.StatusOf(mustGet(t, "capstone"), 1); st != InProgress {
		t.Errorf("capstone: %v, want in progress", st)
	}
}

// A damaged progress file is moved aside, never lost, with one clear line.
func TestCorruptProgressIsMovedAside(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ProgressFile)
	garbage := []byte("{\"version\": 1, \"episodes\": {\"hello\": ")
	if err := os.WriteFile(path, garbage, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := OpenProgress(dir)
	var ce *CorruptError
	if !errors.As(err, &ce) {
		t.Fatalf("want a CorruptError, got %v", err)
	}
	if p == nil || p.Get("hello").Started() {
		t.Fatal("after a damaged file, progress starts empty and usable")
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || !strings.Contains(msg, path) || !strings.Contains(msg, ce.MovedTo) {
		t.Errorf("want one line naming both files, got %q", msg)
	}
	kept, err := os.ReadFile(ce.MovedTo)
	if err != nil || !bytes.Equal(kept, garbage) {
		t.Errorf("the damaged file was not kept as it was: %v", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the damaged file should have moved: %v", err)
	}
	if err := p.Update("hello", func(e *EpisodeProgress) { e.StepsDone = 1 }); err != nil {
		t.Fatal(err)
	}
	if q, err := OpenProgress(dir); err != nil || q.Get("hello").StepsDone != 1 {
		t.Errorf("new progress after the damage: %v", err)
	}
}

// A headless run records its progress; natslab lessons shows it.
func TestRunRecordsProgress(t *testing.T) {
	srv := newServer(t)
	p, err := OpenProgress(srv.StoreDir())
	if err != nil {
		t.Fatal(err)
	}
	rep, out := runLesson(t, srv, p, "hello", "sub greet &\npub greet hi\n")
	if rep.Complete || rep.Done != 2 {
		t.Fatalf("want 2 of 3 steps:\n%s", out)
	}
	rep, out = runLesson(t, srv, p, "first-stream", solutions(t)["first-stream"])
	if !rep.Complete {
		t.Fatalf("first-stream:\n%s", out)
	}
	q, err := OpenProgress(srv.StoreDir())
	if err != nil {
		t.Fatal(err)
	}
	var list bytes.Buffer
	WriteList(&list, catalog(), q, ListOptions{})
	for _, want := range []string{
		" 1  hello             in progress 2/3    Hello NATS",
		" 6  first-stream      done               Persist messages with JetStream",
		" 2  subjects          new                Subjects and wildcards",
		"16  replicas          needs --cluster 3  A three-node cluster",
		fmt.Sprintf("1 of %d done.", len(catalog().Episodes)),
	} {
		if !strings.Contains(list.String(), want) {
			t.Errorf("lessons list lacks %q:\n%s", want, list.String())
		}
	}
	for i, line := range strings.Split(list.String(), "\n") {
		if n := len([]rune(line)); n > 80 {
			t.Errorf("list line %d is %d wide: %q", i+1, n, line)
		}
	}
}

func mustGet(t *testing.T, id string) *Episode {
	t.Helper()
	e, ok := catalog().Get(id)
	if !ok {
		t.Fatalf("no episode %s", id)
	}
	return e
}

// A lesson finished once and then started over is listed as done, with
// where the new round is: the mark is kept, and the list does not claim
// the lesson's steps are done now.
func TestDoneLessonStartedOverShowsTheNewRound(t *testing.T) {
	p, err := OpenProgress(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	hello := mustGet(t, "hello")
	if err := p.Update("hello", func(e *EpisodeProgress) { e.StepsDone, e.Done = len(hello.Steps), true }); err != nil {
		t.Fatal(err)
	}
	if got := StatusText(p.StatusOf(hello, 1), hello, p, ListOptions{}); got != "done" {
		t.Errorf("finished: %q, want done", got)
	}
	if err := p.Update("hello", func(e *EpisodeProgress) { e.StepsDone = 0 }); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("done, again 0/%d", len(hello.Steps))
	if got := StatusText(p.StatusOf(hello, 1), hello, p, ListOptions{}); got != want {
		t.Errorf("started over: %q, want %q", got, want)
	}
	var list bytes.Buffer
	WriteList(&list, catalog(), p, ListOptions{})
	if !regexp.MustCompile(`hello +`+want+` +Hello NATS`).MatchString(list.String()) || !strings.Contains(list.String(), "\n1 of ") {
		t.Errorf("the list:\n%s", list.String())
	}
}
