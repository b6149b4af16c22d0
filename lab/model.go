// Package lab is natslab's screen: a Bubble Tea program around the broker
// and the nats command language. The root Model lays out small components
// (scene pane, lesson pane, command pane, server-log pane, status bar), each
// with SetSize and a cached drawing, and routes keys, output and broker
// events to them.
//
// It owns the screen: the panes (Component), their keys and styles, the scene
// and lesson hosting. It may import broker/..., scenes/..., lab/episode,
// lab/prose and lab/policy; lab/demo and lab/workshop build on it and it never
// imports them.
package lab

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"natslab/broker"
	"natslab/broker/command"
	"natslab/broker/text"
	"natslab/lab/policy"
	"natslab/scenes"
)

// Options configure the lab.
type Options struct {
	// Deployment is what the lab runs commands against.
	Deployment broker.Deployment
	// StoreDir is where the command history is kept, shown in the status bar.
	StoreDir string
	// Clock drives command timestamps and scenes; nil is the wall clock.
	Clock scenes.Clock
	// Context bounds every job; nil is context.Background.
	Context context.Context
	// SessionOptions are passed on to command.NewSession (an observer for
	// lesson checks, a timeout).
	SessionOptions []command.Option
	// ScrollbackLines and HistoryLines bound the pane; 0 for the defaults.
	ScrollbackLines int
	HistoryLines    int
	// Lessons brings in the curriculum (package episode): the lesson verbs,
	// the lesson pane's checklist, each lesson's scene. Progress is kept
	// in StoreDir. Main turns it on.
	Lessons bool
	// Look is how the terminal shows the lab (colour or not): the program's
	// colour profile (see Run) and the scenes' palette follow it.
	Look policy.Look
	// Guest is, for a lab served to someone else's terminal (a workshop
	// attendee over SSH), their name: the greeting and the status bar then
	// speak of their lab, not of this machine's listener, flags and paths.
	Guest string
}

// Model is the lab's root model.
type Model struct {
	opts  Options
	dep   broker.Deployment
	clock scenes.Clock
	ctx   context.Context
	sess  *command.Session
	st    *Styles
	keys  rootKeys
	help  help.Model

	sb      *Scrollback
	cmd     *cmdPane
	scene   *scenePane
	lesson  *lessonPane
	log     *logPane
	status  *statusBar
	stats   *statsSource
	storage *broker.TroubleWatch // storage trouble in the server's log (storage.go)

	w, h       int
	lay        layout
	showLesson bool
	showLog    bool
	showHelp   bool
	sceneFocus bool // the scene pane has the keys (see scenekeys.go)
	quitting   bool
	lastCtrlC  time.Time
	cmdUses    int // the command pane's rows for the last layout (onScreen.cmd)
	cmdFilled  int // the most rows its content has filled (up to cmdRows): clearing it gives none back

	frameScheduled bool
	sceneFwdAt     time.Time // when the scene last got a message
	logGen         int
	fetching       bool
	fetchAgain     bool

	tutor   *tutorLink // nil without Options.Lessons
	later   []string   // notes for after the greeting (setup runs before it)
	greeted bool

	posts     chan func(*Model) tea.Cmd
	done      chan struct{}
	closeOnce sync.Once

	activeMu sync.Mutex
	active   scenes.Scene // the open scene, for verbs on job goroutines

	observersMu sync.Mutex
	observers   []func(command.Event)

	// The scene registry, replaceable in tests so that a test scene never
	// joins the global one.
	sceneList   func() []scenes.Factory
	sceneLookup func(string) (scenes.Factory, bool)
}

// MinSize is the smallest window the lab draws in; in a smaller one it
// asks for a larger one.
func MinSize() (width, height int) { return minWidth, minHeight }

