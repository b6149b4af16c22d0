package episode

import (
	"context"
	"fmt"
	"io"
	"strings"

	"natslab/broker/command"
)

// Verbs are the lesson commands of the command pane, for the lab to add to
// its session (Session.AddVerb): lessons, lesson [ID|reset|leave], next,
// prev, hint, and sleep.
func (t *Tutor) Verbs() []command.Verb {
	vs := []command.Verb{
		{Name: "lessons", Usage: "lessons", Summary: "List the lessons and how far you got in each", Run: t.runLessons},
		// The verbs that open a lesson take no job number, so its setup's
		// jobs are numbered alike however it was opened.
		{Name: "lesson", Usage: "lesson [ID|reset [--force]|leave]", Summary: "Show the open lesson's steps, open lesson ID (or its number in lessons), start it over (reset, asks first) or go back to the sandbox (leave)", Run: t.runLesson, Complete: t.completeLesson, Unnumbered: true},
		{Name: "next", Usage: "next", Summary: "Open the next lesson", Run: func(c *command.Call, args []string) error { return t.runStep(c, args, +1) }, Unnumbered: true},
		{Name: "prev", Usage: "prev", Summary: "Open the previous lesson", Run: func(c *command.Call, args []string) error { return t.runStep(c, args, -1) }, Unnumbered: true},
		{Name: "hint", Usage: "hint", Summary: "Explain the step to do next and what to type", Run: t.runHint},
	}
	return append(vs, ScriptVerbs()...)
}

// lessonWordMeant is reset or leave when arg is no lesson and a typo of
// that word (lesson reste) more than of any lesson's ID; else "".
func lessonWordMeant(cat *Catalog, arg string) string {
	if _, ok := cat.Get(arg); ok {
		return ""
	}
	nearest := 1 << 30
	for _, id := range cat.IDs() {
		nearest = min(nearest, distance(arg, id))
	}
	for _, w := range []string{"reset", "leave"} {
		if d := distance(arg, w); d <= 2 && d < nearest {
			return w
		}
	}
	return ""
}

// completeLesson offers the lesson IDs, reset and leave after `lesson`.
func (t *Tutor) completeLesson(args []string) []string {
	if len(args) > 0 {
		return nil
	}
	return append(t.cat.IDs(), "reset", "leave")
}

func (t *Tutor) runLessons(c *command.Call, args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("lessons takes no arguments; to open one: lesson ID")
	}
	o := t.list
	o.InLab = true
	if l := t.Lesson(); l != nil {
		o.Current = l.ep.ID
	}
	WriteList(c.Out, t.cat, t.env.Progress, o)
	return nil
}

func (t *Tutor) runLesson(c *command.Call, args []string) error {
	ctx := keepJob(c.Ctx, c.Job)
	switch {
	case len(args) > 1 && !(args[0] == "reset" && len(args) == 2):
		return fmt.Errorf("lesson takes one word: an ID (lessons lists them), reset or leave")
	case len(args) == 0:
		l := t.Lesson()
		if l == nil {
			return errNoLesson
		}
		WriteStatus(c.Out, l.ep, l.Evaluate(ctx))
		return nil
	case args[0] == "reset":
		return t.runReset(c, ctx, args[1:])
	case args[0] == "leave" || args[0] == "sandbox":
		if t.Lesson() == nil {
			fmt.Fprintln(c.Out, "You are in the sandbox already.")
			return nil
		}
		if err := t.Leave(ctx); err != nil {
			return err
		}
		fmt.Fprintln(c.Out, "Back in the sandbox, as you left it. Your lesson progress is kept.")
		return nil
	}
	if w := lessonWordMeant(t.cat, args[0]); w != "" {
		return fmt.Errorf("there is no lesson %q: did you mean lesson %s?", args[0], w)
	}
	l, err := t.Open(ctx, args[0])
	if err != nil {
		return err
	}
	c.Notef("%s", l.StoppedNote())
	WriteStatus(c.Out, l.ep, l.Report())
	return nil
}

