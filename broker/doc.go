// Package broker runs the NATS deployment the lab talks to: a real nats-server
// embedded in this process (JetStream, a file store in a real directory, a
// loopback listener for real clients), or an existing deployment reached by URL.
//
// Everything above this package talks NATS through a Deployment and never needs
// to know which kind it has: what only makes sense for the embedded server
// (restarting it, switching JetStream, its log, its connection list through a
// Monitor) is asked of the Deployment too, and an external deployment answers
// ErrNotEmbedded or nothing. Beyond Start, only tests use a *Server as such.
//
// It owns the embedded server and cluster (Server), the external deployment
// (External) and what both answer (Deployment). It imports nothing of natslab:
// broker/... is the layer every other builds on and never imports lab, scenes
// or assets; the command language (broker/command) sits on it, not in it.
package broker