// New builds the lab around a deployment. Close releases it.
func New(opts Options) *Model {
	m := &Model{
		opts:        opts,
		dep:         opts.Deployment,
		clock:       opts.Clock,
		ctx:         opts.Context,
		st:          DefaultStyles(),
		keys:        defaultRootKeys(),
		help:        help.New(),
		showLesson:  true,
		posts:       make(chan func(*Model) tea.Cmd, 16),
		done:        make(chan struct{}),
		sceneList:   scenes.List,
		sceneLookup: scenes.Lookup,
	}
	if m.clock == nil {
		m.clock = scenes.RealClock{}
	}
	if m.ctx == nil {
		m.ctx = context.Background()
	}
	m.help.Styles = m.st.Help
	sopts := []command.Option{command.WithClock(m.clock.Now), command.WithConfirm(m.ask), command.WithObserver(m.observe)}
	if opts.StoreDir != "" {
		sopts = append(sopts, command.WithCLIHome(command.CLIHome(opts.StoreDir)))
	}
	if opts.Guest != "" {
		// An attendee cannot restart the lab the workshop serves them.
		sopts = append(sopts, command.WithListenerAdvice("ask your instructor to start the workshop with --attendee-urls"),
			command.WithClusterAdvice("a workshop's labs run one server each (natslab --cluster 3 on a machine of your own runs the cluster)"))
	}
	sopts = append(sopts, opts.SessionOptions...)
	m.sess = command.NewSession(m.dep, sopts...)
	m.addSceneVerb()
	if opts.Lessons {
		m.startLessons()
	}

	histPath := ""
	if opts.StoreDir != "" {
		histPath = filepath.Join(opts.StoreDir, historyFile)
	}
	m.sb = NewScrollback(opts.ScrollbackLines)
	m.cmd = newCmdPane(m.ctx, m.st, m.sess, m.sb, loadHistory(histPath, opts.HistoryLines))
	if m.tutor != nil {
		m.cmd.checkLine = m.tutor.checkLine
	}
	m.cmd.quit = m.quit
	m.scene = newScenePane(m.st, opts.Look.SceneStyles())
	m.scene.list = func() []scenes.Factory { return m.sceneList() } // one registry, replaceable in tests
	m.lesson = newLessonPane(m.st)
	m.log = newLogPane(m.st, m.dep.Log())
	m.stats = &statsSource{dep: m.dep, store: opts.StoreDir}
	if lb := m.dep.Log(); lb != nil {
		m.storage = broker.WatchStorage(lb, storageRestart)
	}
	m.status = &statusBar{st: m.st, guest: opts.Guest}
	if opts.Guest != "" {
		m.stats.store = "" // the host's paths mean nothing to a guest
	}
	if m.dep.Own() {
		// In-process and cheap: the first frame already shows the facts.
		m.status.SetFacts(m.stats.read())
	} else {
		a := m.dep.Access()
		m.status.SetFacts(facts{url: a.URL(), needed: a.Needed(), external: true, store: opts.StoreDir, conns: -1, running: true})
	}
	return m
}

// greet says where the lab is, in the command pane, once: when the program
// starts, after the setup functions (a lesson opened by --lesson changes
// what there is to say), followed by their notes.
func (m *Model) greet() {
	if m.greeted {
		return
	}
	m.greeted = true
	defer func() {
		for _, n := range m.later {
			m.Note(n)
		}
		m.later = nil
	}()
	if srv := m.dep; srv.Own() { // the lab's own server: say what it runs and where
		js := "with JetStream"
		if !srv.JetStream() {
			js = "without JetStream (nats-server -js turns it on)"
		}
		a := srv.Access()
		where := "on " + a.Local
		switch {
		case m.opts.Guest != "":
			where = "for " + m.opts.Guest + " alone: your own lab in this workshop, kept when you leave"
		case a.Local == "":
			where = "in-process only (--listen none): real nats clients cannot connect"
		case len(a.Room) > 0:
			where = "on " + strings.Join(a.Room, " and ") + " for the room (" + a.Local + " on this machine)"
		}
		if a.Needs != "" && m.opts.Guest == "" {
			where += "; clients need " + a.Needs
		}
		m.Note("nats-server " + srv.Version() + " " + js + " " + where)
		if n := srv.Notice(); n != "" {
			m.Note(n)
		}
		if m.opts.Guest == "" {
			m.Note("store: " + displayPath(srv.StoreDir()))
		}
	} else {
		m.Note("natslab: connected to " + m.dep.Describe())
	}
	if a := m.dep.Access(); a.Local != "" && m.opts.Guest == "" { // a guest has no shell here to run it in
		flags := ""
		if f := a.Flags(); f != "" {
			flags = " " + f
		}
		m.Note("the real nats CLI works here too: nats --server " + a.Local + flags + " …")
	}
	m.Note("Type help for the commands (Tab completes), ? or F1 for the keys, quit to leave.")
	if m.tutor != nil && m.tutor.tutor.Lesson() == nil {
		m.Note("Guided lessons: lessons lists them, next opens the first one not done.")
	}
}

