// Package realcli runs the real nats CLI — natscli v0.5.0's own cli package,
// built on a fisk application exactly as natscli's nats/main.go builds it —
// in a child process of natslab.
//
// The real CLI keeps its options in package variables and writes to
// os.Stdout and os.Stderr, so it cannot share the lab's process: natslab
// re-executes itself with ChildArg, and main routes that to Main before any
// flag of its own is parsed. Start runs such a child: pointed at the lab's
// broker through the environment (never the command line), with a home of
// its own inside the lab's store so the user's contexts and NATS_*
// variables stay out, and stopped — or killed — with the lab.
//
// Model gives the real CLI's grammar (commands, flags, help) in the lab's
// own process, for routing and completion, without running anything; and
// Answer prints, in the lab's process too, what the real CLI prints for a
// line it answers from its grammar alone: its help, or its refusal of a
// line its parser rejects.
//
// realcli must not import the rest of natslab: the child runs only this.
package realcli
