// Package command is the nats command language: the real nats CLI's commands
// (natscli v0.5.0), with its grammar and its output, run against the lab's
// deployment, plus a few lab verbs (nats-server, restart, reset, jobs, stop).
//
// It has no UI. A Session runs one line at a time and writes what the real
// CLI would: bodies and tables to the call's Out, status lines to its Err.
// The lab's command pane and `natslab run` both sit on top of it.
//
// One file per command, as in natscli's cli/ package. Flags are parsed with
// fisk, the parser natscli itself uses, so spelling and parsing rules are the
// real CLI's; errors are rewritten into one clear line with a fix.
//
// It owns the command language and its sessions and jobs; it imports broker
// and the standalone broker/text, broker/realcli and broker/command/jsadmin,
// never lab, scenes or assets.
package command