// Session is the lab's command session (to add verbs).
func (m *Model) Session() *command.Session { return m.sess }

// OnEvent adds f to the functions told of every session event (a job
// started or ended, a message a lab subscriber received): lesson checks
// listen here. f runs on the job's goroutine and must return quickly. Safe
// from any goroutine.
func (m *Model) OnEvent(f func(command.Event)) {
	m.observersMu.Lock()
	m.observers = append(m.observers, f)
	m.observersMu.Unlock()
}

func (m *Model) observe(e command.Event) {
	m.observersMu.Lock()
	fs := m.observers
	m.observersMu.Unlock()
	for _, f := range fs {
		f(e)
	}
}

// Note adds one of the lab's own remarks to the command pane. Safe from any
// goroutine.
func (m *Model) Note(text string) { m.sb.Append(kindNote, text) }

// Post runs fn on the UI loop, where the Set… methods may be called. It is
// safe from any goroutine and returns false once the lab has quit.
func (m *Model) Post(fn func(*Model)) bool {
	return m.post(func(m *Model) tea.Cmd { fn(m); return nil })
}

// SetLesson shows a lesson (markdown) in the lesson pane. UI loop only: use Post.
func (m *Model) SetLesson(title, markdown string) { m.setLessonText("lesson: "+title, markdown) }

// setLessonText puts a text in the lesson pane; the layout follows a new
// text, where it sizes the pane by its text. The tutor redraws the lesson
// after every command, mostly with the same text: that leaves the layout
// as it is.
func (m *Model) setLessonText(label, markdown string) {
	changed := markdown != m.lesson.markdown
	m.lesson.SetLesson(label, markdown)
	if changed && m.w > 0 {
		m.resize(m.w, m.h)
	}
}

// SetSteps shows a lesson's checklist; complete, once every step is done,
// says what comes next. UI loop only: use Post.
func (m *Model) SetSteps(steps []Step, complete string) { m.lesson.SetSteps(steps, complete) }

// ShowLesson opens or collapses the lesson pane. UI loop only: use Post.
func (m *Model) ShowLesson(show bool) {
	if show != m.showLesson {
		m.showLesson = show
		m.resize(m.w, m.h)
	}
}

func (m *Model) post(fn func(*Model) tea.Cmd) bool {
	select {
	case <-m.done:
		return false
	default:
	}
	select {
	case m.posts <- fn:
		return true
	case <-m.done:
		return false
	}
}

// call runs fn on the UI loop and waits until it has run.
func (m *Model) call(fn func(*Model) tea.Cmd) bool {
	ran := make(chan struct{})
	if !m.post(func(m *Model) tea.Cmd { defer close(ran); return fn(m) }) {
		return false
	}
	select {
	case <-ran:
		return true
	case <-m.done:
		return false
	}
}

// ask is the session's confirm hook: a job's goroutine blocks here while
// the pane shows the question and waits for y/N.
func (m *Model) ask(question string) bool {
	r := &confirmReq{question: question, reply: make(chan bool, 1)}
	if !m.post(func(m *Model) tea.Cmd { m.cmd.ask(r); return nil }) {
		return false
	}
	select {
	case yes := <-r.reply:
		return yes
	case <-m.done:
		return false
	}
}

// Close stops every job, closes the scene and releases connections. The
// deployment itself is the caller's.
func (m *Model) Close() {
	m.closeOnce.Do(func() {
		close(m.done)
		m.stopLessons()
		m.sess.Close()
		m.scene.Close()
		m.stats.close()
	})
}

