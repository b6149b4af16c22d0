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

// runWorkshop wires `natslab workshop`: the labs live under --store (by
// default the workshop folder of the usual store), one folder per attendee.
func runWorkshop(ctx context.Context, cfg config, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		return fail(stderr, fmt.Errorf("workshop takes no arguments, got %q (flags: --ssh, --room, --store, --max)", strings.Join(args, " ")))
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
	store := b.Store
	if store == "" {
		store = filepath.Join(broker.DefaultStoreDir(), "workshop")
	}
	return workshop.Main(ctx, workshop.Options{SSH: cfg.ssh, Room: cfg.room, Store: store, Max: cfg.max, AttendeeURLs: cfg.attendeeURLs, Policy: policy.Default(os.Environ()), Look: policy.LookFrom(os.Environ())}, stdin, stdout, stderr)
}
