package lab

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"natslab/broker/text"
	"natslab/scenes"
	"natslab/scenes/kit"
)

// scenePane hosts one scenes.Scene, or an introduction while none is open.
// The scene's View is called again only after the scene was given a
// message, a frame, or a new size.
type scenePane struct {
	st    *Styles
	look  *kit.Styles             // the scenes' palette, for the terminal's look
	list  func() []scenes.Factory // the installed scenes, for the introduction
	scene scenes.Scene
	w, h  int
	focus bool // the scene has the keys
	frame []string
	valid bool
	fits  fitCache // the scene's lines as last fitted to the pane
}

func newScenePane(st *Styles, look *kit.Styles) *scenePane {
	return &scenePane{st: st, look: look, list: scenes.List}
}

// SetSize implements Component.
func (p *scenePane) SetSize(w, h int) {
	if w == p.w && h == p.h {
		return
	}
	p.w, p.h = w, h
	p.valid = false
	if p.scene != nil {
		p.scene.SetSize(max(w-2, 0), max(h-2, 0))
	}
}

// Open replaces the scene (closing the old one) and returns the new one's Init.
func (p *scenePane) Open(s scenes.Scene) tea.Cmd {
	if p.scene != nil {
		p.scene.Close()
	}
	p.scene = s
	p.valid = false
	if s == nil {
		return nil
	}
	if styled, ok := s.(interface{ UseStyles(*kit.Styles) }); ok {
		styled.UseStyles(p.look)
	}
	s.SetSize(max(p.w-2, 0), max(p.h-2, 0))
	return s.Init()
}

// Update forwards a message to the scene.
func (p *scenePane) Update(msg tea.Msg) tea.Cmd {
	if p.scene == nil {
		return nil
	}
	p.valid = false
	return p.scene.Update(msg)
}

// SetFocus marks the pane as having the keys.
func (p *scenePane) SetFocus(on bool) {
	if on != p.focus {
		p.focus = on
		p.valid = false
	}
}

// PacesItsFrames reports whether the scene delivers its own frames.
func (p *scenePane) PacesItsFrames() bool {
	sp, ok := p.scene.(scenes.SelfPaced)
	return ok && sp.PacesItsFrames()
}

// Animating reports whether the scene wants frames.
func (p *scenePane) Animating() bool { return p.scene != nil && p.scene.Animating() }

// Invalidate makes the next Lines call draw the scene again.
func (p *scenePane) Invalidate() { p.valid = false }

// Lines draws the pane, exactly w×h.
func (p *scenePane) Lines() []string {
	if p.valid {
		return p.frame
	}
	iw, ih := max(p.w-2, 0), max(p.h-2, 0)
	title, note := "scene", ""
	var inner []string
	if p.scene != nil {
		title = p.title()
		inner = p.fits.lines(p.scene.View(), iw, ih)
		var names []string
		for _, c := range p.scene.Controls() {
			names = append(names, c.Name)
		}
		keys := ""
		if len(p.bindings()) > 0 && !p.focus {
			keys = "f4 keys"
		}
		note = keys
		if len(names) > 0 {
			// As many controls as the border holds, whole, and "…" for
			// the rest (help lists them all).
			lead := "controls: "
			if keys != "" {
				lead = keys + " · " + lead
			}
			if list := text.Words(strings.Join(names, " "), max(p.w-5, 0)-text.Width(lead)); list != "" {
				note = lead + list
			}
		}
	} else {
		inner = fitLines(p.intro(iw, ih), iw, ih)
	}
	p.frame = box(p.st, title, p.focus, inner, note, p.w, p.h)
	p.valid = true
	return p.frame
}

// titlePrefix starts the border's caption while a scene is open.
const titlePrefix = "scene: "

// titleRoom is how many cells the border of a pane w wide holds for a
// scene's title after titlePrefix: the corners, a rule and a blank each
// side of the caption take 5.
func titleRoom(w int) int { return max(w-5-len(titlePrefix), 0) }

// title is the open scene's caption: titlePrefix and the fullest wording
// of the scene's title that fits beside it, or the fullest that fits
// alone; only a scene with no wording that narrow is cut.
func (p *scenePane) title() string {
	room := titleRoom(p.w)
	if st, ok := p.scene.(scenes.ShortTitled); ok {
		if t := st.TitleWithin(room); t != "" {
			return titlePrefix + t
		}
		if t := st.TitleWithin(room + len(titlePrefix)); t != "" {
			return t
		}
	}
	return titlePrefix + p.scene.Title()
}

