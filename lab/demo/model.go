package demo

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"natslab/broker"
	"natslab/broker/text"
	"natslab/scenes"
	"natslab/scenes/contrast"
	"natslab/scenes/kit"
)

// tickEvery is how often the director looks at the clock. The scene's own
// frames are separate and run only while something moves.
const tickEvery = 250 * time.Millisecond

// Model is the demo's root model: the contrast scene for a projector, a
// caption under it, and the director that runs the story.
type Model struct {
	scene  *contrast.Scene
	dir    *Director
	clock  scenes.Clock
	styles *kit.Styles
	speed  float64
	w, h   int
	url    string // where a real nats CLI in the room can publish too
	flags  string // what it must present besides: "--token …", or ""
	failed string // the last control that failed, shown until the next step
	keys   keyMap
	help   help.Model // the footer's key help, plain: the footer styles it
}

// keyMap is the demo's keys; their help is the footer.
type keyMap struct {
	Pause, Next, Quit key.Binding
}

func newKeyMap() keyMap {
	return keyMap{
		Pause: key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "pause")),
		Next:  key.NewBinding(key.WithKeys("right", "l", "n"), key.WithHelp("→", "next")),
		Quit:  key.NewBinding(key.WithKeys("q", "ctrl+c", "esc"), key.WithHelp("q", "quit")),
	}
}

// ShortHelp implements help.KeyMap.
func (k keyMap) ShortHelp() []key.Binding { return []key.Binding{k.Pause, k.Next, k.Quit} }

// FullHelp implements help.KeyMap.
func (k keyMap) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

type tickMsg struct{}

// ranMsg says a step's controls are done.
type ranMsg struct {
	step int
	err  error
}

// New builds the demo on a deployment: the scene's connections are opened
// now; Close releases them.
func New(dep broker.Deployment, opts Options) (*Model, error) {
	clock := opts.Clock
	if clock == nil {
		clock = scenes.RealClock{}
	}
	speed := opts.Speed
	if speed <= 0 {
		speed = 1
	}
	sc, err := contrast.New(scenes.Env{Deployment: dep, Clock: clock}, contrast.Options{Presenter: true, Speed: speed})
	if err != nil {
		return nil, err
	}
	styles := opts.Look.SceneStyles()
	sc.UseStyles(styles)
	a := dep.Access()
	return &Model{scene: sc, dir: NewDirector(Story(), speed), clock: clock, styles: styles, speed: speed, url: a.URL(), flags: a.Flags(),
		keys: newKeyMap(), help: help.Model{ShortSeparator: " · "}}, nil
}

// Close releases the scene's connections.
func (m *Model) Close() { m.scene.Close() }

// Init implements tea.Model.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(m.scene.Init(), m.tick(), m.advance())
}

func (m *Model) tick() tea.Cmd {
	return tea.Tick(tickEvery, func(time.Time) tea.Msg { return tickMsg{} })
}

// Update implements tea.Model.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		m.scene.SetSize(m.w, m.sceneHeight())
		return m, nil
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, m.keys.Quit):
			return m, tea.Quit
		case key.Matches(msg, m.keys.Pause):
			m.dir.TogglePause(m.clock.Now())
		case key.Matches(msg, m.keys.Next):
			m.dir.Skip()
			return m, m.advance()
		}
		return m, nil
	case tickMsg:
		return m, tea.Batch(m.tick(), m.advance())
	case ranMsg:
		m.dir.Ran(m.clock.Now())
		m.failed = ""
		if msg.err != nil {
			m.failed = msg.err.Error()
		}
		return m, nil
	}
	return m, m.scene.Update(msg)
}

// advance starts the next step when the current one is over.
func (m *Model) advance() tea.Cmd {
	if !m.dir.Due(m.clock.Now(), m.scene.Snapshot()) {
		return nil
	}
	st := m.dir.Next()
	i := m.dir.Index()
	sc := m.scene
	// Controls wait on the network (going offline waits for the fetch in
	// flight): they run off the UI loop, and the hold starts when they end.
	return func() tea.Msg {
		for _, c := range st.Do {
			if _, err := sc.Do(c[0], c[1:]); err != nil {
				return ranMsg{step: i, err: fmt.Errorf("%s: %w", strings.Join(c, " "), err)}
			}
		}
		return ranMsg{step: i}
	}
}

