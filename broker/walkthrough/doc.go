// Package walkthrough holds differential tests only: walkthroughs from the
// NATS docs and natscli's README, run line by line through the real CLI
// (the pinned `nats`, one process per line) and through `natslab run`,
// against the same kind of server, compared once normalised
// (brokertest.CompareScript). A failure names the line that differs.
package walkthrough
