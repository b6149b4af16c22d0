package workshop

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"natslab/broker/text"
	"natslab/lab"
)

// The instructor's view: a live table of the room, the workshop's log,
// and a prompt for the instructor's commands. `spotlight NAME` replaces
// it with a read-only mirror of that attendee's screen until esc.

// columns the table sorts by.
var sortColumns = []string{"name", "connected", "lesson", "step", "time", "hints", "error", "stuck"}

type instructorKeys struct {
	Run, Complete, Leave, Stop, PageUp, PageDown key.Binding
}

func defaultInstructorKeys() instructorKeys {
	return instructorKeys{
		Run:      key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "run")),
		Complete: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "complete")),
		Leave:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back to the table")),
		Stop:     key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "twice: end the workshop")),
		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup/pgdn", "scroll the table")),
		PageDown: key.NewBinding(key.WithKeys("pgdown")),
	}
}

func (k instructorKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Run, k.Complete, k.PageUp, k.Leave, k.Stop}
}

func (k instructorKeys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// Instructor is the instructor's Bubble Tea model.
type Instructor struct {
	w     *Workshop
	st    *lab.Styles
	keys  instructorKeys
	help  help.Model
	in    textinput.Model
	width int
	hgt   int

	sortBy    string
	desc      bool
	top       int    // first table row shown
	message   string // the answer to the last command
	warn      bool
	spotlight string // the attendee mirrored, "" for the table
	lastCtrlC time.Time
	quitting  bool
}

// NewInstructor builds the instructor's view of w.
func NewInstructor(w *Workshop) *Instructor {
	st := lab.DefaultStyles()
	in := textinput.New()
	in.Prompt = "❯ "
	in.Placeholder = "broadcast TEXT · open LESSON [NAME] · spotlight NAME · export · sort COLUMN · help"
	in.SetVirtualCursor(false)
	in.SetStyles(st.Input)
	in.Focus()
	h := help.New()
	h.Styles = st.Help
	return &Instructor{w: w, st: st, keys: defaultInstructorKeys(), help: h, in: in, sortBy: "name"}
}

type (
	changedMsg   struct{}
	clockMsg     struct{}
	spotlightMsg struct{ name string }
)

func (m *Instructor) waitChange() tea.Cmd {
	ch := m.w.Changed()
	done := m.w.ctx.Done()
	return func() tea.Msg {
		select {
		case <-ch:
		case <-done:
			return nil
		}
		// Joins and steps come in bursts: draw them together.
		time.Sleep(50 * time.Millisecond)
		return changedMsg{}
	}
}

// clock redraws the times on steps once a second.
func clock() tea.Cmd { return tea.Tick(time.Second, func(time.Time) tea.Msg { return clockMsg{} }) }

// spotlightTick redraws the mirror at the lab's own frame rate.
func spotlightTick(name string) tea.Cmd {
	return tea.Tick(100*time.Millisecond, func(time.Time) tea.Msg { return spotlightMsg{name} })
}

func (m *Instructor) Init() tea.Cmd { return tea.Batch(m.waitChange(), clock()) }

func (m *Instructor) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.hgt = msg.Width, msg.Height
		m.in.SetWidth(max(m.width-4, 10))
		m.help.SetWidth(m.width)
		return m, nil
	case changedMsg:
		return m, m.waitChange()
	case clockMsg:
		return m, clock()
	case spotlightMsg:
		if msg.name != m.spotlight {
			return m, nil
		}
		return m, spotlightTick(msg.name)
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case tea.PasteMsg:
		var cmd tea.Cmd
		m.in, cmd = m.in.Update(tea.PasteMsg{Content: strings.Join(strings.Fields(msg.Content), " ")})
		return m, cmd
	}
	return m, nil
}

