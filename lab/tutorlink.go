package lab

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	tea "charm.land/bubbletea/v2"

	"natslab/assets"
	"natslab/broker/command"
	"natslab/lab/episode"
	"natslab/scenes"
)

// The curriculum in the lab. A Tutor (package episode) is bound to the
// lab's session: it hears every session event, adds the lesson verbs
// (lessons, lesson, next, prev, hint), and evaluates the open lesson on
// its own goroutine after commands, on server restarts and on a slow poll,
// so that a step ticks however the broker got there (the pane, a scene's
// keys, a real nats CLI in another terminal).
//
// The UI loop never waits for an evaluation. When the tutor says something
// changed, one goroutine (followTutor) reads the lesson's report, builds
// the lesson's scene if the lesson changed, and hands both to the UI loop.
// Nothing runs while nothing changes but the tutor's own one-second look.

// tutorLink is the lab's side of the tutor.
type tutorLink struct {
	tutor *episode.Tutor
	// checkLine lets the open lesson look before the command pane runs
	// its next waiting line (cmdPane.checkLine).
	checkLine func()
	cat       *episode.Catalog
	prog      *episode.Progress // nil without a store directory
	nodes     int
	kick      chan struct{}
	cancel    context.CancelFunc

	freshScene atomic.Bool // lesson reset: build the scene anew

	shown         *episode.Lesson // UI loop: the lesson the pane shows
	shownComplete bool            // UI loop: and whether it was complete
}

// lessonView is what the UI loop needs to draw a lesson: read off the loop.
type lessonView struct {
	lesson *episode.Lesson // nil: the sandbox
	ep     *episode.Episode
	report episode.Report
	next   string // once complete: what comes next
}

// startLessons loads the catalog and the learner's progress and binds a
// tutor to the session. A damaged progress file is moved aside by
// OpenProgress: the lab says so once and carries on.
func (m *Model) startLessons() {
	cat, err := episode.Load()
	if err != nil {
		m.later = append(m.later, "natslab: the lessons cannot be loaded: "+err.Error())
		return
	}
	var prog *episode.Progress
	if m.opts.StoreDir != "" {
		prog, err = episode.OpenProgress(m.opts.StoreDir)
		var damaged *episode.CorruptError
		if errors.As(err, &damaged) {
			m.later = append(m.later, "natslab: "+err.Error())
		} else if err != nil {
			m.later = append(m.later, "natslab: "+err.Error()+" (lesson progress will not be kept)")
			prog = nil
		}
	}
	t := &tutorLink{cat: cat, prog: prog, nodes: episode.Nodes(m.dep), kick: make(chan struct{}, 1)}
	t.tutor = episode.NewTutor(cat, episode.Env{Deployment: m.dep, Session: m.sess, Progress: prog, StartJob: func(ctx context.Context, line string) *command.Job { return m.cmd.StartBackground(ctx, line) }}, episode.ListOptions{})
	m.tutor = t
	m.OnEvent(t.tutor.Observe)
	// A command started is a learner's move: the scene a new step asks
	// for opens then (followTutor).
	m.OnEvent(func(e command.Event) {
		if e.Kind == command.JobStarted {
			t.poke()
		}
	})
	for _, v := range t.tutor.Verbs() {
		m.sess.AddVerb(m.wrapLessonVerb(v))
	}
	t.tutor.OnChange(t.poke)
	ctx, cancel := context.WithCancel(m.ctx)
	t.cancel = cancel
	t.checkLine = func() { t.tutor.CheckAfterLine(ctx) }
	go t.tutor.Watch(ctx)
	go m.followTutor(ctx)
	if prog != nil {
		if id := prog.Current(); id != "" {
			if _, ok := cat.Get(id); ok {
				m.later = append(m.later, wasInNote(id))
			}
		}
	}
}

// wasInNote tells a returning learner which lesson they left open.
func wasInNote(id string) string {
	return fmt.Sprintf("You were in lesson %s last time: lesson %s goes back to it.", id, id)
}

// poke asks followTutor to look; never blocks.
func (t *tutorLink) poke() {
	select {
	case t.kick <- struct{}{}:
	default:
	}
}

