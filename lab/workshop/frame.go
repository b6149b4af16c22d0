package workshop

import (
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"natslab/broker/command"
	"natslab/lab"
	"natslab/lab/episode"
)

// frame is what an attendee's program runs: their lab, with the
// instructor's broadcast as a banner on the last row, and each frame kept
// for the instructor's spotlight.
type frame struct {
	lab    *lab.Model
	c      *connection
	banner string
	w, h   int
}

// bannerMsg sets (or, empty, clears) the banner.
type bannerMsg struct{ text string }

func newFrame(m *lab.Model, c *connection, banner string) *frame {
	return &frame{lab: m, c: c, banner: banner}
}

func (f *frame) Init() tea.Cmd { return f.lab.Init() }

func (f *frame) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		f.w, f.h = msg.Width, msg.Height
		f.c.size.Store(&[2]int{msg.Width, msg.Height})
		return f, f.resizeLab()
	case bannerMsg:
		if msg.text == f.banner {
			return f, nil
		}
		f.banner = msg.text
		return f, f.resizeLab()
	}
	_, cmd := f.lab.Update(msg)
	return f, cmd
}

// resizeLab gives the lab the window less the banner's row.
func (f *frame) resizeLab() tea.Cmd {
	h := f.h
	if f.bannerShown() {
		h--
	}
	_, cmd := f.lab.Update(tea.WindowSizeMsg{Width: f.w, Height: h})
	return cmd
}

// bannerShown reports whether the banner has a row: not where taking it
// would leave the lab less than the smallest window it draws in, which
// would then ask for a window larger than the one the attendee has. The
// broadcast is in their command pane too.
func (f *frame) bannerShown() bool {
	_, minHeight := lab.MinSize()
	return f.banner != "" && f.h-1 >= minHeight
}

func (f *frame) View() tea.View {
	v := f.lab.View()
	if f.bannerShown() {
		v.Content += "\n" + bannerLine(f.banner, f.w)
	}
	content := v.Content
	f.c.shot.Store(&content)
	return v
}

// bannerLine is the broadcast, in reverse video across the window.
func bannerLine(text string, w int) string {
	s := " 📣 " + text + " "
	s = ansi.Truncate(s, w, "…")
	if pad := w - ansi.StringWidth(s); pad > 0 {
		s += spaces(pad)
	}
	return "\x1b[7;1m" + s + ansi.ResetStyle
}

func spaces(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = ' '
	}
	return string(b)
}

// sessionOptions are the command session's options in a workshop lab:
// the machine is the instructor's, so no command may read, write or run
// its files (sub --dump DIR, --creds, object put, …).
func sessionOptions() []command.Option { return []command.Option{command.WithNoLocalFiles()} }

// currentLesson is the lesson an attendee was in, from their progress.
func currentLesson(dir string) string {
	p, err := episode.OpenProgress(dir)
	if err != nil || p == nil {
		return ""
	}
	return p.Current()
}
