package episode

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"natslab/broker/brokertest"
	"natslab/broker/command"
	"natslab/broker/realcli"
	"natslab/broker/text"
)

// The curriculum's episodes, in order, with their slugs.
var curriculum = []string{
	"hello", "subjects", "request-reply", "queue-groups", "offline-client",
	"first-stream", "stream-log", "limits", "dedupe", "restart",
	"durable-consumer", "ack-redelivery", "two-consumers", "worker-pool",
	"retention", "replicas", "kv", "troubleshooting", "capstone",
	"push-pull", "durable-ephemeral", "deliver-policies", "max-ack-pending", "exactly-once",
	"permissions", "accounts", "subject-mapping",
	"republish", "mirrors-sources", "leaf-node", "object-store", "services",
}

// numbered are the episodes whose numbers leave room for parts to come.
var numbered = map[string]int{"permissions": 25, "accounts": 26, "subject-mapping": 27, "republish": 28, "mirrors-sources": 29, "leaf-node": 30, "object-store": 31, "services": 32}

func TestCatalogHasTheCurriculum(t *testing.T) {
	c := catalog()
	if got := strings.Join(c.IDs(), " "); got != strings.Join(curriculum, " ") {
		t.Fatalf("episodes:\n got %s\nwant %s", got, strings.Join(curriculum, " "))
	}
	for i, e := range c.Episodes {
		want, ok := numbered[e.ID]
		if !ok {
			want = i + 1
		}
		if e.Number != want {
			t.Errorf("%s is number %d, want %d", e.ID, e.Number, want)
		}
		if e.Part == "" || e.Summary == "" {
			t.Errorf("%s needs a part and a summary", e.ID)
		}
		if !strings.HasPrefix(e.Text, "# "+e.Title+"\n") {
			t.Errorf("%s.md should start with its title, # %s", e.ID, e.Title)
		}
	}
	if e, _ := c.Get("replicas"); e.Needs.Cluster != 3 {
		t.Errorf("replicas needs a three-node cluster")
	}
}

// sceneControls are the scene controls lessons suggest; lab's tests check
// they exist when the lesson's scene is open.
var sceneControls = map[string]bool{"offline": true, "online": true}

// Every command a step suggests parses in the lab's command language (or
// the real CLI's, which needs the lab's listener).
func TestEverySuggestedCommandParses(t *testing.T) {
	s := command.NewSession(brokertest.Start(t))
	defer s.Close()
	tutor := NewTutor(catalog(), Env{Deployment: s.Deployment(), Session: s}, ListOptions{})
	for _, v := range tutor.Verbs() {
		s.AddVerb(v)
	}
	for _, e := range catalog().Episodes {
		lines := e.Start.Setup
		for _, st := range e.Steps {
			lines = append(lines, st.Try...)
		}
		for _, line := range lines {
			line, _ = command.SplitBackground(line)
			if err := s.Check(line); err != nil {
				words, _ := command.SplitWords(line)
				if len(words) > 0 && words[0] == "node" {
					t.Logf("%s: %q waits for the cluster's node verbs: %v", e.ID, line, err)
					continue
				}
				if len(words) > 0 && e.Scene != "" && sceneControls[words[0]] {
					continue // a control of the lesson's scene: the lab adds it when the scene opens
				}
				if e.Needs.Listener && realParses(words) {
					continue // a flag the lab's grammar leaves to the real CLI, which runs the line
				}
				t.Errorf("%s: %q does not parse: %v", e.ID, line, err)
			}
		}
	}
}

// An episode is marked local_files exactly when its solution runs a
// command that a workshop's lab refuses for touching the instructor's
// files (object put, object get): the workshop offers only the others.
func TestLocalFilesMarksTheLessonsAWorkshopRefuses(t *testing.T) {
	s := command.NewSession(brokertest.Start(t), command.WithNoLocalFiles())
	defer s.Close()
	sol := solutions(t)
	for _, e := range catalog().Episodes {
		var refused []string
		for _, line := range strings.Split(sol[e.ID], "\n") {
			line, _ = command.SplitBackground(line)
			if err := s.Check(line); err != nil && strings.Contains(err.Error(), "reads and writes no files") {
				refused = append(refused, line)
			}
		}
		if sol[e.ID] == "" {
			t.Errorf("%s has no solution", e.ID)
		}
		if e.Needs.LocalFiles != (len(refused) > 0) {
			t.Errorf("%s: needs local_files %v, and a workshop refuses %q of its solution", e.ID, e.Needs.LocalFiles, refused)
		}
	}
}

