package workshop

import (
	"errors"
	"fmt"
	"io"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	bm "charm.land/wish/v2/bubbletea"
	gossh "golang.org/x/crypto/ssh"

	"natslab/lab"
	"natslab/lab/policy"
	"natslab/scenes"
)

// bannerFor is shown by the SSH client before it asks for the room code.
func (w *Workshop) bannerFor(ssh.Context) string {
	if w.room == "" {
		return ""
	}
	return "natslab workshop: type the room code your instructor gave you.\r\n"
}

// keyboardInteractive asks for the room code with a prompt of our own
// (what OpenSSH shows), refusing at once while the address is blocked.
func (w *Workshop) keyboardInteractive(ctx ssh.Context, ask gossh.KeyboardInteractiveChallenge) bool {
	from := host(ctx.RemoteAddr())
	if w.tries.blocked(from) {
		_, _ = ask("", "Too many wrong room codes from your address: wait a minute, then try again.", nil, nil)
		w.logf(true, "refused %q from %s: too many wrong room codes", ctx.User(), from)
		return false
	}
	answers, err := ask("", "", []string{"Room code: "}, []bool{false})
	if err != nil || len(answers) != 1 {
		return false
	}
	return w.checkCode(ctx, answers[0])
}

// checkCode never logs what was typed: a near miss would give the code away.
func (w *Workshop) checkCode(ctx ssh.Context, typed string) bool {
	if codeMatches(typed, w.room) {
		return true
	}
	from := host(ctx.RemoteAddr())
	w.tries.failed(from)
	w.logf(true, "wrong room code for %q from %s", ctx.User(), from)
	return false
}

// handle serves one SSH session: the attendee's lab, and nothing else.
func (w *Workshop) handle(sess ssh.Session) {
	w.sessions.Add(1)
	defer w.sessions.Done()
	name := sess.User()
	refuse := func(msg string) {
		_, _ = fmt.Fprintf(sess.Stderr(), "%s\r\n", msg)
		_ = sess.Exit(1)
	}
	if err := checkName(name); err != nil {
		w.logf(true, "refused a session from %s: the name is not usable", host(sess.RemoteAddr()))
		refuse(fmt.Sprintf("natslab: %v (%s)", err, joinAs(sess.LocalAddr(), "ada")))
		return
	}
	if sess.RawCommand() != "" {
		w.logf(true, "refused a command from %s (%s): the workshop serves the lab only", name, host(sess.RemoteAddr()))
		refuse(fmt.Sprintf("natslab: this workshop serves the lab only, not commands: %s", joinAs(sess.LocalAddr(), name)))
		return
	}
	pty, winCh, ok := sess.Pty()
	if !ok {
		refuse("natslab: the lab needs a terminal: run ssh without -T (or add -t)")
		return
	}
	a, err := w.attendeeFor(name)
	if err != nil {
		w.logf(true, "refused %s from %s: %v", name, host(sess.RemoteAddr()), err)
		refuse(err.Error())
		return
	}
	reason := w.serve(a, sess, pty, winCh)
	if reason != "" {
		_, _ = fmt.Fprintf(sess, "%s\r\n", reason)
	}
	_ = sess.Exit(0)
}

