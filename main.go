// Command natslab is a terminal learning lab for NATS and JetStream: a real
// nats-server runs inside it, and the real nats CLI's commands run against it.
//
// main only reads flags and wires the packages together.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/charmbracelet/x/term"

	"natslab/broker"
	"natslab/broker/command"
	"natslab/broker/realcli"
	"natslab/broker/script"
	"natslab/broker/text"
	"natslab/lab"
	"natslab/lab/episode"
	"natslab/lab/policy"
	_ "natslab/lab/policy/prefault" // start-up's memory, mapped on a spare core
	"natslab/lab/policy/startup"
	"natslab/lab/workshop"
)

const usage = `natslab: a terminal learning lab for NATS and JetStream

Usage:
  natslab [flags]                 open the lab
  natslab --lesson ID             open the lab at a lesson (natslab lessons lists them)
  natslab serve [flags]           run the lab's NATS server alone, like nats-server -js
  natslab run [flags] [FILE|-]    run nats commands from a file (or stdin), one per line
                                  (--explain adds the lab's notes)
  natslab run --lesson ID FILE    run a file in a lesson, then say which of its steps are done
  natslab lessons                 list the lessons and how far you got in each
  natslab demo [--speed X]        play the Core-vs-JetStream story for a room, in a loop
  natslab workshop [--ssh HOST:PORT] [--room CODE] [--store DIR] [--max N]
                                  every attendee their own lab over SSH, and your view of the room
  natslab --version               which natslab this is, and the nats-server and natscli it carries

Flags:
`

type config struct {
	broker  broker.Config
	lesson  string  // --lesson ID
	speed   float64 // --speed, for demo
	ssh     string  // --ssh, for workshop
	room    string  // --room, for workshop
	max     int     // --max, for workshop
	explain bool    // --explain, for run: print the lab's notes too
	version bool    // --version

	attendeeURLs bool // --attendee-urls, for workshop

	given map[string]bool // the flags on the command line, by name
}