// runReset is lesson reset [--force]: it asks first, as reset does, since
// the lesson's streams and the steps done go back to the start.
func (t *Tutor) runReset(c *command.Call, ctx context.Context, args []string) error {
	force := false
	for _, a := range args {
		if a != "--force" && a != "-f" {
			return fmt.Errorf("lesson reset takes only --force, not %q", a)
		}
		force = true
	}
	l := t.Lesson()
	if l == nil {
		return errNoLesson
	}
	done := t.env.Progress != nil && t.env.Progress.Get(l.ep.ID).Done
	if !force {
		q := fmt.Sprintf("Start lesson %s over? Its streams, consumers and jobs go back to how it starts, and its steps are undone.", l.ep.ID)
		yes, asked := c.Confirm(q)
		if !asked {
			return fmt.Errorf("lesson reset starts lesson %s over, erasing its streams: lesson reset --force to go ahead", l.ep.ID)
		}
		if !yes {
			fmt.Fprintf(c.Out, "Lesson %s is as it was.\n", l.ep.ID)
			return nil
		}
	}
	l, err := t.Reset(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.Out, "Lesson %s is back at its starting state.\n", l.ep.ID)
	if done {
		fmt.Fprintln(c.Out, "lessons still marks it done (you finished it once), beside how far you get this time.")
	}
	fmt.Fprintln(c.Out)
	WriteStatus(c.Out, l.ep, l.Evaluate(ctx))
	return nil
}

func (t *Tutor) runStep(c *command.Call, args []string, dir int) error {
	if len(args) > 0 {
		return fmt.Errorf("next and prev take no arguments; to open a lesson: lesson ID")
	}
	l, err := t.Step(keepJob(c.Ctx, c.Job), dir)
	if err != nil {
		return err
	}
	c.Notef("%s", l.StoppedNote())
	WriteStatus(c.Out, l.ep, l.Report())
	return nil
}

func (t *Tutor) runHint(c *command.Call, args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("hint takes no arguments")
	}
	l := t.Lesson()
	if l == nil {
		return errNoLesson
	}
	t.Evaluate(c.Ctx)
	r, _ := l.TakeHint()
	WriteHint(c.Out, l.ep, r)
	go t.changed() // the pane shows the stage too
	return nil
}

// WriteStatus prints a lesson's steps with marks: what `lesson` shows.
func WriteStatus(w io.Writer, ep *Episode, r Report) {
	fmt.Fprintf(w, "Lesson %d · %s · %s\n", ep.Number, ep.ID, ep.Title)
	for i, st := range r.Steps {
		switch {
		case st.Done:
			fmt.Fprintf(w, "  ✓ %s\n", st.Title)
		case i == r.Current:
			fmt.Fprintf(w, "  ▸ %s\n", st.Title)
			for _, try := range ep.Steps[i].Try {
				fmt.Fprintf(w, "      try: %s\n", try)
			}
			if st.Why != "" {
				fmt.Fprintf(w, "      not yet: %s\n", st.Why)
			}
		default:
			fmt.Fprintf(w, "    %s\n", st.Title)
		}
	}
	if r.Complete {
		fmt.Fprintf(w, "All %d steps done: lesson complete. next opens the next lesson.\n", len(r.Steps))
		return
	}
	fmt.Fprintf(w, "%d/%d steps done · hint explains the next · lesson reset starts over\n", r.Done, len(r.Steps))
}

// WriteHint prints the hint stages shown so far for the step to do next
// (the newest last), what the step still lacks, and the commands to try.
func WriteHint(w io.Writer, ep *Episode, r Report) {
	if r.Complete {
		fmt.Fprintln(w, "Every step of this lesson is done: next opens the next lesson.")
		return
	}
	st, state := ep.Steps[r.Current], r.Steps[r.Current]
	fmt.Fprintf(w, "Step %d: %s\n", r.Current+1, st.Title)
	for i, h := range state.Hints {
		h = strings.Join(strings.Fields(h), " ")
		if state.Stages > 1 {
			fmt.Fprintf(w, "Hint %d of %d: %s\n", i+1, state.Stages, h)
			continue
		}
		fmt.Fprintln(w, h)
	}
	if state.Why != "" {
		fmt.Fprintf(w, "Not yet: %s\n", state.Why)
	}
	fmt.Fprintln(w, "Try:")
	for _, try := range st.Try {
		fmt.Fprintf(w, "  %s\n", try)
	}
	// "more", never "the answer": a last stage is often help for a wrong
	// turn (Took it without --no-ack? …), not the step's answer.
	if len(state.Hints) < state.Stages {
		fmt.Fprintln(w, "(hint again for more)")
	}
}
