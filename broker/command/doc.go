// Package command is the nats command language: the real nats CLI's commands
// (natscli v0.5.0), with its grammar and its output, run against the lab's
// deployment, plus a few lab verbs (nats-server, restart, reset, jobs, stop).
//
// It has no UI. A Session runs one line at a time and writes what the real
// CLI would: bodies and tables to the call's Out, status lines to its Err.
// The lab's command pane and `natslab run` both sit on top of it.
//
// One file per command, as in natscli's cli/ package, each following the
// real CLI's action step for step: its flags (a part of the real CLI's,
// parsed with fisk as natscli parses them), its checks, its output and its
// errors, byte for byte. The lab's explanations are notes apart (Notef,
// explain). Help, and a line the lab's grammar refuses, get the real CLI's
// own words (broker/realcli): its help and its refusals rendered from its
// grammar, or its code run in a child for a line it would run.
//
// It owns the command language and its sessions and jobs; it imports broker
// and the standalone broker/text and broker/realcli, never lab, scenes or
// assets.
package command