func main() {
	if realcli.IsChild(os.Args) {
		startup.Resume()
	}
	realcli.RunIfChild()
	ownProcess = true
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// ownProcess is set by main: run's process-wide runtime policies apply to
// natslab's own process, never to a test's that calls run.
var ownProcess bool

// applyProcessPolicy ends the collector's pause of start-up (see
// lab/policy/startup): a script's run keeps it off until the heap nears
// natslab's memory limit (policy.Script); everything else gets the user's
// setting back at once. The lab, the demo and the workshop then apply
// their own policy.
func applyProcessPolicy(ctx context.Context, sub string) {
	if sub != "run" {
		startup.Resume()
		return
	}
	p := policy.Script(os.Environ())
	if !p.CollectNearLimit {
		startup.Resume()
	}
	p.Apply(ctx)
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var cfg config
	fs := flag.NewFlagSet("natslab", flag.ContinueOnError)
	// The flag package prints the whole usage after a mistake; one line
	// that names it is clearer. --help prints the usage, to stdout.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.StringVar(&cfg.broker.Store, "store", "", "store `DIR` for streams, progress and history (default "+broker.DefaultStoreDir()+")")
	fs.StringVar(&cfg.broker.Listen, "listen", "", "where real nats clients connect: `HOST:PORT`, or none (default "+broker.DefaultListen+", or a free port if it is busy)")
	fs.BoolVar(&cfg.broker.JetStream, "jetstream", true, "run the embedded server with JetStream (--jetstream=false: Core NATS alone)")
	fs.StringVar(&cfg.broker.Server, "server", "", "use an existing NATS deployment at `URL` instead of the embedded server")
	fs.StringVar(&cfg.broker.Creds, "creds", "", "credentials `FILE` for --server")
	fs.StringVar(&cfg.broker.User, "user", "", "the user `NAME` clients must present (with --server: the user to connect as)")
	fs.StringVar(&cfg.broker.Password, "password", "", "the password `SECRET` that goes with --user")
	fs.StringVar(&cfg.broker.Token, "token", "", "the token `SECRET` clients must present (with --server: the token to connect with)")
	fs.IntVar(&cfg.broker.Cluster, "cluster", 1, "`N` JetStream servers inside natslab: 3 for a three-node cluster (n1, n2, n3), or 1, a single server (no other size)")
	fs.StringVar(&cfg.lesson, "lesson", "", "open the lesson `ID`, or its number in natslab lessons; with run, check a script against it")
	fs.Float64Var(&cfg.speed, "speed", 1, "with demo: how fast the story plays, `X` times (2 is twice as fast, 0.5 half)")
	fs.BoolVar(&cfg.explain, "explain", false, "with run: print the lab's notes too (to stderr, each line starting with "+strings.TrimSpace(command.NoteMarker)+"); without it run prints what the real nats CLI prints")

	fs.StringVar(&cfg.ssh, "ssh", "", "with workshop: where attendees connect, `HOST:PORT` (default "+workshop.DefaultSSH+"; 0.0.0.0:2222 for the room)")
	fs.StringVar(&cfg.room, "room", "", "with workshop: the room `CODE` attendees type (made up for you beyond this machine)")
	fs.IntVar(&cfg.max, "max", workshop.DefaultMax, "with workshop: the most attendees, `N` labs")
	fs.BoolVar(&cfg.version, "version", false, "print which natslab this is, and the nats-server and natscli it carries")
	fs.BoolVar(&cfg.attendeeURLs, "attendee-urls", false, "with workshop: each lab's server also listens on loopback, with a token of its own, so the real nats CLI's commands work in the labs")

	positional, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(stdout, fs)
			return 0
		}
		fmt.Fprintf(stderr, "natslab: %s (see natslab --help)\n", broker.Redact(flagError(err)))
		return 2
	}
	cfg.given = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { cfg.given[f.Name] = true })
	if err := refuseBlank(fs); err != nil {
		fmt.Fprintf(stderr, "natslab: %v (see natslab --help)\n", err)
		return 2
	}
	sub := ""
	if len(positional) > 0 {
		sub, positional = positional[0], positional[1:]
	}
	switch {
	case sub == "help":
		printUsage(stdout, fs)
		return 0
	case cfg.version || sub == "version":
		fmt.Fprintln(stdout, broker.Version())
		return 0
	}
	ctx, stop, caught := catchStopSignals(context.Background())
	if ownProcess {
		// The process exits as run returns: it keeps the signals, rather
		// than wait on the runtime's signal thread to give back each one.
		applyProcessPolicy(ctx, sub)
	} else {
		defer stop() // a test's run gives them back
	}
	if sub != "run" {
		// A script waits only once its server is up (runScript, runLesson).
		<-caught
	}

	switch sub {
	case "serve":
		if len(positional) > 0 {
			return fail(stderr, fmt.Errorf("serve takes no arguments, got %q", strings.Join(positional, " ")))
		}
		if cfg.broker.Server != "" {
			return fail(stderr, errors.New("serve runs the lab's own server; --server points elsewhere: leave it out"))
		}
		o := cfg.broker
		err := broker.Serve(ctx, broker.Options{StoreDir: o.StoreDir(), JetStream: o.JetStream, Listen: o.Listen, Token: o.Token, User: o.User, Password: o.Password, Cluster: o.Cluster}, stderr)
		if err != nil {
			return fail(stderr, err)
		}
		return 0
	case "run":
		if cfg.lesson != "" {
			return runLesson(ctx, caught, cfg, positional, stdin, stdout, stderr)
		}
		return runScript(ctx, caught, cfg, positional, stdin, stdout, stderr)
	case "lessons":
		return listLessons(cfg, positional, stdout, stderr)
	case "demo":
		return runDemo(ctx, cfg, positional, stderr)
	case "workshop":
		return runWorkshop(ctx, cfg, positional, stdin, stdout, stderr)
	case "":
		o := lab.MainOptions{Broker: cfg.broker, Policy: policy.Default(os.Environ()), Look: policy.LookFrom(os.Environ()), Stdin: stdin, Stdout: stdout, Stderr: stderr}
		if cfg.lesson != "" {
			if err := checkLesson(cfg); err != nil {
				fmt.Fprintf(stderr, "natslab: %v\n", err)
				return 2
			}
			o.Setup = append(o.Setup, lab.OpenLesson(cfg.lesson))
		}
		return lab.Main(ctx, o)
	default:
		return fail(stderr, fmt.Errorf("unknown command %q: natslab knows serve, run, lessons, demo, workshop and version (see natslab --help)", sub))
	}
}

func runScript(ctx context.Context, caught <-chan struct{}, cfg config, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 1 {
		return fail(stderr, fmt.Errorf("run takes one file (or - for stdin), got %d arguments", len(args)))
	}
	in := stdin
	name := "-"
	if len(args) == 1 {
		name = args[0]
	}
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return fail(stderr, fmt.Errorf("cannot read the script: %w", err))
		}
		defer f.Close()
		in = f
	}
	dep, err := broker.Open(cfg.broker)
	if err != nil {
		return fail(stderr, err)
	}
	defer dep.Close()
	<-caught
	s := command.NewSession(dep, command.WithCLIHome(command.CLIHome(cfg.broker.StoreDir())), command.WithHelpWidth(helpWidth(stdout)))
	defer s.Close()
	st := command.Streams{Out: stdout, Err: stderr}
	if cfg.explain {
		st.Note = command.MarkNotes(stderr)
	}
	// Storage trouble the server logged (a stream left out at start, a
	// full disk) is said on stderr, and the run fails: its output alone
	// would look as if all were well.
	storage := broker.WatchStorage(dep.Log(), "run natslab again")
	troubled := sayStorageTrouble(storage, stderr)
	res, err := script.Run(ctx, s, in, st)
	troubled = sayStorageTrouble(storage, stderr) || troubled
	if err != nil {
		return fail(stderr, err)
	}
	if res.Stopped {
		unrun := fmt.Sprintf("no line after line %d ran", res.StoppedAt)
		if res.StoppedAt == 0 {
			unrun = "none of its lines ran"
		}
		fmt.Fprintf(stderr, "natslab: %v: the script stopped; %s\n", context.Cause(ctx), unrun)
		return 1
	}
	if res.Failed > 0 || troubled {
		return 1
	}
	return 0
}