func TestUnknownLessonSuggests(t *testing.T) {
	c := catalog()
	if err := c.Unknown("first-strem"); !strings.Contains(err.Error(), "did you mean first-stream?") {
		t.Errorf("got %v", err)
	}
	if err := c.Unknown("zzzzzzzz"); !strings.Contains(err.Error(), "hello, subjects") {
		t.Errorf("got %v", err)
	}
	// A number past the list is no misspelt name: the numbers are said.
	if err, want := c.Unknown("99"), fmt.Sprintf("there is no lesson 99: the lessons are numbered 1 to %d", len(c.Episodes)); err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

// lesson reste is a typo of lesson reset, not of a lesson's ID.
func TestLessonVerbWordsAreSuggested(t *testing.T) {
	l := newLab(t, newServer(t))
	l.must("lesson hello")
	for in, want := range map[string]string{
		"reste":      `there is no lesson "reste": did you mean lesson reset?`,
		"leav":       `there is no lesson "leav": did you mean lesson leave?`,
		"hellp":      `there is no lesson "hellp": did you mean hello?`,
		"first-strm": `did you mean first-stream?`,
	} {
		if out := l.run("lesson " + in); !strings.Contains(out, want) {
			t.Errorf("lesson %s: want %q, got:\n%s", in, want, out)
		}
	}
	if r := l.report(); r.ID != "hello" {
		t.Errorf("a typo left lesson hello: now in %s", r.ID)
	}
}

// Content mistakes are caught when the catalog loads, with the file named.
func TestLoadRejectsBrokenEpisodes(t *testing.T) {
	good := "id: x\ntitle: X\nsteps:\n  - title: T\n    try: [pub a b]\n    hint: h\n    check:\n      - jetstream: true\n"
	cases := map[string]struct{ yaml, want string }{
		"misspelt check": {strings.Replace(good, "jetstream: true", "jetsream: true", 1), "field jetsream not found"},
		"no check":       {strings.Replace(good, "    check:\n      - jetstream: true\n", "", 1), "has no check"},
		"bad number":     {strings.Replace(good, "jetstream: true", "stream: {name: S, messages: lots}", 1), "neither a number nor a duration"},
		"empty check":    {strings.Replace(good, "jetstream: true", "stream: {}", 1), "stream needs a name"},
		"id mismatch":    {strings.Replace(good, "id: x", "id: y", 1), "file name says"},
	}
	for name, tc := range cases {
		fsys := fstest.MapFS{"01-x.yaml": {Data: []byte(tc.yaml)}, "01-x.md": {Data: []byte("# X\n")}}
		_, err := LoadFS(fsys)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "01-x.yaml") {
			t.Errorf("%s: got %v, want an error naming 01-x.yaml with %q", name, err, tc.want)
		}
	}
	fsys := fstest.MapFS{"01-x.yaml": {Data: []byte(good)}, "01-x.md": {Data: []byte("# X\n")}}
	if _, err := LoadFS(fsys); err != nil {
		t.Fatalf("the good episode: %v", err)
	}
}

func TestCmp(t *testing.T) {
	for _, tc := range []struct {
		s    string
		v    int64
		ok   bool
		want string
	}{
		{"3", 3, true, "3"}, {"3", 4, false, "3"}, {">=3", 4, true, "at least" + text.NoBreak + "3"},
		{"<=10s", 3e9, true, "at most" + text.NoBreak + "10s"}, {"<=10s", 11e9, false, "at most" + text.NoBreak + "10s"},
		{">0", 0, false, "more than" + text.NoBreak + "0"}, {"<2", 1, true, "fewer than" + text.NoBreak + "2"},
	} {
		c, err := parseCmp(tc.s)
		if err != nil {
			t.Fatal(err)
		}
		if c.Holds(tc.v) != tc.ok || c.Want() != tc.want {
			t.Errorf("%s on %d: holds %v, want %q; got %v, %q", tc.s, tc.v, tc.ok, tc.want, c.Holds(tc.v), c.Want())
		}
	}
	if !(Cmp{}).Holds(42) {
		t.Error("an unset comparison accepts anything")
	}
}

// realParses reports whether the real CLI's grammar reads words as one of
// its commands with flags it knows.
func realParses(words []string) bool {
	l := realcli.Parse(words)
	if !l.Leaf {
		return false
	}
	for _, w := range words {
		if name, ok := strings.CutPrefix(w, "--"); ok {
			name, _, _ = strings.Cut(name, "=")
			if _, known := l.Flags[name]; !known {
				return false
			}
		}
	}
	return true
}