// Messages of the lab's own.
type (
	outputMsg        struct{}
	postMsg          struct{ fn func(*Model) tea.Cmd }
	serverChangedMsg struct{}
	logMsg           struct{ gen int }
	frameMsg         struct{ t time.Time }
)

// Init starts the waiters: output, posts, server changes, stats.
func (m *Model) Init() tea.Cmd {
	m.greet()
	return tea.Batch(m.waitOutput(), m.waitPost(), m.waitServer(), m.fetchStats(), m.pollStats(), m.storageNotes())
}

// waitOutput wakes the UI when output arrived, at most once per frame.
func (m *Model) waitOutput() tea.Cmd {
	sb, done := m.sb, m.done
	return func() tea.Msg {
		select {
		case <-sb.wake:
		case <-done:
			return nil
		}
		if d := frame - time.Since(time.Unix(0, sb.lastFlush.Load())); d > 0 {
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-t.C:
			case <-done:
				return nil
			}
		}
		return outputMsg{}
	}
}

func (m *Model) waitPost() tea.Cmd {
	posts, done := m.posts, m.done
	return func() tea.Msg {
		select {
		case fn := <-posts:
			return postMsg{fn}
		case <-done:
			return nil
		}
	}
}

// waitServer wakes the UI when the embedded server starts, stops or
// switches JetStream.
func (m *Model) waitServer() tea.Cmd {
	if !m.dep.Own() {
		return nil
	}
	ch, done := m.dep.Changed(), m.done
	return func() tea.Msg {
		select {
		case <-ch:
			return serverChangedMsg{}
		case <-done:
			return nil
		}
	}
}

// waitLog wakes the UI when the server logs, while the log pane is shown.
func (m *Model) waitLog() tea.Cmd {
	logs := m.dep.Log()
	if logs == nil || !m.showLog {
		return nil
	}
	m.logGen++
	gen, ch, done := m.logGen, logs.Changed(), m.done
	return func() tea.Msg {
		select {
		case <-ch:
		case <-done:
			return nil
		}
		// A restart logs dozens of lines at once: draw them together.
		select {
		case <-time.After(50 * time.Millisecond):
		case <-done:
			return nil
		}
		return logMsg{gen}
	}
}

// fetchStats reads the status bar's facts off the loop; one read at a time.
func (m *Model) fetchStats() tea.Cmd {
	if m.fetching {
		m.fetchAgain = true
		return nil
	}
	m.fetching = true
	return m.stats.fetch()
}

func (m *Model) pollStats() tea.Cmd {
	return tea.Tick(statsPoll, func(time.Time) tea.Msg { return statsTickMsg{} })
}

// Update routes one message, then lets the welcome give the command pane
// the rows its output has come to fill (fitCommandPane): View only draws.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.route(msg)
	m.fitCommandPane()
	return m, cmd
}

// route routes one message.
func (m *Model) route(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
		return nil
	case tea.KeyPressMsg:
		return m.handleKey(msg)
	case tea.MouseWheelMsg:
		m.handleWheel(msg.Mouse())
		return nil
	case tea.MouseClickMsg:
		m.handleClick(msg.Mouse())
		return nil
	case tea.MouseMsg, tea.KeyReleaseMsg:
		return nil
	case tea.PasteMsg:
		// Several lines are several commands; a break inside quotes is a
		// space (see pastelines.go).
		return m.cmd.pasteLines(pastedLines(msg.Content))
	case pasteNextMsg:
		cmd, quit := m.cmd.runPasted()
		m.status.SetJobs(m.runningJobs())
		if quit {
			return m.quit()
		}
		return cmd
	case typedMsg:
		m.cmd.applyTyped()
		return nil
	case outputMsg:
		m.sb.lastFlush.Store(time.Now().UnixNano())
		return m.waitOutput()
	case jobDoneMsg:
		m.cmd.jobDone(msg.pj)
		m.status.SetJobs(m.runningJobs())
		return m.fetchStats()
	case completionMsg:
		m.cmd.applyCompletion(msg)
		return nil
	case postMsg:
		cmd := msg.fn(m)
		m.status.SetJobs(m.runningJobs())
		return tea.Batch(cmd, m.waitPost())
	case statsMsg:
		m.fetching = false
		msg.f.jobs = m.runningJobs()
		m.status.SetFacts(msg.f)
		if m.fetchAgain {
			m.fetchAgain = false
			return m.fetchStats()
		}
		return nil
	case statsTickMsg:
		return tea.Batch(m.fetchStats(), m.pollStats())
	case serverChangedMsg:
		m.log.Invalidate()
		return tea.Batch(m.fetchStats(), m.waitServer())
	case storageMsg:
		return m.storageNotes()
	case logMsg:
		if msg.gen != m.logGen || !m.showLog {
			return nil
		}
		m.log.Invalidate()
		return m.waitLog()
	case frameMsg:
		m.frameScheduled = false
		if time.Since(m.sceneFwdAt) < frame/2 {
			// The scene was just drawn for a message of its own (a scene
			// may run frames of its own): no need to draw it again yet.
			return m.maybeFrame()
		}
		return m.forwardToScene(msg)
	}
	// Anything else belongs to the scene (its own events and ticks).
	return m.forwardToScene(msg)
}