// sayStorageTrouble writes one line for each storage problem logged since
// the last look; it reports whether there was any.
func sayStorageTrouble(w *broker.TroubleWatch, stderr io.Writer) bool {
	ts := w.New()
	for _, t := range ts {
		fmt.Fprintf(stderr, "natslab: %s\n", t.Line)
	}
	return len(ts) > 0
}

// blankMeans says, for each flag whose value cannot be blank, what to give
// instead. A blank value is a slip (an unset shell variable, quotes around
// nothing): taking it as "not given" would start the lab somewhere else, or
// open it to anyone with an empty secret.
var blankMeans = map[string]string{
	"store":    "give a directory, or leave --store out for " + broker.DefaultStoreDir(),
	"token":    "give the token clients must present, or leave --token out",
	"user":     "give a user name, or leave --user out",
	"password": "give the password, or leave --user and --password out",
	"server":   "give a URL such as nats://127.0.0.1:4222, or leave --server out for the lab's own server",
	"creds":    "give a credentials file, or leave --creds out",
	"lesson":   "give a lesson ID (natslab lessons lists them), or leave --lesson out",
}

// refuseBlank refuses a flag given a blank value where one means nothing.
func refuseBlank(fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if what, ok := blankMeans[f.Name]; ok && err == nil && strings.TrimSpace(f.Value.String()) == "" {
			err = fmt.Errorf("--%s is blank: %s", f.Name, what)
		}
	})
	return err
}

// stopSignals end natslab the way quit does, whatever it runs: Ctrl-C,
// SIGTERM (kill, a service manager) and SIGHUP (the terminal closed). The
// lab and the demo give the terminal back, the server shuts down and
// releases the store, and the exit status is 0. natslab serve has no
// configuration file to reload on a hangup, as nats-server does, so it
// stops too; started under nohup (SIGHUP ignored), it keeps ignoring it.
func stopSignals() []os.Signal {
	sigs := []os.Signal{os.Interrupt, syscall.SIGTERM}
	if !signal.Ignored(syscall.SIGHUP) {
		sigs = append(sigs, syscall.SIGHUP)
	}
	return sigs
}

// catchStopSignals is signal.NotifyContext for stopSignals, except that it
// returns at once and catches them from a moment later: caught is closed
// once they are. Asking for the first signal waits for a thread the Go
// runtime starts for signals; a script overlaps that wait with its
// server's start instead of waiting before it.
func catchStopSignals(parent context.Context) (ctx context.Context, stop func(), caught <-chan struct{}) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 1)
	done := make(chan struct{})
	go func() {
		signal.Notify(sigs, stopSignals()...)
		close(done)
		select {
		case sig := <-sigs:
			cancel(errors.New(sig.String())) // interrupt, terminated, hangup
		case <-ctx.Done():
		}
	}()
	stop = func() {
		cancel(nil)
		<-done
		signal.Stop(sigs)
	}
	return ctx, stop, done
}

// parseInterspersed lets flags come before or after the sub-command and
// its arguments, as people type them.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		if args[0] == "--" {
			return append(positional, args[1:]...), nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// flagError rewords the flag package's errors the way natslab speaks.
func flagError(err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return "unknown flag --" + strings.TrimPrefix(name, "-")
	}
	if rest, ok := strings.CutPrefix(msg, "invalid value "); ok {
		if value, flagPart, ok := strings.Cut(rest, " for flag -"); ok {
			name, _, _ := strings.Cut(flagPart, ":")
			return fmt.Sprintf("--%s does not take %s", name, value)
		}
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return "--" + strings.TrimPrefix(name, "-") + " needs a value"
	}
	return msg
}

// printUsage is natslab --help: the usage, then every flag.
func printUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, usage)
	printFlags(w, fs)
}

