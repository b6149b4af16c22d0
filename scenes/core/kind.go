package core

import (
	"fmt"

	"natslab/scenes"
	"natslab/scenes/kit"
)

// Kind is which of the three pictures a scene draws. They share the
// driver, the fan-out from the server to the subscribers, the controls;
// they differ in what each subscriber's row says.
type Kind int

const (
	// Hello: publisher, server, the subscribers there are right now, a
	// count each; a message nobody listens to fades at the server.
	Hello Kind = iota
	// Wildcards: each subscriber's filter lined up token by token under
	// the subject just published, where it matched and where it failed.
	Wildcards
	// Queues: subscribers by queue group, each message dealt to one member
	// of each group; a second group is a second copy.
	Queues
)

type kindInfo struct {
	name    string // the scene's name, as the episodes use it
	summary string
	watch   string // what the scene watches until told otherwise
	body    func(n uint64) string
}

var kinds = [...]kindInfo{
	Hello: {
		name:    "hello",
		summary: "Publisher, server and the subscribers there are right now; a message nobody listens to fades at the server",
		watch:   "greet",
		body:    func(n uint64) string { return fmt.Sprintf("Hello NATS! #%d", n) },
	},
	Wildcards: {
		name:    "wildcards",
		summary: "Each subscription's filter against each published subject, token by token: where * and > match, and where not",
		watch:   "orders.>",
		body:    func(n uint64) string { return fmt.Sprintf("order %d", n) },
	},
	Queues: {
		name:    "queue-groups",
		summary: "Queue groups: each message goes to one member of each group; a second group is a second copy",
		watch:   "tasks",
		body:    func(n uint64) string { return fmt.Sprintf("task %d", n) },
	},
}

func (k Kind) info() kindInfo { return kinds[k] }

// spec is what the lab knows of the kind's scene.
func (k Kind) spec() kit.Spec {
	return kit.Spec{Name: k.info().name, Summary: k.info().summary, Keys: k.keys(), Queue: 512}
}

func init() {
	for k := range kinds {
		kind := Kind(k)
		kit.Register(kind.spec(), func(env scenes.Env) (*Scene, error) { return New(env, kind) })
	}
}

// countsOnLanding says whether the scene's counts tick as the messages
// drawn on their way land (hello, queue-groups: the story is a message
// travelling to who gets it). The wildcards scene's story is the match,
// drawn token by token after the publish reaches the server; a count
// held back for that would trail the subscriber's own output by a second,
// so there the counts are the server's the moment the scene hears of them.
func (k Kind) countsOnLanding() bool { return k != Wildcards }

// titles are the captions over the scene, the fullest first.
func (k Kind) titles(watch string) []string {
	switch k {
	case Wildcards:
		return []string{"Subjects and wildcards: each filter against " + watch + ", token by token", "Wildcards: each filter against " + watch, "Wildcards: matching " + watch, "Wildcards"}
	case Queues:
		return []string{"Queue groups on " + watch + ": one member of each group gets each message", "Queue groups on " + watch, "Queue groups"}
	}
	return []string{"Hello NATS: who hears a message on " + watch, "Hello NATS: who hears " + watch, "Hello NATS"}
}
