// Package episode is the lab's curriculum: the episodes (lessons) embedded
// in assets/episodes, each a Markdown text and a list of steps whose checks
// read the broker's real state — streams and their messages, consumers and
// their ack floors, KV keys, what subscribers received, whether JetStream
// is on — never the text the learner typed.
//
// The lab holds a Tutor: it opens lessons (each in its own store area of
// the embedded server, from a known starting state), evaluates the open one
// after every command and on a slow poll, records progress in the store
// directory, and offers the pane's verbs (lessons, lesson, next, prev,
// hint). RunScript is `natslab run --lesson ID FILE`. No Bubble Tea here.
//
// Wiring it into the lab:
//
//	cat := episode.MustLoad()
//	prog, err := episode.OpenProgress(storeDir) // a *CorruptError: show it, carry on
//	var tutor *episode.Tutor
//	sess := command.NewSession(dep, command.WithObserver(func(ev command.Event) {
//		tutor.Observe(ev) // and the pane's own observer
//	}))
//	tutor = episode.NewTutor(cat, episode.Env{Deployment: dep, Session: sess, Progress: prog}, episode.ListOptions{})
//	for _, v := range tutor.Verbs() { sess.AddVerb(v) }
//	tutor.OnChange(func() { program.Send(lessonChanged{}) }) // any goroutine
//	go tutor.Watch(ctx)                                       // events, restarts, a 1s poll
//	tutor.Open(ctx, id)                                       // natslab --lesson ID
//
// On lessonChanged the pane reads tutor.Lesson() (nil: the sandbox), its
// Episode() (Title, Text (Markdown), Scene, Steps[i].Try and Hint) and its
// Report() (Steps with Done, and Why for the step to do next). Evaluate
// costs a few hundred microseconds: call it off the UI goroutine.
//
// It owns the curriculum: episodes, checks, progress, the tutor. It imports
// broker/..., assets and nothing of the screen: never lab, lab/demo,
// lab/workshop or scenes (its tests open scenes to judge lessons with them).
package episode