func (m *Instructor) key(k tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(k, m.keys.Stop):
		if m.in.Value() != "" {
			m.in.Reset()
			return nil
		}
		if time.Since(m.lastCtrlC) < 2*time.Second {
			return m.quit()
		}
		m.lastCtrlC = time.Now()
		m.say(false, "%s", "press ctrl+c again to end the workshop (every lab closes), or type quit")
		return nil
	case key.Matches(k, m.keys.Leave):
		if m.spotlight != "" {
			m.say(false, "back from %s's screen", m.spotlight)
			m.spotlight = ""
		} else {
			m.in.Reset()
		}
		return nil
	case m.spotlight != "":
		return nil // the mirror is read-only: esc leaves it
	case key.Matches(k, m.keys.Run):
		line := strings.TrimSpace(m.in.Value())
		m.in.Reset()
		return m.run(line)
	case key.Matches(k, m.keys.Complete):
		m.complete()
		return nil
	case key.Matches(k, m.keys.PageUp):
		m.top = max(m.top-m.page(len(m.w.Names())), 0)
		return nil
	case key.Matches(k, m.keys.PageDown):
		total := len(m.w.Names())
		m.top = min(m.top+m.page(total), max(total-m.page(total), 0))
		return nil
	}
	var cmd tea.Cmd
	m.in, cmd = m.in.Update(k)
	return cmd
}

func (m *Instructor) quit() tea.Cmd {
	m.quitting = true
	return tea.Quit
}

func (m *Instructor) say(warn bool, format string, a ...any) {
	m.message, m.warn = fmt.Sprintf(format, a...), warn
}

const instructorHelp = "broadcast TEXT (a banner in every lab; broadcast alone takes it down) · open LESSON [NAME] (for everyone, or one) · spotlight NAME (their screen, read-only; esc returns) · export [FILE] (CSV) · sort COLUMN (" + "name, connected, lesson, step, time, hints, error, stuck; again to reverse) · quit"

