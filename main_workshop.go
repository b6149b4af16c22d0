package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"natslab/broker"
	"natslab/lab/policy"
	"natslab/lab/workshop"
)

// notForWorkshop says, of each flag of the lab's that a workshop has no use
// for, what to do instead.
var notForWorkshop = map[string]string{
	"lesson":    "open LESSON at the workshop's prompt opens a lesson for everyone",
	"jetstream": "every lab starts with JetStream on, and each lesson sets it as it needs",
	"creds":     "--creds goes with --server, and every workshop lab runs its own server",
	"speed":     "--speed is natslab demo's",
	"explain":   "--explain is natslab run's",
}

// runWorkshop wires `natslab workshop`: the labs live under --store (by
// default the workshop folder of the usual store), one folder per attendee.
func runWorkshop(ctx context.Context, cfg config, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		return fail(stderr, fmt.Errorf("workshop takes no arguments, got %q (flags: --ssh, --room, --store, --max, --attendee-urls)", strings.Join(args, " ")))
	}
	b := cfg.broker
	switch {
	case b.Server != "":
		return fail(stderr, errors.New("every workshop lab runs its own server: leave out --server"))
	case b.Cluster > 1:
		return fail(stderr, errors.New("workshop labs run one server each: leave out --cluster"))
	case b.Listen != "" || b.Token != "" || b.User != "" || b.Password != "":
		return fail(stderr, errors.New("attendees reach their labs over SSH only: leave out --listen, --token, --user and --password (--ssh and --room say where and with which code)"))
	case cfg.max < 1:
		return fail(stderr, fmt.Errorf("--max %d: give the most attendees, 1 or more", cfg.max))
	}
	for _, f := range []string{"lesson", "jetstream", "creds", "speed", "explain"} {
		if cfg.given[f] {
			return fail(stderr, fmt.Errorf("workshop takes --ssh, --room, --store, --max and --attendee-urls, not --%s: %s", f, notForWorkshop[f]))
		}
	}
	store := b.Store
	if store == "" {
		store = filepath.Join(broker.DefaultStoreDir(), "workshop")
	}
	return workshop.Main(ctx, workshop.Options{SSH: cfg.ssh, Room: cfg.room, Store: store, Max: cfg.max, AttendeeURLs: cfg.attendeeURLs, Policy: policy.Default(os.Environ()), Look: policy.LookFrom(os.Environ())}, stdin, stdout, stderr)
}
