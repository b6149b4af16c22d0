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
package episode