// intro is what the pane shows before a scene is open: the scenes, one a
// line with what each shows, or only their names (one a line where the
// rows hold them) where h rows or w columns cannot hold that whole.
func (p *scenePane) intro(w, h int) string {
	var b strings.Builder
	pic := "publisher ──▶ ( NATS ) ──▶ subscriber"
	if w < len([]rune(pic))+2 {
		pic = "pub ──▶ (NATS) ──▶ sub"
	}
	b.WriteString("\n " + p.st.Accent.Render(pic) + "\n\n")
	wrap := func(text string) {
		for _, l := range strings.Split(wordWrap(text, max(w-2, 10)), "\n") {
			b.WriteString(" " + l + "\n")
		}
	}
	list := p.list()
	if len(list) == 0 {
		wrap("Scenes draw what happens on the broker as it happens. None is installed in this build yet: the command pane below is the whole lab for now.")
		return b.String()
	}
	lines := func(text string) int { return strings.Count(wordWrap(text, max(w-2, 10)), "\n") + 1 }
	intro := "Scenes draw what happens on the broker, whoever causes it. Open one:"
	width := 10
	for _, f := range list {
		width = max(width, len(f.Name))
	}
	item := func(f scenes.Factory) string { return fmt.Sprintf("   scene %-*s %s", width, f.Name, f.Summary) }
	summariesFit := true
	for _, f := range list {
		// A summary cut at the border would read as the scene's whole
		// story: where one does not fit, none is shown.
		summariesFit = summariesFit && text.Width(item(f)) < w
	}
	if !summariesFit && 3+lines(intro)+len(list) <= h {
		// No room beside the names for what each shows, but rows for
		// a name a line: each as the command that opens it.
		wrap(intro)
		for _, f := range list {
			b.WriteString("   scene " + f.Name + "\n")
		}
		return b.String()
	}
	if !summariesFit || 3+lines(intro)+len(list) > h { // a blank line, the picture, a blank line, the text, the list
		names := make([]string, len(list))
		for i, f := range list {
			names[i] = f.Name
		}
		named := "Scenes draw what happens on the broker, whoever causes it. scene NAME opens one: " + strings.Join(names, ", ") + "."
		if 3+lines(named) > h {
			// A list cut off by the border would hide scenes without
			// saying so: point to the verb that lists them all instead.
			named = "Scenes draw what happens on the broker, whoever causes it. scene lists them; scene NAME opens one."
			if 3+lines(named) > h {
				named = "scene lists the scenes; scene NAME opens one."
			}
		}
		wrap(named)
		return b.String()
	}
	wrap(intro)
	for _, f := range list {
		b.WriteString(item(f) + "\n")
	}
	return b.String()
}

// Close releases the scene.
func (p *scenePane) Close() {
	if p.scene != nil {
		p.scene.Close()
		p.scene = nil
	}
}

// View implements Component.
func (p *scenePane) View() string { return strings.Join(p.Lines(), "\n") }

// fitCache is fitLines for a scene's frames: from one frame to the next
// most of a scene's lines stay as they were (only what moves changes), and
// measuring a line's width is most of what fitting it costs, so a line
// the same as the last frame's on its row is not measured again.
type fitCache struct {
	w      int
	drawn  []string // the scene's lines, as drawn
	fitted []string // each exactly w wide
}

// lines makes exactly h lines of exactly w cells from a scene's frame, as
// fitLines does.
func (c *fitCache) lines(frame string, w, h int) []string {
	if w != c.w {
		c.w, c.drawn, c.fitted = w, c.drawn[:0], c.fitted[:0]
	}
	out := make([]string, 0, h)
	if frame != "" {
		for l := range strings.SplitSeq(strings.TrimRight(frame, "\n"), "\n") {
			i := len(out)
			if i == h {
				break
			}
			if i == len(c.drawn) {
				c.drawn, c.fitted = append(c.drawn, ""), append(c.fitted, "")
			}
			if c.drawn[i] != l || c.fitted[i] == "" {
				c.drawn[i], c.fitted[i] = l, fit(l, w)
			}
			out = append(out, c.fitted[i])
		}
	}
	for len(out) < h {
		out = append(out, spaces(w))
	}
	return out
}