// natslab lessons numbers the lessons; a learner reading it may type the
// number instead of the ID.
func TestGetTakesTheListedNumber(t *testing.T) {
	c := catalog()
	for _, tc := range []struct{ in, want string }{
		{"1", c.Episodes[0].ID},
		{"26", c.Episodes[25].ID},
		{fmt.Sprint(len(c.Episodes)), c.Episodes[len(c.Episodes)-1].ID},
		{"hello", "hello"},
	} {
		if e, ok := c.Get(tc.in); !ok || e.ID != tc.want {
			t.Errorf("Get(%q) = %v, %v; want %s", tc.in, e, ok, tc.want)
		}
	}
	for _, in := range []string{"0", "-1", "01", "+1", fmt.Sprint(len(c.Episodes) + 1), ""} {
		if e, ok := c.Get(in); ok {
			t.Errorf("Get(%q) found %s; a number outside the list, or written otherwise than the list shows it, is no lesson", in, e.ID)
		}
	}
}

// A learner reads the lesson text, not the step's list: every command a
// step suggests is in the text too, so that typing what the text shows
// completes the step. (A line with "…" stands for one the learner
// completes from the screen: its text up to the "…" is enough. A job's
// number depends on what else runs, so the text's "stop N" stands for
// any "stop 1".)
func TestLessonTextShowsEveryStepsCommands(t *testing.T) {
	// Lines a lesson leaves out of its text on purpose, and why.
	hidden := map[string]string{
		"troubleshooting: stream info AUDIT": "the learner finds what AUDIT captures: the text lists stream info S among the useful questions, and naming the stream would point at the fault",
	}
	used := map[string]bool{}
	for _, e := range catalog().Episodes {
		text := normalHint(e.Text)
		for _, st := range e.Steps {
			for _, line := range st.Try {
				line, _ = command.SplitBackground(line)
				line = normalHint(line)
				if head, _, ok := strings.Cut(line, "…"); ok {
					line = head
				}
				if strings.Contains(text, line) {
					continue
				}
				if _, ok := hidden[e.ID+": "+line]; ok {
					used[e.ID+": "+line] = true
					continue
				}
				t.Errorf("%s, step %q: the lesson text does not show %q", e.ID, st.Title, line)
			}
		}
	}
	for line := range hidden {
		if !used[line] {
			t.Errorf("%s: no step suggests it any more, or the text shows it: drop it from the hidden lines", line)
		}
	}
}

// A step's scene holds from that step on, until a later one names
// another; before any step names one, and for a lesson whose steps name
// none, the lesson's own. Lesson 19 asks for three.
func TestSceneAtFollowsTheSteps(t *testing.T) {
	e, ok := catalog().Get("capstone")
	if !ok {
		t.Fatal("no lesson capstone")
	}
	want := []string{"cursor", "cursor", "kv-watch", "request-reply watch shop.price.widget", "request-reply watch shop.price.widget", "request-reply watch shop.price.widget"}
	for i, w := range want {
		if got := e.SceneAt(i); got != w {
			t.Errorf("step %d: scene %q, want %q", i+1, got, w)
		}
	}
	hello, _ := catalog().Get("hello")
	if got := hello.SceneAt(1); got != hello.Scene || got == "" {
		t.Errorf("hello's step 2 shows %q, want the lesson's scene %q", got, hello.Scene)
	}
}

// The lab takes the mouse (clicks and the wheel), so a terminal selects
// text only with shift held: a lesson that asks the learner to copy
// something from the screen says so where it asks, in the text and in
// the hints.
func TestCopyingFromTheScreenSaysHow(t *testing.T) {
	asks := regexp.MustCompile(`(?i)\bcopy (the|it|its)\b.{0,120}`)
	for _, e := range catalog().Episodes {
		texts := []string{e.Text}
		for _, st := range e.Steps {
			texts = append(texts, strings.Join(st.Hints, " "))
		}
		for _, text := range texts {
			for _, m := range asks.FindAllString(collapse(text), -1) {
				if !strings.Contains(m, "shift") {
					t.Errorf("%s: %q asks to copy from the screen without saying to hold shift", e.ID, m)
				}
			}
		}
	}
}

// What a lesson offers a scene to make its stream (StreamTry) stores what
// it publishes: retention's first pub after its first stream add is to a
// subject no stream of its captures yet.
func TestStreamTryStoresWhatItPublishes(t *testing.T) {
	for _, ep := range catalog().Episodes {
		try := ep.StreamTry()
		for _, line := range try {
			if !strings.HasPrefix(line, "pub ") {
				continue
			}
			if !slices.ContainsFunc(try, func(add string) bool { return strings.HasPrefix(add, "stream add ") && captures(add, line) }) {
				t.Errorf("lesson %s offers %q, which none of its streams stores: %q", ep.ID, line, try)
			}
		}
	}
}
