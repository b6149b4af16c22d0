package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"natslab/broker"
	"natslab/lab/demo"
	"natslab/lab/policy"
)

// runDemo wires `natslab demo`: its own embedded server (on a temporary
// store unless --store is given, so a running lab's store is neither
// locked nor touched), listening where --listen says so a real nats CLI
// can join in.
func runDemo(ctx context.Context, cfg config, args []string, stderr io.Writer) int {
	if len(args) > 0 {
		return fail(stderr, fmt.Errorf("demo takes no arguments, got %q (flags: --speed, --store, --listen)", strings.Join(args, " ")))
	}
	if cfg.speed <= 0 || math.IsInf(cfg.speed, 0) || math.IsNaN(cfg.speed) {
		return fail(stderr, fmt.Errorf("--speed %g: give a number above 0 (2 plays twice as fast, 0.5 half as fast)", cfg.speed))
	}
	if err := demo.CheckTerminal(os.Stdin, os.Stdout); err != nil {
		return fail(stderr, err)
	}
	bc := cfg.broker
	if !bc.JetStream {
		return fail(stderr, errors.New("the demo's second half is JetStream: leave out --jetstream=false"))
	}
	if bc.Server == "" && bc.Store == "" {
		dir, err := os.MkdirTemp("", "natslab-demo-")
		if err != nil {
			return fail(stderr, fmt.Errorf("cannot make a store for the demo: %w (pass --store DIR)", err))
		}
		defer os.RemoveAll(dir)
		bc.Store = dir
	}
	dep, err := broker.Open(bc)
	if err != nil {
		return fail(stderr, err)
	}
	defer dep.Close()
	ctx, stop := context.WithCancel(ctx)
	undone := policy.Default(os.Environ()).Apply(ctx)
	defer func() { stop(); <-undone }()
	if err := demo.Run(ctx, dep, demo.Options{Speed: cfg.speed, Look: policy.LookFrom(os.Environ())}); err != nil {
		return fail(stderr, err)
	}
	return 0
}
