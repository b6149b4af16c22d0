package lab

import (
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// View draws the screen from the panes' cached lines: only what changed is
// drawn again, and nothing is measured twice.
func (m *Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "natslab"
	if m.w > 0 && !m.lay.tooSmall && !m.quitting && !m.sceneFocus {
		c := tea.NewCursor(m.lay.cmd.x+m.cmd.cursorX(), m.lay.cmd.y+m.lay.cmd.h-1)
		c.Blink = true
		v.Cursor = c
	}
	return v
}

type placed struct {
	r     rect
	lines []string
}

func (m *Model) render() string {
	if m.w <= 0 || m.h <= 0 {
		return ""
	}
	l := m.lay
	if l.tooSmall {
		lines := tooSmallLines(m.w, m.h)
		for i, l := range lines {
			lines[i] = fit(l, m.w)
		}
		return strings.Join(lines, "\n")
	}
	m.cmd.setShortHelp(m.shortHelp())
	panes := []placed{{l.cmd, m.cmd.Lines()}, {l.status, []string{m.status.Line()}}}
	if l.compact {
		panes = append(panes, placed{l.notice, []string{m.st.Dim.Render(fit(compactLine(m.w, m.h), m.w))}})
	} else {
		if m.showLog {
			panes = append(panes, placed{l.top, m.log.Lines()})
		} else {
			panes = append(panes, placed{l.top, m.scene.Lines()})
		}
		if m.showLesson && l.lesson.w > 0 {
			panes = append(panes, placed{l.lesson, m.lesson.Lines()})
		}
	}
	// Left to right within each row.
	sort.SliceStable(panes, func(i, j int) bool { return panes[i].r.x < panes[j].r.x })
	rows := make([][]string, m.h)
	for _, p := range panes {
		for i, line := range p.lines {
			if y := p.r.y + i; y >= 0 && y < m.h && i < p.r.h {
				rows[y] = append(rows[y], line)
			}
		}
	}
	var b strings.Builder
	b.Grow(m.w * m.h * 2)
	for y, parts := range rows {
		if y > 0 {
			b.WriteByte('\n')
		}
		for _, s := range parts {
			b.WriteString(s)
		}
	}
	return b.String()
}

// shortHelp is the one-line key help shown in the command pane's rule: as
// many of the short bindings as fit.
func (m *Model) shortHelp() string {
	var parts []string
	for _, b := range m.ShortHelp() {
		h := b.Help()
		parts = append(parts, h.Key+" "+h.Desc)
	}
	room := m.lay.cmd.w - len("─ commands ") - 6
	for len(parts) > 0 && len(strings.Join(parts, " · ")) > room {
		parts = parts[:len(parts)-1]
	}
	return strings.Join(parts, " · ")
}