func (m *Model) forwardToScene(msg tea.Msg) tea.Cmd {
	if m.scene.scene == nil {
		return nil
	}
	m.sceneFwdAt = time.Now()
	cmd := m.scene.Update(msg)
	return tea.Batch(cmd, m.maybeFrame())
}

// maybeFrame schedules the next frame while the scene animates, unless
// the scene brings its own frames.
func (m *Model) maybeFrame() tea.Cmd {
	if m.frameScheduled || !m.scene.Animating() || m.scene.PacesItsFrames() {
		return nil
	}
	m.frameScheduled = true
	return tea.Tick(frame, func(t time.Time) tea.Msg { return frameMsg{t} })
}

func (m *Model) resize(w, h int) {
	m.w, m.h = w, h
	m.lay = computeLayout(w, h, m.onScreen())
	l := m.lay
	m.scene.SetSize(l.top.w, l.top.h)
	m.log.SetSize(l.top.w, l.top.h)
	m.lesson.SetSize(l.lesson.w, l.lesson.h)
	m.cmd.SetSize(l.cmd.w, l.cmd.h)
	m.status.SetSize(w)
	m.help.SetWidth(max(l.cmd.w-2, 10))
	if m.showHelp {
		m.cmd.help = m.helpLines()
	}
}

// onScreen is what the panes hold, for the layout.
func (m *Model) onScreen() onScreen {
	m.cmdUses = m.cmdRowsNow()
	return onScreen{
		lesson:  m.showLesson,
		scene:   m.scene.scene != nil || m.showLog,
		welcome: m.lesson.Welcome(),
		text:    m.lesson.TextLines,
		cmd:     m.cmdUses,
	}
}

// fitCommandPane lays the panes out again where the command pane's
// content has grown (or shrunk) since: the welcome gives the pane the
// rows it now uses (onScreen.cmd).
func (m *Model) fitCommandPane() {
	if m.w > 0 && m.showLesson && m.lesson.Welcome() && m.scene.scene == nil && !m.showLog && m.cmdRowsNow() != m.cmdUses {
		m.resize(m.w, m.h)
	}
}

// cmdRowsNow is the command pane's rows for the layout (onScreen.cmd):
// the most its content has filled, so that clearing it (ctrl+l) moves no
// pane, or all the key help takes while it shows.
func (m *Model) cmdRowsNow() int {
	m.cmdFilled = max(m.cmdFilled, m.cmd.uses(m.w))
	return max(m.cmdFilled, m.cmd.helpUses())
}