// printFlags lists the flags the way the usage above spells them, with two
// dashes (the flag package's own list has one), each explanation wrapped
// under its flag.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		arg, says := flag.UnquoteUsage(f)
		if arg == "value" {
			arg = "" // a bool flag
		}
		fmt.Fprintf(w, "  --%s", f.Name)
		if arg != "" {
			fmt.Fprintf(w, " %s", arg)
		}
		fmt.Fprintln(w)
		if _, isBool := f.Value.(interface{ IsBoolFlag() bool }); !isBool && f.DefValue != "" && f.DefValue != "0" && !strings.Contains(says, "(default") {
			says += " (default " + f.DefValue + ")"
		}
		for _, l := range text.Wrap(says, 72) {
			fmt.Fprintf(w, "      %s\n", l)
		}
	})
}

// helpWidth is the width the real nats CLI would wrap its help at, run
// where natslab run is: fisk's rule, $COLUMNS, else the width of the
// terminal stdout is, else 80.
func helpWidth(stdout io.Writer) int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil {
		return n
	}
	if f, ok := stdout.(*os.File); ok && term.IsTerminal(f.Fd()) {
		if w, _, err := term.GetSize(f.Fd()); err == nil {
			return w
		}
	}
	return 80
}

// fail says what went wrong in one line, user info in any URL masked.
func fail(w io.Writer, err error) int {
	fmt.Fprintf(w, "natslab: %v\n", broker.RedactError(err))
	return 1
}

// runLesson is `natslab run --lesson ID FILE`: the script runs in the
// lesson's own store area, then each step says whether it is done. The exit
// status is 0 only when every step is.
func runLesson(ctx context.Context, caught <-chan struct{}, cfg config, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		return fail(stderr, fmt.Errorf("run --lesson %s takes one script file (or - for stdin), got %d arguments", cfg.lesson, len(args)))
	}
	cat, err := episode.Load()
	if err != nil {
		return fail(stderr, err)
	}
	if _, ok := cat.Get(cfg.lesson); !ok {
		return fail(stderr, cat.Unknown(cfg.lesson))
	}
	if cfg.broker.Server != "" {
		return fail(stderr, episode.ErrNotEmbedded)
	}
	in := stdin
	if args[0] != "-" {
		f, err := os.Open(args[0])
		if err != nil {
			return fail(stderr, fmt.Errorf("cannot read the script: %w", err))
		}
		defer f.Close()
		in = f
	}
	prog, err := episode.OpenProgress(cfg.broker.StoreDir())
	var damaged *episode.CorruptError
	if errors.As(err, &damaged) {
		fmt.Fprintf(stderr, "natslab: %v\n", err)
	} else if err != nil {
		return fail(stderr, err)
	}
	dep, err := broker.Open(cfg.broker)
	if err != nil {
		return fail(stderr, err)
	}
	defer dep.Close()
	<-caught
	opts := episode.HeadlessOptions{Deployment: dep, Progress: prog, Cluster: cfg.broker.Cluster, SessionOptions: []command.Option{command.WithHelpWidth(helpWidth(stdout))}}
	if cfg.explain {
		opts.Notes = command.MarkNotes(stderr)
	}
	rep, err := episode.RunScript(ctx, cat, cfg.lesson, opts, in, stdout, stderr)
	if err != nil {
		return fail(stderr, err)
	}
	if !rep.Complete {
		return 1
	}
	return 0
}

// checkLesson says, before the screen starts, why natslab --lesson ID
// cannot open that lesson: an unknown ID, a lesson that needs a cluster,
// or a deployment that is not the lab's own server.
func checkLesson(cfg config) error {
	cat, err := episode.Load()
	if err != nil {
		return err
	}
	ep, ok := cat.Get(cfg.lesson)
	switch {
	case !ok:
		return cat.UnknownListed(cfg.lesson)
	case cfg.broker.Server != "":
		return episode.ErrNotEmbedded
	case ep.Needs.Cluster > max(cfg.broker.Cluster, 1):
		return fmt.Errorf("lesson %s needs a %d-node cluster: natslab --cluster %d --lesson %s", ep.ID, ep.Needs.Cluster, ep.Needs.Cluster, ep.ID)
	}
	return nil
}

// listLessons is `natslab lessons`: every episode and its status, read from
// the progress file; no server starts.
func listLessons(cfg config, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		return fail(stderr, fmt.Errorf("lessons takes no arguments, got %q", strings.Join(args, " ")))
	}
	cat, err := episode.Load()
	if err != nil {
		return fail(stderr, err)
	}
	prog, err := episode.OpenProgress(cfg.broker.StoreDir())
	var damaged *episode.CorruptError
	if errors.As(err, &damaged) {
		fmt.Fprintf(stderr, "natslab: %v\n", err)
	} else if err != nil {
		return fail(stderr, err)
	}
	episode.WriteList(stdout, cat, prog, episode.ListOptions{Current: prog.Current(), Cluster: cfg.broker.Cluster})
	return 0
}