// run is one instructor command.
func (m *Instructor) run(line string) tea.Cmd {
	if line == "" {
		return nil
	}
	verb, rest, _ := strings.Cut(line, " ")
	rest = strings.TrimSpace(rest)
	args := strings.Fields(rest)
	switch verb {
	case "help", "?":
		m.say(false, "%s", instructorHelp)
	case "quit", "exit":
		return m.quit()
	case "broadcast":
		m.w.Broadcast(rest)
		if rest == "" {
			m.say(false, "the banner is down")
		} else {
			m.say(false, "broadcast to every lab: %s", rest)
		}
	case "open":
		if len(args) < 1 || len(args) > 2 {
			m.say(true, "open LESSON for everyone, or open LESSON NAME for one attendee (lessons: %s)", strings.Join(m.w.cat.IDs(), ", "))
			return nil
		}
		name := ""
		if len(args) == 2 {
			name = args[1]
		}
		msg, err := m.w.OpenLesson(args[0], name)
		if err != nil {
			m.say(true, "%v", err)
			return nil
		}
		m.say(false, "%s", msg)
	case "spotlight":
		if len(args) != 1 {
			m.say(true, "spotlight NAME shows that attendee's screen (names: %s)", strings.Join(m.w.Names(), ", "))
			return nil
		}
		if _, _, _, ok := m.w.Spotlight(args[0]); !ok {
			m.say(true, "%s is not connected now (spotlight shows a connected attendee's screen)", args[0])
			return nil
		}
		m.spotlight = args[0]
		return spotlightTick(args[0])
	case "export":
		if len(args) > 1 {
			m.say(true, "export [FILE]: writes everyone's progress as CSV (default workshop-DATE.csv here)")
			return nil
		}
		path := fmt.Sprintf("workshop-%s.csv", time.Now().Format("2006-01-02-1504"))
		if len(args) == 1 {
			path = args[0]
		}
		if err := m.export(path); err != nil {
			m.say(true, "export: %v (export FILE writes elsewhere)", err)
			return nil
		}
		abs, _ := filepath.Abs(path)
		m.say(false, "progress of %s written to %s", text.Count(len(m.w.Names()), "attendee", "attendees"), abs)
	case "sort":
		if len(args) != 1 || !contains(sortColumns, args[0]) {
			m.say(true, "sort COLUMN, one of: %s", strings.Join(sortColumns, ", "))
			return nil
		}
		if m.sortBy == args[0] {
			m.desc = !m.desc
		} else {
			m.sortBy, m.desc = args[0], false
		}
		m.say(false, "sorted by %s", m.sortBy)
	default:
		m.say(true, "unknown command %q: %s", verb, instructorHelp)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (m *Instructor) export(path string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if err := m.w.ExportCSV(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// complete finishes the word under the cursor: a command, a lesson, a name.
func (m *Instructor) complete() {
	v := m.in.Value()
	words := strings.Fields(v)
	if strings.HasSuffix(v, " ") || len(words) == 0 {
		words = append(words, "")
	}
	last := words[len(words)-1]
	var choices []string
	switch {
	case len(words) == 1:
		choices = []string{"broadcast", "open", "spotlight", "export", "sort", "help", "quit"}
	case words[0] == "open" && len(words) == 2:
		// Only the lessons the labs run: open refuses the others.
		for _, ep := range m.w.cat.Episodes {
			if m.w.cannotRun(ep) == nil {
				choices = append(choices, ep.ID)
			}
		}
	case words[0] == "open" && len(words) == 3, words[0] == "spotlight" && len(words) == 2:
		choices = m.w.Names()
	case words[0] == "sort" && len(words) == 2:
		choices = sortColumns
	}
	var match []string
	for _, c := range choices {
		if strings.HasPrefix(c, last) {
			match = append(match, c)
		}
	}
	if len(match) == 0 {
		return
	}
	common := match[0]
	for _, c := range match[1:] {
		for !strings.HasPrefix(c, common) {
			common = common[:len(common)-1]
		}
	}
	if len(match) == 1 {
		common += " "
	} else if common == last {
		m.say(false, "%s", strings.Join(match, "  "))
	}
	words[len(words)-1] = common
	m.in.SetValue(strings.Join(words, " "))
	m.in.CursorEnd()
}

// View draws the table, or the spotlight.
func (m *Instructor) View() tea.View {
	var v tea.View
	v.AltScreen = true
	v.WindowTitle = "natslab workshop"
	if m.width <= 0 || m.hgt <= 0 || m.quitting {
		return v
	}
	if m.spotlight != "" {
		v.SetContent(m.viewSpotlight())
		return v
	}
	if m.width < minWidth || m.hgt < minHeight {
		msg := fmt.Sprintf("natslab workshop: make this window at least %dx%d (it is %dx%d)", minWidth, minHeight, m.width, m.hgt)
		if len(msg) > m.width {
			msg = fmt.Sprintf("make this window %dx%d+", minWidth, minHeight)
		}
		v.SetContent(fitLine(msg, m.width))
		return v
	}
	lines := m.viewTable()
	v.SetContent(strings.Join(lines, "\n"))
	c := tea.NewCursor(ansi.StringWidth(m.in.Prompt)+m.in.Position(), len(lines)-1)
	v.Cursor = c
	return v
}

// header is the first lines: how to join and the room code, then the
// room's counts and the host key. Each part stays whole where the window
// is wide enough and wraps to the next line where it is not (the room
// needs the join command and the code whole); on a window too short for
// that, each group is one line, cut.
func (m *Instructor) header() []string {
	rows := m.w.Rows()
	connected := 0
	for _, r := range rows {
		if r.Connected {
			connected++
		}
	}
	code, generated := m.w.Room()
	room := "no room code (this machine only)"
	if code != "" {
		room = "room code " + m.st.Title.Render(code)
		if generated {
			room += " (made up for today)"
		}
	}
	join := []string{m.st.Title.Render("natslab workshop"), "attendees type " + m.st.Title.Render(m.w.JoinCommand()), room}
	facts := []string{m.st.Dim.Render(fmt.Sprintf("%d of %d labs in use, %d connected", len(rows), m.w.Max(), connected))}
	if b := m.w.Banner(); b != "" {
		facts = append(facts, m.st.Note.Render("banner: "+b))
	}
	facts = append(facts, m.st.Dim.Render(fmt.Sprintf("stuck: %s on a step, or 3 errors on it", m.w.StuckAfter())), m.st.Dim.Render("host key "+m.w.Fingerprint()))
	budget := m.hgt - (minHeight - 2) // the header's share of a window the rest fits in
	j, f := m.pack(join), m.pack(facts)
	switch {
	case len(j)+len(f) <= budget:
	case len(j)+1 <= budget:
		f = []string{fitLine(strings.Join(facts, m.dot()), m.width)}
	default:
		j, f = []string{fitLine(strings.Join(join, m.dot()), m.width)}, []string{fitLine(strings.Join(facts, m.dot()), m.width)}
	}
	return append(j, f...)
}

func (m *Instructor) dot() string { return m.st.Dim.Render(" · ") }

// pack lays parts out on lines of the window's width, joined by " · ",
// starting a new line before a part that would not fit whole; a part wider
// than the window alone is cut.
func (m *Instructor) pack(parts []string) []string {
	var lines []string
	line := ""
	for _, p := range parts {
		switch {
		case line == "":
			line = p
		case ansi.StringWidth(line)+ansi.StringWidth(m.dot())+ansi.StringWidth(p) <= m.width:
			line += m.dot() + p
		default:
			lines = append(lines, fitLine(line, m.width))
			line = p
		}
	}
	return append(lines, fitLine(line, m.width))
}

// The screen, top to bottom: the header (two lines, more on a narrow
// window), a blank, the column titles, the table, a rule, the latest
// events, a rule, the answer to the last command, the prompt. The events
// give way to the table on short screens.
const (
	otherLines = 6 // all but the header, the table and the events
	eventLines = 6

	minWidth, minHeight = 40, 2 + otherLines + 2
)

// fixedLines is how many lines the screen has besides the table and the
// events.
func (m *Instructor) fixedLines() int { return len(m.header()) + otherLines }

// shownEvents is how many events fit.
func (m *Instructor) shownEvents() int {
	return min(eventLines, max(0, (m.hgt-m.fixedLines()-1)/2))
}

// tableRows is how many lines the table has below its titles.
func (m *Instructor) tableRows() int {
	return max(m.hgt-m.fixedLines()-m.shownEvents(), 1)
}

// page is how many of total attendees the table shows at once: when not
// all fit, its last line says which rows show and how to scroll instead.
func (m *Instructor) page(total int) int {
	n := m.tableRows()
	if total > n && n > 1 {
		return n - 1
	}
	return n
}

func (m *Instructor) viewTable() []string {
	lines := m.header()
	above := len(lines) + 2 // the header, a blank and the column titles
	rows := m.sorted()
	cols := []struct {
		title, key string
		width      int
	}{
		{"NAME", "name", 14}, {"CONNECTED", "connected", 13}, {"LESSON", "lesson", 22}, {"STEP", "step", 7},
		{"ON STEP", "time", 9}, {"HINTS", "hints", 6}, {"LAST ERROR", "error", 0},
	}
	var head strings.Builder
	head.WriteString("  ")
	for _, c := range cols {
		t := c.title
		if c.key == m.sortBy {
			if m.desc {
				t += " ▼"
			} else {
				t += " ▲"
			}
		}
		if c.width > 0 {
			t = pad(t, c.width)
		}
		head.WriteString(t)
	}
	lines = append(lines, "", fitLine(m.st.Title.Render(head.String()), m.width))
	n := m.page(len(rows))
	if m.top > max(len(rows)-n, 0) {
		m.top = max(len(rows)-n, 0)
	}
	shown := rows[m.top:min(m.top+n, len(rows))]
	if len(rows) == 0 {
		shown = nil
		lines = append(lines, m.st.Dim.Render("  nobody yet: attendees type "+m.w.JoinCommand()))
	}
	for _, r := range shown {
		mark := "  "
		if r.Stuck {
			mark = "! "
		}
		cells := []string{r.Name, connectedText(r), lessonText(r), stepText(r), durText(r.OnStep, r.Lesson != ""), fmt.Sprint(r.Hints), errorText(r)}
		var b strings.Builder
		b.WriteString(mark)
		for i, c := range cols {
			cell := cells[i]
			if c.width > 0 {
				cell = pad(ansi.Truncate(cell, c.width-1, "…"), c.width)
			}
			b.WriteString(cell)
		}
		line := fitLine(b.String(), m.width)
		switch {
		case r.Stuck:
			line = m.st.Error.Render(line)
		case !r.Connected:
			line = m.st.Dim.Render(line)
		}
		lines = append(lines, line)
	}
	for len(lines) < above+n {
		lines = append(lines, "")
	}
	if len(rows) > n && n < m.tableRows() {
		lines = append(lines, m.st.Dim.Render(fitLine(fmt.Sprintf("  … %d attendees, rows %d–%d: pgup/pgdn scroll", len(rows), m.top+1, m.top+len(shown)), m.width)))
	}
	lines = append(lines, m.st.Border.Render(strings.Repeat("─", max(m.width, 1))))
	ne := m.shownEvents()
	evs := m.w.Events(ne)
	for i := 0; i < ne-len(evs); i++ {
		lines = append(lines, "")
	}
	for _, e := range evs {
		t := e.At.Format("15:04:05") + " " + e.Text
		t = fitLine(t, m.width)
		if e.Warn {
			t = m.st.Error.Render(t)
		} else {
			t = m.st.Dim.Render(t)
		}
		lines = append(lines, t)
	}
	msg := m.message
	if msg == "" {
		msg = m.help.View(m.keys)
	} else if m.warn {
		msg = m.st.Error.Render(fitLine(msg, m.width))
	} else {
		msg = m.st.Note.Render(fitLine(msg, m.width))
	}
	lines = append(lines, m.st.Border.Render(strings.Repeat("─", max(m.width, 1))), fitLine(msg, m.width), m.in.View())
	return lines
}

// viewSpotlight mirrors one attendee's screen under a title line.
func (m *Instructor) viewSpotlight() string {
	screen, w, h, ok := m.w.Spotlight(m.spotlight)
	title := fmt.Sprintf(" spotlight: %s's screen (%dx%d), read-only · esc returns to the table ", m.spotlight, w, h)
	if w > m.width || h+1 > m.hgt {
		title += fmt.Sprintf("· cut: %dx%d shows it whole ", max(w, m.width), max(h+1, m.hgt))
	}
	if !ok {
		title = fmt.Sprintf(" spotlight: %s has left · esc returns to the table ", m.spotlight)
	}
	lines := []string{m.st.StatusBar.Render(fitLine(title, m.width))}
	for _, l := range strings.Split(screen, "\n") {
		if len(lines) >= m.hgt {
			break
		}
		lines = append(lines, ansi.Truncate(l, m.width, ""))
	}
	return strings.Join(lines, "\n")
}

func (m *Instructor) sorted() []Row {
	rows := m.w.Rows()
	less := func(a, b Row) bool {
		switch m.sortBy {
		case "connected":
			if a.Connected != b.Connected {
				return a.Connected
			}
			return a.Away < b.Away
		case "lesson":
			return a.Lesson < b.Lesson
		case "step":
			if a.Lesson != b.Lesson {
				return a.Lesson < b.Lesson
			}
			return a.Step < b.Step
		case "time":
			return a.OnStep > b.OnStep
		case "hints":
			return a.Hints > b.Hints
		case "error":
			return a.LastErrAt.After(b.LastErrAt)
		case "stuck":
			if a.Stuck != b.Stuck {
				return a.Stuck
			}
			return a.OnStep > b.OnStep
		}
		return a.Name < b.Name
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if m.desc {
			return less(rows[j], rows[i])
		}
		return less(rows[i], rows[j])
	})
	return rows
}

func connectedText(r Row) string {
	switch {
	case r.Connected:
		return "yes"
	case r.Parked:
		return "parked"
	default:
		return "left " + durText(r.Away, true) + " ago"
	}
}

func lessonText(r Row) string {
	if r.Lesson == "" {
		return "sandbox"
	}
	return r.Lesson
}

func stepText(r Row) string {
	if r.Lesson == "" {
		return "—"
	}
	if r.Complete {
		return fmt.Sprintf("✓ %d/%d", r.Steps, r.Steps)
	}
	return fmt.Sprintf("%d/%d", r.Step, r.Steps)
}

func errorText(r Row) string {
	if r.LastError == "" {
		return ""
	}
	return durText(time.Since(r.LastErrAt), true) + " ago: " + r.LastError
}

// durText is a short duration: 42s, 3m05s, 1h12m.
func durText(d time.Duration, show bool) string {
	if !show {
		return "—"
	}
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	default:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
}

func pad(s string, w int) string {
	if n := w - ansi.StringWidth(s); n > 0 {
		return s + spaces(n)
	}
	return s
}

func fitLine(s string, w int) string { return ansi.Truncate(s, max(w, 1), "…") }
