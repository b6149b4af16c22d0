package lab

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"natslab/broker/command"
)

// Scene keys. A scene may offer single keys for its controls (scenes.Keyed:
// "o" takes the app offline). Single letters must never steal typing from
// the prompt, and every letter starts some command, so they act only while
// the scene pane has the keys: F4 or a click on the scene gives them to it,
// Esc (or F4 again, or a click on the command pane) gives them back, and
// any other printable key goes back to the prompt and is typed there.

// setSceneFocus gives the scene the keys (or takes them back).
func (m *Model) setSceneFocus(on bool) {
	bindings := m.scene.bindings()
	if on && len(bindings) == 0 {
		m.cmd.hint = "the open scene has no keys of its own (scene lists the scenes)"
		if m.activeScene() == nil {
			m.cmd.hint = "no scene is open: scene lists them, scene NAME opens one"
		}
		on = false
	}
	m.sceneFocus = on
	m.scene.SetFocus(on)
	m.cmd.sceneKeys = ""
	if on {
		var parts []string
		for _, b := range bindings {
			parts = append(parts, b.Help().Key+" "+b.Help().Desc)
		}
		m.cmd.sceneKeys = strings.Join(parts, " · ")
	}
}

// sceneKey handles a key while the scene has the keys; false means the key
// was not the scene's and normal handling goes on.
func (m *Model) sceneKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	if key.Matches(k, m.keys.Escape, m.keys.SceneKeys) {
		m.setSceneFocus(false)
		return nil, true
	}
	for _, b := range m.scene.bindings() {
		if key.Matches(k, b.Binding) {
			cmd, _ := m.cmd.runLine(m.controlLine(b.Control, b.Args))
			m.status.SetJobs(m.runningJobs())
			return cmd, true
		}
	}
	if k.Text != "" {
		// Typing: the prompt takes the keys back, and this one.
		m.setSceneFocus(false)
	}
	return nil, false
}

// controlLine is what a person would type to run a scene control: the
// control's own verb, or `scene NAME …` when its name belongs to a command.
func (m *Model) controlLine(control string, args []string) string {
	words := append([]string{control}, args...)
	if m.sess.IsCommand(control) || paneWords[control] {
		words = append([]string{"scene"}, words...)
	}
	return command.Quote(words)
}