// Caption is the line under the scene now.
func (m *Model) Caption() string { return m.dir.Step().Caption }

// Chapter is the part of the story playing now.
func (m *Model) Chapter() string { return m.dir.Step().Chapter }

// Snapshot is the scene's state.
func (m *Model) Snapshot() contrast.Snapshot { return m.scene.Snapshot() }

// captionLines wraps the caption to the width: one line on a projector's
// 120 columns, two on a narrow terminal.
func (m *Model) captionLines() []string {
	w := max(m.w-4, 10)
	lines := strings.Split(ansi.Wordwrap(m.Caption(), w, ""), "\n")
	if len(lines) > 2 {
		lines = lines[:2]
	}
	return lines
}

// chrome is the rows around the scene: a header, a blank, the caption, a
// footer.
func (m *Model) chrome() int { return 3 + len(m.captionLines()) }

func (m *Model) sceneHeight() int { return max(m.h-m.chrome(), 0) }

// View implements tea.Model.
func (m *Model) View() tea.View {
	v := tea.NewView(m.content())
	v.AltScreen = true
	v.WindowTitle = "natslab demo"
	return v
}

func (m *Model) content() string {
	if m.w <= 0 || m.h <= 0 {
		return ""
	}
	st := m.styles
	var b strings.Builder
	step := fmt.Sprintf("%d/%d ", m.dir.Index()+1, m.dir.Len())
	head := " natslab demo · " + m.Chapter()
	if m.url != "" {
		flags := ""
		if m.flags != "" {
			flags = " " + m.flags
		}
		// The command the room can type, or where it points, where
		// the row holds it beside the title (80x24: the URL alone).
		for _, try := range []string{"nats pub events.hello --server " + m.url + flags + "   " + step, m.url + "   " + step} {
			if m.w >= ansi.StringWidth(head+try)+2 {
				step = try
				break
			}
		}
	}
	b.WriteString(st.Render(kit.Title, text.Clip(head, m.w-ansi.StringWidth(step)-1)))
	b.WriteString(strings.Repeat(" ", max(m.w-ansi.StringWidth(text.Clip(head, m.w-ansi.StringWidth(step)-1))-ansi.StringWidth(step), 0)))
	b.WriteString(st.Render(kit.Faint, step))
	b.WriteByte('\n')
	if h := m.sceneHeight(); h > 0 {
		m.scene.SetSize(m.w, h)
		body := m.scene.View()
		n := strings.Count(body, "\n") + 1
		b.WriteString(body)
		b.WriteString(strings.Repeat("\n", max(h-n, 0)+1))
	}
	b.WriteByte('\n')
	for _, l := range m.captionLines() {
		pad := max((m.w-ansi.StringWidth(l))/2, 0)
		b.WriteString(strings.Repeat(" ", pad) + st.Render(kit.Caption, l) + "\n")
	}
	b.WriteString(m.footer())
	return b.String()
}

func (m *Model) footer() string {
	st := m.styles
	keys := " " + m.help.ShortHelpView(m.keys.ShortHelp())
	right := fmt.Sprintf("speed %g× ", m.speed)
	switch {
	case m.failed != "":
		return st.Render(kit.Bad, text.Clip(" "+m.failed, m.w))
	case m.dir.Paused():
		k := m.keys
		k.Pause.SetHelp("space", "plays on")
		keys = " paused: " + m.help.ShortHelpView(k.ShortHelp())
		return st.Render(kit.Warn, text.Clip(keys, m.w))
	}
	gap := m.w - len([]rune(keys)) - len([]rune(right))
	if gap < 1 {
		return st.Render(kit.Faint, text.Clip(keys, m.w))
	}
	return st.Render(kit.Faint, keys+strings.Repeat(" ", gap)+right)
}
