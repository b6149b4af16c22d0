package lab

import (
	tea "charm.land/bubbletea/v2"
)

// The server tells of a full disk or a damaged stream only in its log
// (F3), and what follows is silent: a stream that stays dead, one that
// vanished at start. The pane says it in one line with what to do (see
// broker.StorageTrouble), from the start-up log on.

// storageRestart is how a person restarts the server in the lab.
const storageRestart = "type restart"

type storageMsg struct{}

// storageNotes says in the pane what storage trouble the server logged
// since the last look, and waits for more.
func (m *Model) storageNotes() tea.Cmd {
	if m.storage == nil {
		return nil
	}
	ch, done := m.storage.Changed(), m.done // before reading: a line logged meanwhile wakes it
	for _, t := range m.storage.New() {
		m.Note(t.Line)
	}
	return func() tea.Msg {
		select {
		case <-ch:
			return storageMsg{}
		case <-done:
			return nil
		}
	}
}