// wrapLessonVerb lets the pane follow what the tutor's verbs did: lesson
// reset builds the scene anew, as the lesson's state was.
func (m *Model) wrapLessonVerb(v command.Verb) command.Verb {
	run, t := v.Run, m.tutor
	if v.Name == "lesson" {
		v.Run = func(c *command.Call, args []string) error {
			err := run(c, args)
			if err == nil && len(args) == 1 && args[0] == "reset" {
				t.freshScene.Store(true)
				t.poke()
			}
			return err
		}
	}
	return v
}

// OpenLesson opens the lesson id before the screen starts (natslab
// --lesson ID): setup for Main. A failure is said in the command pane.
func OpenLesson(id string) func(*Model) {
	return func(m *Model) {
		if m.tutor == nil {
			m.later = append(m.later, "natslab: lessons are not available in this lab")
			return
		}
		l, err := m.tutor.tutor.Open(m.ctx, id)
		if err != nil {
			m.later = append(m.later, "natslab: "+err.Error())
			return
		}
		ep := l.Episode()
		// Opened again (natslab --lesson, a workshop attendee's return),
		// the lesson left open needs no typing to go back to.
		m.later = slices.DeleteFunc(m.later, func(s string) bool { return s == wasInNote(ep.ID) })
		m.later = append(m.later, fmt.Sprintf("Lesson %d · %s: %s.", ep.Number, ep.ID, ep.Title),
			"Its steps are in the lesson pane (lesson lists them too): hint helps, lesson leave goes back to the sandbox.")
	}
}

// Tutor is the lab's tutor, or nil when lessons are off (Options.Lessons).
func (m *Model) Tutor() *episode.Tutor {
	if m.tutor == nil {
		return nil
	}
	return m.tutor.tutor
}

// followTutor turns the tutor's changes into lesson-pane updates and scene
// switches, one at a time and in order: a lesson's scene, and the scenes
// its steps ask for as the learner gets to them. The scene open in the
// sandbox when a lesson begins comes back when the learner leaves.
func (m *Model) followTutor(ctx context.Context) {
	t := m.tutor
	var shown *episode.Lesson // the lesson whose scene is open
	shownScene := ""          // and the scene it asked for
	seenStep := -1            // the step to do at the last look
	sandboxScene := ""
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.kick:
		}
		l, opening := t.tutor.LessonOrOpening()
		if opening {
			// One lesson is replacing another: the new one's scene comes
			// with the look its opening kicks.
			continue
		}
		v := t.view(l)
		fresh := t.freshScene.Swap(false) && l != nil
		name := ""
		if l != nil {
			name = l.Episode().SceneAt(v.report.Current)
		}
		// A scene the learner opened by hand stays until the lesson asks
		// for another: a step that moves on to another scene. That scene
		// waits for the next look after the step is ticked (most often the
		// learner's first command in the new step), so that the scene of
		// the step just done shows how it ended until then.
		moved := l != nil && l == shown && v.report.Current != seenStep
		if l != nil {
			seenStep = v.report.Current
		}
		if l == shown && !fresh && (l == nil || name == shownScene || moved) {
			if !m.call(func(m *Model) tea.Cmd { m.drawLesson(v); return nil }) {
				return
			}
			continue
		}
		if shown == nil {
			// Leaving the sandbox: remember its scene. call (not post)
			// above keeps this in step with what the UI loop shows.
			sandboxScene = ""
			if sc := m.activeScene(); sc != nil {
				sandboxScene = sc.Name()
			}
		}
		if l == nil {
			name = sandboxScene
		}
		var try []string
		if l != nil {
			try = l.Episode().StreamTry()
		}
		sc, problem := m.buildScene(name, try)
		shown, shownScene = l, name
		if !m.call(func(m *Model) tea.Cmd {
			m.drawLesson(v)
			if problem != "" {
				m.Note(problem)
			}
			return m.openScene(sc)
		}) {
			if sc != nil {
				sc.Close()
			}
			return
		}
	}
}