// handleKey: the open question first, then global keys, then the prompt.
func (m *Model) handleKey(k tea.KeyPressMsg) tea.Cmd {
	if len(m.cmd.confirms) > 0 {
		switch k.String() {
		case "y", "Y":
			m.cmd.answer(true)
		case "n", "N", "enter", "esc", "ctrl+c":
			m.cmd.answer(false)
		default:
			if typedText(k) {
				// A command typed over the question would vanish key by
				// key; say where the keys are going instead.
				m.cmd.hint = waitingQuestion
			}
		}
		return nil
	}
	if !typedText(k) {
		m.cmd.applyTyped() // what was typed before this key goes in first
	}
	if !key.Matches(k, m.cmd.keys.Complete, m.keys.Stop) && !m.cmd.cut {
		m.cmd.hint = ""
	}
	if m.sceneFocus {
		if cmd, done := m.sceneKey(k); done {
			return cmd
		}
	}
	switch {
	case key.Matches(k, m.keys.Stop):
		return m.ctrlC()
	case key.Matches(k, m.keys.Suspend):
		// A suspended lab is a stopped server: every client of it, the
		// real CLI in another terminal included, would hang, and where
		// no shell can resume it (a workshop's SSH session, a tmux pane
		// of its own) it would never come back.
		m.cmd.hint = "natslab does not suspend (its server would stop): quit leaves, progress kept"
	case key.Matches(k, m.keys.Help) && (k.String() != "?" || m.cmd.Empty()):
		m.toggleHelp()
	case key.Matches(k, m.keys.ToggleLesson):
		m.ShowLesson(!m.showLesson)
	case key.Matches(k, m.keys.SceneKeys):
		m.setSceneFocus(!m.sceneFocus)
	case key.Matches(k, m.keys.ToggleLog):
		m.showLog = !m.showLog
		m.resize(m.w, m.h) // the log wants the scene's width, not its introduction's
		m.log.Invalidate()
		m.scene.Invalidate()
		return m.waitLog()
	case key.Matches(k, m.keys.Escape):
		if m.showHelp {
			m.toggleHelp()
		} else {
			m.cmd.Follow()
		}
	case key.Matches(k, m.lesson.keys.Up, m.lesson.keys.Down, m.lesson.keys.PageUp, m.lesson.keys.PageDown):
		return m.lesson.Update(k)
	default:
		if m.showHelp && key.Matches(k, m.cmd.keys.Run) {
			// The line's output would go on behind the help.
			m.toggleHelp()
		}
		cmd := m.cmd.Update(k)
		m.status.SetJobs(m.runningJobs())
		return cmd
	}
	return nil
}

// ctrlC stops the foreground job; on an idle, empty prompt, twice quits.
func (m *Model) ctrlC() tea.Cmd {
	now := time.Now()
	if m.cmd.dropPasted() {
		// The paste is given up: its lines waiting, the one running, the
		// one in the prompt.
		m.cmd.stopForeground()
		m.cmd.setLine("", 0)
		m.lastCtrlC = time.Time{}
		return nil
	}
	if m.cmd.stopForeground() {
		// A ctrl+c that stopped a job does not count towards quitting:
		// pressed twice on a running sub, as in a shell, it leaves the
		// learner at the prompt, and a third says how to quit.
		m.lastCtrlC = time.Time{}
		m.cmd.hint = ""
		return nil
	}
	if !m.cmd.Empty() {
		m.cmd.setLine("", 0)
		m.cmd.hist.reset()
		return nil
	}
	if now.Sub(m.lastCtrlC) < 2*time.Second {
		return m.quit()
	}
	m.lastCtrlC = now
	m.cmd.hint = "press ctrl+c again to quit (or type quit)"
	return nil
}

func (m *Model) quit() tea.Cmd {
	m.quitting = true
	m.cmd.cancelQuestions()
	return tea.Quit
}

func (m *Model) toggleHelp() {
	m.showHelp = !m.showHelp
	if m.showHelp {
		m.cmd.help = m.helpLines()
	} else {
		m.cmd.help = nil
	}
}

// sceneKeysLead starts the key help's line of the scene's keys.
const sceneKeysLead = "Scene keys, after f4 (or a click on the scene):"

// sceneKeyLines lays the scene's keys out after sceneKeysLead in width
// cells, a blank before each line: each key with its words whole, a
// separator never starting a line, and the lines after the first indented
// by two under the lead.
func sceneKeyLines(parts []string, width int) []string {
	lines := strings.Split(wrapKept(sceneKeysLead+" "+strings.Join(parts, text.NoBreak+"· "), width), "\n")
	out := []string{" " + text.Plain(lines[0])}
	if rest := strings.Join(lines[1:], " "); rest != "" {
		for _, l := range strings.Split(wordWrap(rest, width-2), "\n") {
			out = append(out, "   "+l)
		}
	}
	return out
}

