// Package demo is `natslab demo`: the Core-vs-JetStream story played
// unattended, in a loop, for a room. Core first (the app goes offline,
// what is published meanwhile is lost, nothing arrives when it is back),
// then JetStream (the app goes offline, pending climbs, the stream replays
// it on reconnect and pending drains to 0), each beat with a one-line
// caption. Space pauses, → steps, q quits; Options.Speed scales time.
//
// It is its own Bubble Tea program with its own root model: only a root
// model returns a tea.View.
//
// It imports scenes (the contrast scene), broker and lab/policy, never lab,
// lab/episode or lab/workshop.
package demo

import (
	"context"
	"errors"
	"io"
	"os"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"

	"natslab/broker"
	"natslab/lab/policy"
	"natslab/scenes"
)

// Options adjust the demo.
type Options struct {
	// Speed scales time: 2 plays twice as fast, 0.5 half as fast. 0 means 1.
	Speed float64
	// Clock drives the story and the animation; nil is the wall clock.
	Clock scenes.Clock
	// Input and Output are the terminal; nil means stdin and stdout.
	Input  io.Reader
	Output io.Writer
	// Look is the terminal's: colour or not (policy.LookFrom).
	Look policy.Look
}

// Run plays the demo on dep until the user quits or ctx ends. The process's
// policy (package policy) is the caller's to apply.
func Run(ctx context.Context, dep broker.Deployment, opts Options) error {
	if opts.Input == nil {
		opts.Input = os.Stdin
	}
	if opts.Output == nil {
		opts.Output = os.Stdout
	}
	if err := CheckTerminal(opts.Input, opts.Output); err != nil {
		return err
	}
	m, err := New(dep, opts)
	if err != nil {
		return err
	}
	defer m.Close()
	popts := append([]tea.ProgramOption{tea.WithContext(ctx), tea.WithInput(opts.Input), tea.WithOutput(opts.Output), tea.WithFPS(scenes.FramesPerSecond)}, opts.Look.ProgramOptions()...)
	p := tea.NewProgram(m, popts...)
	_, err = p.Run()
	if err != nil && ctx.Err() != nil && (errors.Is(err, tea.ErrProgramKilled) || errors.Is(err, context.Canceled)) {
		return nil // interrupted: a normal way to end a demo
	}
	return err
}

// CheckTerminal says whether the demo can draw on in and out, before
// anything is started for it.
func CheckTerminal(in io.Reader, out io.Writer) error {
	if !isTerminal(in) || !isTerminal(out) {
		return errors.New("the demo draws on a terminal, and this is not one: run natslab demo in a terminal window (or in tmux)")
	}
	return nil
}

func isTerminal(v any) bool {
	f, ok := v.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(f.Fd())
}