// serve runs the attendee's lab on sess until they quit or the session
// ends, and returns what to tell them after the screen is restored.
func (w *Workshop) serve(a *attendee, sess ssh.Session, pty ssh.Pty, winCh <-chan ssh.Window) string {
	// A newer session under the same name takes the lab over: the older
	// one is told, and ends, before this one builds its Model.
	gen := a.gen.Add(1)
	w.mu.Lock()
	old := a.conn
	w.mu.Unlock()
	if old != nil {
		old.kick(fmt.Sprintf("natslab: %s's lab was opened from another connection, so this one is closed.", a.name))
	}
	a.turn.Lock()
	defer a.turn.Unlock()
	if a.gen.Load() != gen {
		return fmt.Sprintf("natslab: %s's lab was opened from another connection, so this one is closed.", a.name)
	}
	if a.park != nil {
		a.park.Stop()
	}
	resumed := a.dep == nil && !a.joined.IsZero()
	if err := w.startServer(a); err != nil {
		w.logf(true, "%s's lab did not start: %v", a.name, err)
		return "natslab: your lab could not start; your instructor can see why."
	}

	c := &connection{a: a, started: time.Now()}
	w.mu.Lock()
	setup := []func(*lab.Model){}
	lesson := a.pending
	a.pending = ""
	banner := w.banner
	w.mu.Unlock()

	// The attendee's NO_COLOR (if their ssh sends it), not the host's.
	look := policy.LookFrom(sess.Environ())
	m := lab.New(lab.Options{
		Deployment:     a.dep,
		StoreDir:       a.dir,
		Context:        w.ctx,
		Lessons:        true,
		SessionOptions: sessionOptions(),
		Look:           look,
		Guest:          a.name,
	})
	defer m.Close()
	m.OnEvent(w.observe(a))
	if lesson == "" {
		// A returning attendee goes straight back into their lesson.
		lesson = currentLesson(a.dir)
	}
	if lesson != "" {
		setup = append(setup, lab.OpenLesson(lesson))
	}
	for _, f := range setup {
		f(m)
	}
	c.model = m

	f := newFrame(m, c, banner)
	opts := append([]tea.ProgramOption{
		tea.WithContext(sess.Context()),
		tea.WithoutSignalHandler(), // many programs in one process: signals are the workshop's
		tea.WithFPS(scenes.FramesPerSecond),
		tea.WithWindowSize(pty.Window.Width, pty.Window.Height),
	}, bm.MakeOptions(sess)...)
	opts = append(opts, look.ProgramOptions()...)
	c.program = tea.NewProgram(f, opts...)

	w.mu.Lock()
	if w.closed {
		// Close kicked the connections it saw; this one came too late.
		w.mu.Unlock()
		return "natslab: the workshop has ended. Thank you for coming!"
	}
	a.conn = c
	a.from = host(sess.RemoteAddr())
	a.parked = false
	if a.joined.IsZero() {
		a.joined = time.Now()
		w.mu.Unlock()
		w.logf(false, "%s joined from %s", a.name, a.from)
	} else {
		w.mu.Unlock()
		switch {
		case old != nil:
			w.logf(false, "%s connected again (from %s) while connected: the newer connection has the lab, the older was closed", a.name, a.from)
		case resumed:
			w.logf(false, "%s is back (from %s): their lab was parked and runs again", a.name, a.from)
		default:
			w.logf(false, "%s is back (from %s)", a.name, a.from)
		}
	}

	// Window changes come on a channel that closes when the session ends:
	// a range loop ends with it (wish's own loop would spin on it).
	go func() {
		for win := range winCh {
			c.program.Send(tea.WindowSizeMsg{Width: win.Width, Height: win.Height})
		}
	}()
	_, err := c.program.Run()

	w.mu.Lock()
	if a.conn == c {
		a.conn = nil
		a.left = time.Now()
	}
	w.changedLocked()
	w.mu.Unlock()
	reason := ""
	if r := c.reason.Load(); r != nil {
		reason = *r
	}
	switch {
	case err != nil && !errors.Is(err, tea.ErrProgramKilled) && !errors.Is(err, io.EOF) && sess.Context().Err() == nil:
		w.logf(true, "%s's screen failed: %v", a.name, err)
	case reason == "":
		w.logf(false, "%s left", a.name)
	}
	w.parkLater(a)
	return reason
}

// parkLater stops a's server once they have been away for ParkAfter.
func (w *Workshop) parkLater(a *attendee) {
	a.park = time.AfterFunc(w.opts.ParkAfter, func() {
		if !a.turn.TryLock() {
			return // a session has the lab again
		}
		defer a.turn.Unlock()
		w.mu.Lock()
		away := a.conn == nil && !a.parked && !w.closed
		w.mu.Unlock()
		if !away || a.dep == nil {
			return
		}
		w.stopServer(a)
		w.mu.Lock()
		a.parked = true
		w.mu.Unlock()
		w.logf(false, "%s's lab is parked (away %s): it runs again when they return", a.name, w.opts.ParkAfter.Round(time.Second))
	})
}
