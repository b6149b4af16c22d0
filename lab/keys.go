package lab

import (
	"charm.land/bubbles/v2/key"

	"natslab/scenes"
)

// The lab's keys: one keymap per component (bubbles' key.Binding, with
// help.KeyMap for the help), kept in this file so that who answers to
// which key is seen at once. Every printable key belongs to the prompt:
// the only single-character key of the lab's own is ?, and only while the
// input is empty (no command starts with ?). The rest are function,
// control and navigation keys, which never type anything. A scene's keys
// (single letters) act only while the scene pane has the keys (F4).

// rootKeys are the Model's own: they act whichever pane would otherwise
// take the key.
type rootKeys struct {
	Help         key.Binding
	Stop         key.Binding // stop the foreground job; twice on an idle prompt quits
	ToggleLesson key.Binding
	ToggleLog    key.Binding
	SceneKeys    key.Binding
	Escape       key.Binding
	// Suspend is ctrl+z, which suspends most terminal programs: the lab
	// says why it does not, and what to do instead.
	Suspend key.Binding
}

// promptKeys are the command pane's: the prompt and its scrollback.
type promptKeys struct {
	Run         key.Binding
	Complete    key.Binding
	HistoryPrev key.Binding
	HistoryNext key.Binding
	Quit        key.Binding // on an empty line
	PageUp      key.Binding
	PageDown    key.Binding
	LineUp      key.Binding
	LineDown    key.Binding
	ClearScreen key.Binding
}

// lessonKeys are the lesson pane's.
type lessonKeys struct {
	Up       key.Binding
	Down     key.Binding
	PageUp   key.Binding
	PageDown key.Binding
}

func defaultRootKeys() rootKeys {
	return rootKeys{
		Help:         key.NewBinding(key.WithKeys("f1", "?"), key.WithHelp("?/f1", "keys")),
		Stop:         key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "stop job (twice: quit)")),
		ToggleLesson: key.NewBinding(key.WithKeys("f2"), key.WithHelp("f2", "lesson pane")),
		ToggleLog:    key.NewBinding(key.WithKeys("f3"), key.WithHelp("f3", "server log")),
		SceneKeys:    key.NewBinding(key.WithKeys("f4"), key.WithHelp("f4", "scene keys")),
		Escape:       key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close help, follow output")),
		Suspend:      key.NewBinding(key.WithKeys("ctrl+z")),
	}
}

func defaultPromptKeys() promptKeys {
	return promptKeys{
		Run:         key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "run the line")),
		Complete:    key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "complete")),
		HistoryPrev: key.NewBinding(key.WithKeys("up", "ctrl+p"), key.WithHelp("↑/↓", "history")),
		HistoryNext: key.NewBinding(key.WithKeys("down", "ctrl+n"), key.WithHelp("↓", "history")),
		Quit:        key.NewBinding(key.WithKeys("ctrl+d"), key.WithHelp("ctrl+d", "quit (empty line)")),
		PageUp:      key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup/pgdn", "scroll output")),
		PageDown:    key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "scroll down")),
		LineUp:      key.NewBinding(key.WithKeys("shift+up"), key.WithHelp("shift+↑/↓", "scroll a line")),
		LineDown:    key.NewBinding(key.WithKeys("shift+down"), key.WithHelp("shift+↓", "scroll a line")),
		ClearScreen: key.NewBinding(key.WithKeys("ctrl+l"), key.WithHelp("ctrl+l", "clear output")),
	}
}

func defaultLessonKeys() lessonKeys {
	return lessonKeys{
		Up:       key.NewBinding(key.WithKeys("alt+up"), key.WithHelp("alt+↑/↓", "scroll lesson")),
		Down:     key.NewBinding(key.WithKeys("alt+down"), key.WithHelp("alt+↓", "scroll lesson")),
		PageUp:   key.NewBinding(key.WithKeys("alt+pgup", "f5"), key.WithHelp("f5/f6", "lesson page up/down")),
		PageDown: key.NewBinding(key.WithKeys("alt+pgdown", "f6"), key.WithHelp("f6", "lesson page down")),
	}
}

// ShortHelp is the command pane's one-line help.
func (p *cmdPane) ShortHelp() []key.Binding {
	return []key.Binding{p.keys.Run, p.keys.Complete, p.keys.HistoryPrev}
}

// FullHelp is the command pane's part of the help overlay.
func (p *cmdPane) FullHelp() [][]key.Binding {
	k := p.keys
	return [][]key.Binding{{k.Run, k.Complete, k.HistoryPrev, k.Quit, k.ClearScreen}, {k.PageUp, k.LineUp}}
}

// ShortHelp is the lesson pane's one-line help.
func (p *lessonPane) ShortHelp() []key.Binding { return []key.Binding{p.keys.Up} }

// FullHelp is the lesson pane's part of the help overlay.
func (p *lessonPane) FullHelp() [][]key.Binding { return [][]key.Binding{{p.keys.Up, p.keys.PageUp}} }

// ShortHelp: the log pane only shows; F3 (the root's) opens and closes it.
func (p *logPane) ShortHelp() []key.Binding { return nil }

// FullHelp: none, as ShortHelp.
func (p *logPane) FullHelp() [][]key.Binding { return nil }

// ShortHelp is the open scene's keys, from the scene's own keymap.
func (p *scenePane) ShortHelp() []key.Binding {
	if p.scene == nil {
		return nil
	}
	return p.scene.ShortHelp()
}

// FullHelp is the open scene's keys, from the scene's own keymap.
func (p *scenePane) FullHelp() [][]key.Binding {
	if p.scene == nil {
		return nil
	}
	return p.scene.FullHelp()
}

// bindings are the open scene's keys, each with the control (and its
// arguments) it runs as if typed; none when the scene offers none.
func (p *scenePane) bindings() []scenes.KeyBinding {
	k, ok := p.scene.(scenes.Keyed)
	if !ok || p.scene == nil {
		return nil
	}
	return k.Keys()
}

// ShortHelp is the one-line help in the command pane's rule, from the
// panes' keymaps and the lab's own.
func (m *Model) ShortHelp() []key.Binding {
	r, p := m.keys, m.cmd.keys
	stop := r.Stop
	stop.SetHelp("ctrl+c", m.stopDoes())
	return []key.Binding{r.Help, p.Run, p.Complete, p.HistoryPrev, stop, r.ToggleLesson, r.ToggleLog}
}

// stopDoes is what ctrl+c does now (see ctrlC), for the one-line help;
// the help overlay lists all it can do.
func (m *Model) stopDoes() string {
	switch {
	case len(m.cmd.pasted) > 0:
		return "drop the pasted lines"
	case m.cmd.foreground() != nil:
		return "stop job"
	case !m.cmd.Empty():
		return "clear the line"
	}
	return "quit (twice)"
}

// FullHelp is the help overlay, in columns: typing, scrolling, panes.
func (m *Model) FullHelp() [][]key.Binding {
	r, p, l := m.keys, m.cmd.keys, m.lesson.keys
	return [][]key.Binding{
		{p.Run, p.Complete, p.HistoryPrev, r.Stop, p.Quit, p.ClearScreen},
		{p.PageUp, p.LineUp, l.Up, l.PageUp, r.Escape},
		{r.ToggleLesson, r.ToggleLog, r.SceneKeys, r.Help},
	}
}