// buildScene builds the scene a lesson names, off the UI loop (it connects
// to the broker). The name may carry one control to run once it is open
// ("contrast mode jetstream"). A scene this build does not have yet is no
// scene: the pane shows its introduction. try is what the lesson says
// makes its stream (scenes.Env's Try).
func (m *Model) buildScene(spec string, try []string) (scenes.Scene, string) {
	words := strings.Fields(spec)
	if len(words) == 0 {
		return nil, ""
	}
	name := words[0]
	f, ok := m.sceneLookup(name)
	if !ok {
		return nil, ""
	}
	sc, err := f.New(scenes.Env{Deployment: m.dep, Clock: m.clock, Try: try})
	if err != nil {
		return nil, fmt.Sprintf("natslab: cannot open scene %s: %v", name, err)
	}
	if len(words) > 1 {
		if _, err := sc.Do(words[1], words[2:]); err != nil {
			return sc, fmt.Sprintf("natslab: scene %s: %v", name, err)
		}
	}
	return sc, ""
}

// view reads what the pane shows of l (nil: the sandbox).
func (t *tutorLink) view(l *episode.Lesson) lessonView {
	if l == nil {
		return lessonView{}
	}
	v := lessonView{lesson: l, ep: l.Episode(), report: l.Report()}
	if v.report.Complete {
		v.next = t.nextAfter(v.ep)
	}
	return v
}

// nextAfter says what comes after ep, as `next` would open it, and why
// `next` passes over a lesson on the way: a learner who sees lesson 17
// follow 15 would otherwise look for what went wrong with 16.
func (t *tutorLink) nextAfter(ep *episode.Episode) string {
	var passed string
	for i := t.cat.Index(ep.ID) + 1; i < len(t.cat.Episodes); i++ {
		e := t.cat.Episodes[i]
		if t.prog.StatusOf(e, t.nodes) == episode.Unavailable {
			if passed == "" {
				if e.Needs.Single {
					passed = fmt.Sprintf(" Lesson %d · %s runs on the single server (natslab without --cluster).", e.Number, e.ID)
				} else {
					passed = fmt.Sprintf(" Lesson %d · %s needs natslab %s.", e.Number, e.ID, e.Fix())
				}
			}
			continue
		}
		return fmt.Sprintf("Type next for lesson %d · %s: %s.", e.Number, e.ID, e.Title) + passed
	}
	return "That was the last lesson. lessons lists them all; lesson leave goes back to the sandbox." + passed
}

// drawLesson draws v in the lesson pane and the status bar. UI loop.
func (m *Model) drawLesson(v lessonView) {
	t := m.tutor
	if v.lesson == nil {
		t.shown = nil
		m.setLessonText(welcomeLabel, assets.Welcome)
		m.lesson.SetSteps(nil, "")
		m.status.SetLesson("")
		return
	}
	r := v.report
	if v.lesson != t.shown {
		t.shown, t.shownComplete = v.lesson, r.Complete
		m.setLessonText(fmt.Sprintf("lesson %d · %s", v.ep.Number, v.ep.ID), v.ep.Text)
		m.ShowLesson(true) // a lesson just opened: its pane belongs on screen
	}
	if r.Complete && !t.shownComplete {
		// Said where the learner's eyes are, once, as it happens.
		m.Note(fmt.Sprintf("✓ Lesson %d · %s is complete: all %d steps done. %s", v.ep.Number, v.ep.ID, len(r.Steps), v.next))
	}
	t.shownComplete = r.Complete
	steps := make([]Step, len(r.Steps))
	for i, st := range r.Steps {
		steps[i] = Step{Text: st.Title, Done: st.Done, Current: i == r.Current}
		if i == r.Current {
			steps[i].Try = v.ep.Steps[i].Try
			steps[i].Why = st.Why
			for _, h := range st.Hints {
				steps[i].Hints = append(steps[i].Hints, strings.Join(strings.Fields(h), " "))
			}
			steps[i].Stages = st.Stages
		}
	}
	m.lesson.SetSteps(steps, v.next)
	mark := ""
	if r.Complete {
		mark = "✓ "
	}
	m.status.SetLesson(fmt.Sprintf("%s %s%d/%d", v.ep.ID, mark, r.Done, len(r.Steps)))
}

// stopLessons ends the tutor's goroutines and releases the open lesson's
// connection (the server stays where it is: the deployment is the caller's).
func (m *Model) stopLessons() {
	if m.tutor == nil {
		return
	}
	m.tutor.cancel()
	if l := m.tutor.tutor.Lesson(); l != nil {
		l.Close()
	}
}