// helpLines is the key help shown over the scrollback. Where the pane is
// too short for it with its blank lines (80x24), the blanks go first, and
// what still does not fit is the last tips, never the scene's keys.
func (m *Model) helpLines() []string {
	width := max(m.lay.cmd.w-2, 10)
	groups := m.FullHelp()
	whole := m.help // unlimited, to measure: the pane's own help cuts columns that overflow
	whole.SetWidth(0)
	if len(groups) == 3 && widest(whole.FullHelpView(groups)) > width {
		// Two columns fit where three would be cut: the third group
		// shared between them, so both are as short as they can be.
		g0, g1, g2 := groups[0], groups[1], groups[2]
		k := min(max((len(g0)+len(g1)+len(g2)+1)/2-len(g0), 0), len(g2))
		groups = [][]key.Binding{append(append([]key.Binding(nil), g0...), g2[:k]...), append(append([]key.Binding(nil), g1...), g2[k:]...)}
	}
	var keys []string
	for _, l := range strings.Split(m.help.FullHelpView(groups), "\n") {
		keys = append(keys, " "+l)
	}
	var scene []string
	if bs := m.scene.ShortHelp(); len(bs) > 0 {
		var parts []string
		for _, b := range bs {
			parts = append(parts, text.Unbroken(b.Help().Key+" "+b.Help().Desc))
		}
		scene = sceneKeyLines(parts, width)
	}
	var tips []string
	for _, t := range []string{
		"Type help for the commands, help COMMAND for one (help stream add).",
		"The leading nats is optional; a trailing & runs a line in the background.",
		"The mouse wheel scrolls the output or the lesson; hold shift to select text.",
	} {
		for _, l := range strings.Split(wordWrap(t, width), "\n") {
			tips = append(tips, " "+l)
		}
	}
	// Blank lines between the blocks, then one to start, as far as the
	// pane has room for them.
	var blocks [][]string
	free := m.cmd.bodyHeight()
	for _, b := range [][]string{keys, scene, tips} {
		if len(b) > 0 {
			blocks = append(blocks, b)
			free -= len(b)
		}
	}
	var lines []string
	for i, b := range blocks {
		if i > 0 && free > 0 {
			lines = append(lines, "")
			free--
		}
		lines = append(lines, b...)
	}
	if free > 0 {
		lines = append([]string{""}, lines...)
	}
	return lines
}

// widest is the width of text's widest line, in cells.
func widest(text string) int {
	w := 0
	for _, l := range strings.Split(text, "\n") {
		w = max(w, ansi.StringWidth(l))
	}
	return w
}

// handleClick gives the keys to the scene when it is clicked, and back to
// the prompt on a click anywhere else.
func (m *Model) handleClick(ms tea.Mouse) {
	if ms.Button != tea.MouseLeft || m.lay.compact || m.lay.tooSmall {
		return
	}
	r := m.lay.top
	in := !m.showLog && ms.X >= r.x && ms.X < r.x+r.w && ms.Y >= r.y && ms.Y < r.y+r.h
	if in != m.sceneFocus && (!in || len(m.scene.bindings()) > 0) {
		m.setSceneFocus(in)
	}
}

func (m *Model) handleWheel(ms tea.Mouse) {
	n := 0
	switch ms.Button {
	case tea.MouseWheelUp:
		n = -3
	case tea.MouseWheelDown:
		n = 3
	default:
		return
	}
	if r := m.lay.lesson; m.showLesson && r.w > 0 && ms.X >= r.x && ms.X < r.x+r.w && ms.Y >= r.y && ms.Y < r.y+r.h {
		m.lesson.Scroll(n)
		return
	}
	m.cmd.scroll(n)
}

// runningJobs is how many numbered jobs run in the session, whoever
// started them: the pane, or a lesson's setup.
func (m *Model) runningJobs() int { return len(m.sess.Jobs()) }
