package lab

import "charm.land/bubbles/v2/key"

// keyMap is the lab's one keymap. Every printable key belongs to the
// prompt: the only single-character global key is ?, and only while the
// input is empty (no command starts with ?). The rest are function,
// control and navigation keys, which never type anything.
type keyMap struct {
	Run          key.Binding
	Complete     key.Binding
	HistoryPrev  key.Binding
	HistoryNext  key.Binding
	Stop         key.Binding // stop the foreground job; twice on an idle prompt quits
	Quit         key.Binding // on an empty line
	PageUp       key.Binding
	PageDown     key.Binding
	LineUp       key.Binding
	LineDown     key.Binding
	LessonUp     key.Binding
	LessonDown   key.Binding
	ToggleLesson key.Binding
	ToggleLog    key.Binding
	SceneKeys    key.Binding
	Help         key.Binding
	ClearScreen  key.Binding
	Escape       key.Binding
}

func defaultKeyMap() keyMap {
	return keyMap{
		Run:          key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "run the line")),
		Complete:     key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "complete")),
		HistoryPrev:  key.NewBinding(key.WithKeys("up", "ctrl+p"), key.WithHelp("↑/↓", "history")),
		HistoryNext:  key.NewBinding(key.WithKeys("down", "ctrl+n"), key.WithHelp("↓", "history")),
		Stop:         key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "stop job (twice: quit)")),
		Quit:         key.NewBinding(key.WithKeys("ctrl+d"), key.WithHelp("ctrl+d", "quit (empty line)")),
		PageUp:       key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup/pgdn", "scroll output")),
		PageDown:     key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "scroll down")),
		LineUp:       key.NewBinding(key.WithKeys("shift+up"), key.WithHelp("shift+↑/↓", "scroll a line")),
		LineDown:     key.NewBinding(key.WithKeys("shift+down"), key.WithHelp("shift+↓", "scroll a line")),
		LessonUp:     key.NewBinding(key.WithKeys("alt+up"), key.WithHelp("alt+↑/↓", "scroll lesson")),
		LessonDown:   key.NewBinding(key.WithKeys("alt+down"), key.WithHelp("alt+↓", "scroll lesson")),
		ToggleLesson: key.NewBinding(key.WithKeys("f2"), key.WithHelp("f2", "lesson pane")),
		ToggleLog:    key.NewBinding(key.WithKeys("f3"), key.WithHelp("f3", "server log")),
		SceneKeys:    key.NewBinding(key.WithKeys("f4"), key.WithHelp("f4", "scene keys")),
		Help:         key.NewBinding(key.WithKeys("f1", "?"), key.WithHelp("?/f1", "keys")),
		ClearScreen:  key.NewBinding(key.WithKeys("ctrl+l"), key.WithHelp("ctrl+l", "clear output")),
		Escape:       key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close help, follow output")),
	}
}

// ShortHelp is the one-line help.
func (k keyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Help, k.Run, k.Complete, k.HistoryPrev, k.Stop, k.ToggleLesson, k.ToggleLog}
}

// FullHelp is the help overlay, in columns.
func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Run, k.Complete, k.HistoryPrev, k.Stop, k.Quit, k.ClearScreen},
		{k.PageUp, k.LineUp, k.LessonUp, k.Escape},
		{k.ToggleLesson, k.ToggleLog, k.SceneKeys, k.Help},
	}
}
