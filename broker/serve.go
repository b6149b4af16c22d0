package broker

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// Serve runs the embedded server alone until ctx ends, the way `nats-server
// -js` would: the server's own log on w, then one line saying where to
// connect. It returns nil after a clean stop.
func Serve(ctx context.Context, opts Options, w io.Writer) error {
	if opts.Log == nil {
		opts.Log = NewLogBuffer(DefaultLogLines)
	}
	opts.Log.Tee(w)
	s, err := Start(opts)
	if err != nil {
		return err
	}
	defer s.Shutdown()
	if n := s.Notice(); n != "" {
		fmt.Fprintf(w, "natslab: %s\n", n)
	}
	fmt.Fprintf(w, "natslab: store %s\n", s.StoreDir())
	if s.Clustered() {
		fmt.Fprintf(w, "natslab: a JetStream cluster of %d nodes (%s) named %s, routed on loopback; meta leader %s\n", ClusterSize, strings.Join(NodeNames, ", "), ClusterName, s.MetaLeader())
	}
	if a := s.Access(); a.Local != "" {
		fmt.Fprintln(w, startupSummary(a))
	} else {
		fmt.Fprintln(w, "natslab is serving NATS in-process only (--listen none): nothing outside this process can connect")
	}
	// Storage trouble, logged above among the rest, gets a line of its own
	// (see StorageTrouble), from start-up on.
	trouble := WatchStorage(s.Log(), "restart natslab serve")
	for {
		changed := trouble.Changed()
		for _, t := range trouble.New() {
			fmt.Fprintf(w, "natslab: %s\n", t.Line)
		}
		select {
		case <-changed:
		case <-ctx.Done():
			fmt.Fprintln(w, "natslab: stopping")
			return nil
		}
	}
}
