package lab

import (
	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"

	"natslab/scenes"
)

// Component is what each of the lab's panes is, as in soft-serve's pkg/ui:
// a model that handles the messages the root routes to it, draws itself at
// the size it was last given, and says which keys it answers to, with
// their help. View returns a string: only the root model returns a tea.View.
type Component interface {
	Update(msg tea.Msg) tea.Cmd
	View() string
	SetSize(width, height int)
	help.KeyMap
}

var (
	_ Component = (*cmdPane)(nil)
	_ Component = (*scenePane)(nil)
	_ Component = (*lessonPane)(nil)
	_ Component = (*logPane)(nil)
)

// A scene is a component too (scenes declares the same methods without
// importing lab); the scene pane draws it and shows its keys' help.
var _ Component = scenes.Scene(nil)
