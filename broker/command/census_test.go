package command_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"natslab/broker/brokertest"
	"natslab/broker/command"
	"natslab/broker/realcli"
)

// The census: every leaf command of natscli v0.5.0 (235, as `nats
// --help-long` lists them) runs in the lab. "Runs" means a real invocation
// with sample arguments, through a Session against a real embedded server,
// reaches the real command (the lab's own code or the real CLI's in a
// child) and prints what the pinned `nats` prints for the same line
// against the same kind of server, once normalised. The few the lab
// refuses are listed in censusRefused, each with why.
//
// Lines run family by family: a family's setup lines and samples run in
// order on two fresh servers, one through the lab, one through the real
// CLI (a process per line, a HOME per family).

// censusMode is how a sample's output is compared.
type censusMode int

const (
	// exact: stdout, stderr and success compared after brokertest.Comparable.
	exact censusMode = iota
	// shape: as exact, with every number replaced (benchmark rates,
	// round-trip times, check timings), and without the lines the real
	// CLI's benchmarks print or not as their goroutines race at the end
	// of a run (censusRacy).
	shape
	// failure: a command that fails while goroutines of the real CLI's
	// still print (bench oldjs push in natscli v0.5.0: whether the
	// consumer's deletion or the connection's close gets its line in
	// first varies): success and the error line compared.
	failure
	// starts: a command that runs until stopped (events, service serve,
	// watch): both sides' first line compared, then both stopped. Each
	// prints as soon as it is in place (a watch, what exists already).
	starts
)

type censusLine struct {
	leaf string // the real CLI's command the line runs
	line string
	mode censusMode
}

type censusFamily struct {
	name  string
	files map[string][]byte
	setup []string // run on both sides first; each must succeed on both
	lines []censusLine
}

// censusRefused are the leaves the lab does not run, and why. The test
// checks the lab refuses each in one line.
var censusRefused = map[string]string{
	"context edit": "opens $EDITOR on a terminal; the lab passes no editor to the real CLI (context add NAME with flags changes a context)",
	"errors edit":  "opens $EDITOR on a terminal; the lab passes no editor to the real CLI",
}

// censusKnownDifferences are leaves the lab runs with its own code whose
// output still differs from the real CLI's, and how: issue 15's list for
// the native commands. The census logs them; when one matches, it fails
// so that its entry goes.
var censusKnownDifferences = map[string]string{}

func l(leaf, line string) censusLine { return censusLine{leaf: leaf, line: line} }
func sh(leaf, line string) censusLine {
	return censusLine{leaf: leaf, line: line, mode: shape}
}
func st(leaf, line string) censusLine {
	return censusLine{leaf: leaf, line: line, mode: starts}
}

// Fixed keys, so that what is signed with them prints the same on both
// sides: a user seed and two curve (x25519) seeds, test fixtures only.
const (
	censusUserSeed  = "SUANURHRAASUU7GUUAJYKY752TYL2BRE5GCP6AEZ5BNE6IG5JZWBYD4JCM"
	censusCurveA    = "SXAOATVJ2SPL76XWILG45RYLPDI3VGBVRKFOXPCCAUHFJ54KSLFWQFSG3Q"
	censusCurveB    = "SXANFUKT54NY3LE2PUBYG2AUD4WNBIWSN3P7FHP7JIQLLCD2G6VDLNVMTY"
	censusCurveBPub = "XC7WQ3HEGQI33M3AT2PT74HMXLAEKIDLKDH4QQCPL5HEP4Q7TIBTFHYK"
	censusCurveAPub = "XDU6TDBFBALFYBG3WCU3XC66GDUQLRMABXPX4JYGAQEEI23OOHPEVKX5"
	censusAccount   = "ACB5V6VZ6HS5WVXHM74JN4ONKRFQRUT7O7IUQ2MLUMWBCC6NYIJ45PHS"
)

// A timeout for commands that ask every server and get no answer without
// a system account: the real CLI waits for it either way.
const to = " --timeout 300ms"

var censusFamilies = []censusFamily{
	{name: "help", lines: []censusLine{
		l("help", "help object"),
	}},
	{name: "account", lines: []censusLine{
		l("account info", "account info"),
		sh("account report connections", "account report connections --json"),
		sh("account report statistics", "account report statistics --json"),
		l("account tls", "account tls"),
	}},
	{name: "audit", lines: []censusLine{
		l("audit checks", "audit checks"),
		l("audit analyze", "audit analyze"),
		l("audit gather", "audit gather --output gather.zip"+to),
	}},
	{name: "auth", files: map[string][]byte{
		"user.nk": []byte(censusUserSeed), "a.xk": []byte(censusCurveA), "b.xk": []byte(censusCurveB),
		"msg.txt": []byte("hello NATS\n"),
	}, setup: []string{"auth nkey seal msg.txt a.xk " + censusCurveBPub + " --output sealed.bin"}, lines: []censusLine{
		l("auth operator add", "auth operator add LAB"),
		l("auth operator list", "auth operator list"),
		l("auth operator info", "auth operator info LAB"),
		l("auth operator edit", "auth operator edit LAB --tags lab"),
		l("auth operator select", "auth operator select LAB"),
		l("auth operator keys add", "auth operator keys add LAB"),
		l("auth operator keys list", "auth operator keys list LAB"),
		l("auth operator keys rm", "auth operator keys rm LAB OAAAA --force"),
		l("auth operator backup", "auth operator backup LAB operator.backup"),
		l("auth operator restore", "auth operator restore LAB operator.backup"),
		l("auth operator import", "auth operator import missing.jwt"),
		l("auth account add", "auth account add APP --operator LAB --defaults"),
		l("auth account info", "auth account info APP --operator LAB"),
		l("auth account edit", "auth account edit APP --operator LAB --connections 10"),
		l("auth account ls", "auth account ls LAB"),
		l("auth account push", "auth account push APP --operator LAB"+to),
		l("auth account query", "auth account query APP --operator LAB"),
		l("auth account keys add", "auth account keys add APP worker --operator LAB"),
		l("auth account keys ls", "auth account keys ls APP --operator LAB"),
		l("auth account keys info", "auth account keys info APP worker --operator LAB"),
		l("auth account keys rm", "auth account keys rm APP --key AAAA --operator LAB --force"),
		l("auth account exports add", "auth account exports add weather weather.> APP --operator LAB"),
		l("auth account exports ls", "auth account exports ls APP --operator LAB"),
		l("auth account exports info", "auth account exports info weather.> APP --operator LAB"),
		l("auth account exports edit", "auth account exports edit weather.> APP --operator LAB --description forecasts"),
		l("auth account exports rm", "auth account exports rm weather.> APP --operator LAB --force"),
		l("auth account imports add", "auth account imports add forecasts forecasts.> APP --operator LAB --source "+censusAccount),
		l("auth account imports ls", "auth account imports ls APP LAB"),
		l("auth account imports info", "auth account imports info forecasts.> APP --operator LAB"),
		l("auth account imports edit", "auth account imports edit forecasts.> APP --operator LAB --local local.forecasts.>"),
		l("auth account imports rm", "auth account imports rm forecasts.> APP --operator LAB --force"),
		l("auth account mappings add", "auth account mappings add APP orders.* orders.central.{{wildcard(1)}} 100 --operator LAB"),
		l("auth account mappings ls", "auth account mappings ls APP --operator LAB"),
		l("auth account mappings info", "auth account mappings info APP orders.* --operator LAB"),
		l("auth account mappings rm", "auth account mappings rm APP orders.* --operator LAB --force"),
		l("auth user add", "auth user add alice APP --operator LAB --defaults"),
		l("auth user info", "auth user info alice APP --operator LAB"),
		l("auth user edit", "auth user edit alice APP --operator LAB --bearer"),
		l("auth user ls", "auth user ls APP --operator LAB"),
		l("auth user credential", "auth user credential alice.creds alice APP --operator LAB"),
		l("auth user rm", "auth user rm alice APP --operator LAB --force"),
		l("auth nkey gen", "auth nkey gen user --output gen.nk"),
		l("auth nkey show", "auth nkey show user.nk"),
		l("auth nkey sign", "auth nkey sign msg.txt user.nk"),
		l("auth nkey verify", "auth nkey verify msg.txt missing.sig user.nk"),
		l("auth nkey seal", "auth nkey seal msg.txt a.xk "+censusCurveBPub+" --output sealed-again.bin"),
		l("auth nkey unseal", "auth nkey unseal sealed.bin b.xk "+censusCurveAPub),
		sh("auth nuid gen", "auth nuid gen"),
	}},
	{name: "backup", setup: []string{
		"stream add ORDERS --subjects orders.> --defaults",
		"pub orders.new 'order 1'",
		"pub orders.new 'order 2'",
	}, lines: []censusLine{
		sh("backup stream", "backup stream ORDERS bk --no-progress"), // compressed sizes vary
		l("backup info", "backup info bk --no-progress"),
		l("backup validate", "backup validate bk --no-progress"),
		l("backup edit", "backup edit bk bk-edited --subject orders.new --no-progress"),
		l("backup restore stream", "backup restore stream bk --no-progress"),
		l("backup account", "backup account bk-account"),
		l("backup restore account", "backup restore account bk-missing"),
		l("backup lookup", "backup lookup missing.key x"),
		sh("stream backup", "stream backup ORDERS bk-old --no-progress"), // compressed sizes vary
	}},
	{name: "bench", lines: []censusLine{
		sh("bench pub", "bench pub census.bench --msgs 100 --no-progress"),
		sh("bench js pub sync", "bench js pub sync census.js --msgs 50 --create --no-progress"),
		sh("bench js pub async", "bench js pub async census.js --msgs 50 --no-progress"),
		sh("bench js pub atomic", "bench js pub atomic census.js --msgs 50 --no-progress"),
		sh("bench js pub fast", "bench js pub fast census.js --msgs 50 --no-progress"),
		sh("bench js ordered", "bench js ordered --msgs 50 --no-progress"),
		sh("bench js consume", "bench js consume --msgs 50 --no-progress"),
		sh("bench js fetch", "bench js fetch --msgs 50 --no-progress"),
		sh("bench js get sync", "bench js get sync --msgs 50 --no-progress"),
		sh("bench js get batch", "bench js get batch --msgs 50 --no-progress"),
		sh("bench kv put", "bench kv put --msgs 50 --no-progress"),
		sh("bench kv get", "bench kv get --msgs 50 --no-progress"),
		sh("bench oldjs ordered", "bench oldjs ordered census.js --msgs 50 --no-progress"),
		{leaf: "bench oldjs push", line: "bench oldjs push census.js --msgs 50 --consumer census-push --no-progress", mode: failure},
		sh("bench oldjs pull", "bench oldjs pull census.js --msgs 50 --no-progress"),
		sh("bench service request", "bench service request census.svc --msgs 10 --no-progress"),
		st("bench sub", "bench sub census.sub --msgs 10 --no-progress"),
		st("bench service serve", "bench service serve census.svc --no-progress"),
	}},
	{name: "consumer", setup: []string{
		"stream add ORDERS --subjects orders.> --defaults",
		"pub orders.new 'order 1'",
		"pub orders.new 'order 2'",
	}, lines: []censusLine{
		l("consumer add", "consumer add ORDERS C1 --pull --defaults"),
		l("consumer edit", "consumer edit ORDERS C1 --description 'first consumer' --force"),
		l("consumer ls", "consumer ls ORDERS"),
		l("consumer info", "consumer info ORDERS C1"),
		l("consumer next", "consumer next ORDERS C1 --ack"),
		l("consumer report", "consumer report ORDERS"),
		l("consumer find", "consumer find ORDERS --pull"),
		l("consumer state", "consumer state ORDERS C1"),
		l("consumer reset", "consumer reset ORDERS C1 --force"),
		l("consumer copy", "consumer copy ORDERS C1 C2"),
		l("consumer graph", "consumer graph ORDERS C1"),
		l("consumer pause", "consumer pause ORDERS C1 2030-01-01T00:00:00Z --force"),
		l("consumer resume", "consumer resume ORDERS C1 --force"),
		l("consumer unpin", "consumer unpin ORDERS C1 g --force"),
		l("consumer cluster step-down", "consumer cluster step-down ORDERS C1"),
		l("consumer cluster balance", "consumer cluster balance ORDERS"),
		l("consumer cluster evacuate", "consumer cluster evacuate ORDERS C1 --force"),
		l("consumer rm", "consumer rm ORDERS C2 --force"),
	}},
	{name: "context", lines: []censusLine{
		l("context add", "context add lab --description 'the lab'"),
		l("context copy", "context copy lab staging --description Staging"),
		l("context ls", "context ls"),
		l("context select", "context select staging"),
		l("context previous", "context previous"),
		l("context info", "context info lab"),
		l("context validate", "context validate"),
		l("context unselect", "context unselect"),
		l("context rm", "context rm staging --force"),
	}},
	{name: "counter", setup: []string{
		"stream add COUNTERS --subjects counter.> --allow-counter --defaults",
	}, lines: []censusLine{
		l("counter increment", "counter increment counter.visits 5"),
		l("counter decrement", "counter decrement counter.visits 2"),
		l("counter get", "counter get counter.visits"),
		l("counter list", "counter list counter.>"),
		st("counter view", "counter view counter.visits"),
	}},
	{name: "errors", files: map[string][]byte{"errors.json": []byte("[]\n")}, lines: []censusLine{
		l("errors ls", "errors ls stream"),
		l("errors lookup", "errors lookup 10059"),
		l("errors validate", "errors validate errors.json"),
	}},
	{name: "events", lines: []censusLine{
		st("events", "events"),
	}},
	{name: "kv", lines: []censusLine{
		l("kv add", "kv add CONFIG --history 5"),
		l("kv edit", "kv edit CONFIG --description settings"),
		l("kv put", "kv put CONFIG colour blue"),
		l("kv get", "kv get CONFIG colour"),
		l("kv create", "kv create CONFIG size large"),
		l("kv update", "kv update CONFIG size medium 2"),
		l("kv history", "kv history CONFIG size"),
		l("kv revert", "kv revert CONFIG size 2 --force"),
		l("kv del", "kv del CONFIG colour --force"),
		l("kv purge", "kv purge CONFIG colour --force"),
		l("kv info", "kv info CONFIG"),
		l("kv ls", "kv ls CONFIG"),
		l("kv compact", "kv compact CONFIG --force"),
		st("kv watch", "kv watch CONFIG"),
	}},
	{name: "latency", lines: []censusLine{
		// Under a second the real CLI computes no messages to send and
		// waits for them for ever.
		sh("latency", "latency --server-b SERVER_URL --duration 1s --rate 50"),
	}},
	{name: "object", files: map[string][]byte{"notes.txt": []byte("NATS object store notes\n")}, lines: []censusLine{
		l("object add", "object add FILES --description documents"),
		l("object edit", "object edit FILES --description papers"),
		l("object put", "object put FILES notes.txt --no-progress"),
		l("object info", "object info FILES notes.txt"),
		l("object ls", "object ls FILES"),
		l("object get", "object get FILES notes.txt --output copy.txt --no-progress"),
		st("object watch", "object watch FILES"),
		l("object del", "object del FILES notes.txt --force"),
		l("object seal", "object seal FILES --force"),
	}},
	{name: "plugins", lines: []censusLine{
		l("plugins register", "plugins register mine ./missing-plugin"),
	}},
	{name: "core", lines: []censusLine{
		l("publish", "pub census.greet 'Hello NATS!'"),
		st("subscribe", "sub census.greet"),
		st("reply", "reply census.svc 'pong'"),
		l("request", "request census.nobody hi"),
		sh("rtt", "rtt 1"),
		sh("trace", "trace census.greet"),
	}},
	{name: "schema", files: map[string][]byte{"stream.json": []byte(`{"name":"ORDERS","subjects":["orders.>"],"retention":"limits","max_consumers":-1,"max_msgs":-1,"max_bytes":-1,"max_age":0,"storage":"file","num_replicas":1,"discard":"old"}`)}, lines: []censusLine{
		l("schema search", "schema search stream"),
		l("schema info", "schema info io.nats.jetstream.api.v1.stream_configuration"),
		l("schema validate", "schema validate io.nats.jetstream.api.v1.stream_configuration stream.json"),
		l("schema request", "schema request census.nobody"),
	}},
	{name: "server", setup: []string{
		"stream add ORDERS --subjects orders.> --defaults",
		"pub orders.new 'order 1'",
		"consumer add ORDERS C1 --pull --defaults",
	}, lines: []censusLine{
		l("server account info", "server account info APP"+to),
		l("server account purge", "server account purge APP --force"+to),
		sh("server check connection", "server check connection"),
		l("server check stream", "server check stream --stream ORDERS"),
		l("server check consumer", "server check consumer --stream ORDERS --consumer C1"),
		sh("server check message", "server check message --stream ORDERS --subject orders.new"),
		l("server check meta", "server check meta --expect 1 --lag-critical 10 --seen-critical 5s"+to),
		sh("server check request", "server check request --subject census.nobody"),
		l("server check jetstream", "server check jetstream"),
		l("server check server", "server check server --name natslab"+to),
		l("server check kv", "server check kv --bucket NOPE"),
		l("server check credential", "server check credential --credential missing.creds"),
		l("server cluster balance", "server cluster balance"+to),
		l("server cluster evacuate", "server cluster evacuate natslab --force"+to),
		l("server cluster step-down", "server cluster step-down --force"+to),
		l("server cluster peer-remove", "server cluster peer-remove n9 --force"+to),
		l("server cluster rescue", "server cluster rescue"+to),
		l("server config reload", "server config reload NAAAA"+to),
		l("server generate", "server generate config-out"),
		l("server graph", "server graph natslab"),
		l("server info", "server info"+to),
		l("server list", "server list"+to),
		l("server mappings", `server mappings "orders.*" "orders.central.{{wildcard(1)}}" orders.new`),
		l("server passwd", "server passwd"),
		l("server ping", "server ping"+to),
		l("server report accounts", "server report accounts"+to),
		l("server report connections", "server report connections"+to),
		l("server report cpu", "server report cpu"+to),
		l("server report gateways", "server report gateways"+to),
		l("server report health", "server report health"+to),
		l("server report jetstream", "server report jetstream"+to),
		l("server report leafnodes", "server report leafnodes"+to),
		l("server report mem", "server report mem"+to),
		l("server report routes", "server report routes"+to),
		l("server report downgrade", "server report downgrade 1"+to),
		l("server request accounts", "server request accounts"+to),
		sh("server request connections", "server request connections --filter-subject census.nothing"+to),
		l("server request gateways", "server request gateways"+to),
		l("server request ipqueue", "server request ipqueue"+to),
		l("server request jetstream-health", "server request jetstream-health"+to),
		l("server request jetstream", "server request jetstream"+to),
		l("server request kick", "server request kick 1 NAAAA"+to),
		l("server request leafnodes", "server request leafnodes"+to),
		l("server request profile", "server request profile heap"+to),
		l("server request raft", "server request raft"+to),
		l("server request routes", "server request routes"+to),
		l("server request subscriptions", "server request subscriptions"+to),
		l("server request variables", "server request variables"+to),
		l("top", "top --output top.txt natslab"+to),
		l("server watch servers", "server watch servers"),
		l("server watch accounts", "server watch accounts"),
		l("server watch jetstream", "server watch jetstream"),
		st("server watch api requests", "server watch api requests"),
	}},
	{name: "service", lines: []censusLine{
		st("service serve", "service serve census-echo"),
		l("service list", "service list"),
		l("service info", "service info nosuchservice"),
		l("service stats", "service stats nosuchservice"),
		l("service ping", "service ping"),
		l("service request", "service request nosuchservice echo hi"+to),
	}},
	{name: "stream", setup: []string{
		"stream add ORDERS --subjects orders.> --defaults",
		"pub orders.new 'order 1'",
		"pub orders.new 'order 2'", // counts differ: the real CLI orders equal ones at random
		"pub orders.shipped 'order 1'",
	}, lines: []censusLine{
		l("stream ls", "stream ls"),
		l("stream info", "stream info ORDERS"),
		l("stream state", "stream state ORDERS"),
		l("stream subjects", "stream subjects ORDERS"),
		l("stream report", "stream report"),
		l("stream find", "stream find --subject orders.new"),
		l("stream get", "stream get ORDERS 1"),
		l("stream view", "stream view ORDERS"),
		l("stream edit", "stream edit ORDERS --description orders --force"),
		l("stream copy", "stream copy ORDERS ARCHIVE --subjects archive.>"),
		l("stream gaps", "stream gaps ORDERS --no-progress"),
		l("stream graph", "stream graph ORDERS"),
		l("stream rmm", "stream rmm ORDERS 1 --force"),
		l("stream seal", "stream seal ARCHIVE --force"),
		l("stream cluster step-down", "stream cluster step-down ORDERS"),
		l("stream cluster balance", "stream cluster balance"),
		l("stream cluster cancel-move", "stream cluster cancel-move ORDERS"),
		l("stream cluster evacuate", "stream cluster evacuate ORDERS natslab --force"),
		l("stream purge", "stream purge ORDERS --force"),
		l("stream rm", "stream rm ARCHIVE --force"),
		l("stream add", "stream add EVENTS --subjects events.> --defaults"),
	}},
}

// censusNormalize is brokertest.Comparable plus what differs between two
// runs of the auth and backup commands: keys, seeds and tokens.
var censusRules = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+`), "JWT"},
	{regexp.MustCompile(`\bS[A-Z2-7]{57}\b`), "SEED"},
	{regexp.MustCompile(`\b[NOACUXP][A-Z2-7]{55}\b`), "NKEY"},
	{regexp.MustCompile(`\bpid:? \d+|handler \d+\b`), "PID"},
}

func censusNormalize(s string, mode censusMode) string {
	s = brokertest.Comparable(s)
	for _, r := range censusRules {
		s = r.re.ReplaceAllString(s, r.with)
	}
	if mode == shape {
		s = censusRacy.ReplaceAllString(s, "")
		s = censusDurations.ReplaceAllString(s, "DUR")
		s = censusNumbers.ReplaceAllString(s, "N")
		s = censusUnits.ReplaceAllString(s, "N UNIT")
	}
	return s
}

var (
	censusDurations = regexp.MustCompile(`[0-9][0-9,.]*DUR`) // 1,501.72us: Normalize took 501.72us
	censusRacy      = regexp.MustCompile(`(?m)^(TIME draining the subscription at the end of the run: .*|>>> Connection is closed: .*)\n`)
	censusNumbers   = regexp.MustCompile(`[0-9][0-9,.]*`)
	censusUnits     = regexp.MustCompile(`N ?(B|KiB|MiB|GiB|K|M|G|us|ms|µs|s)\b`)
)

func TestCensusEveryRealCLICommandRunsInTheLab(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every command of the real nats CLI twice")
	}
	leaves := realcli.Leaves()
	if len(leaves) != 235 {
		t.Fatalf("natscli v0.5.0 has 235 leaf commands, the model %d", len(leaves))
	}
	covered := map[string]bool{}
	for _, f := range censusFamilies {
		for _, c := range f.lines {
			words, err := command.SplitWords(c.line)
			if err != nil {
				t.Fatalf("%s: %v", c.line, err)
			}
			got := realcli.Parse(words).Name()
			if c.leaf == "help" {
				got = "help"
			}
			if got != c.leaf {
				t.Fatalf("census line %q runs %q, not %q", c.line, got, c.leaf)
			}
			covered[c.leaf] = true
		}
	}
	var missing []string
	for _, leaf := range leaves {
		_, refused := censusRefused[leaf]
		if covered[leaf] == refused {
			missing = append(missing, leaf)
		}
	}
	if len(missing) > 0 {
		t.Fatalf("leaves with no census line and no reason to refuse them (or both): %s", strings.Join(missing, ", "))
	}
	if runs := len(leaves) - len(censusRefused) - len(censusKnownDifferences); runs*100 < len(leaves)*95 {
		t.Fatalf("only %d of %d leaves run in the lab as the real CLI does (%d%%), want 95%%", runs, len(leaves), runs*100/len(leaves))
	}

	t.Run("refused", func(t *testing.T) {
		lab := newLab(t)
		// What they would edit exists: naming what does not, the real CLI
		// refuses the line by itself.
		lab.must("context add x")
		errorsFile := filepath.Join(t.TempDir(), "errors.json")
		if err := os.WriteFile(errorsFile, []byte("[]"), 0o644); err != nil {
			t.Fatal(err)
		}
		lines := map[string]string{"context edit": "context edit x", "errors edit": "errors edit " + errorsFile}
		for leaf := range censusRefused {
			line, ok := lines[leaf]
			if !ok {
				line = leaf + " x"
			}
			r := lab.run(line)
			if r.e == nil || !command.IsUsage(r.e) || r.out != "" || r.err != "" {
				t.Errorf("%s: the lab runs it (%v), the census says it refuses: %s", leaf, r.e, censusRefused[leaf])
			}
		}
	})

	var mu sync.Mutex
	var failed []string
	report := func(leaf, why string) {
		mu.Lock()
		defer mu.Unlock()
		failed = append(failed, leaf+": "+why)
	}
	t.Run("families", func(t *testing.T) {
		for _, f := range censusFamilies {
			t.Run(f.name, func(t *testing.T) {
				t.Parallel()
				runCensusFamily(t, f, report)
			})
		}
	})
	sort.Strings(failed)
	t.Logf("census: %d leaves; %d refused with a reason; %d census lines differ from the real CLI's output:\n%s", len(leaves), len(censusRefused), len(failed), strings.Join(failed, "\n"))
}

// censusSide is one side of the census: the lab (a Session) or the real
// CLI (a process per line), each on a server and in a directory of its own.
type censusSide struct {
	t    *testing.T
	url  string
	dir  string
	home string
	s    *command.Session // the lab's side; nil for the real CLI's
}

type censusResult struct {
	out, err string
	ok       bool
}

func newCensusSide(t *testing.T, f censusFamily, lab bool) *censusSide {
	srv := brokertest.Start(t)
	side := &censusSide{t: t, url: srv.ClientURL(), dir: t.TempDir(), home: t.TempDir()}
	for name, body := range f.files {
		if err := os.WriteFile(filepath.Join(side.dir, name), body, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if lab {
		side.s = command.NewSession(srv, command.WithCLIHome(side.home), command.WithWorkDir(side.dir), command.WithTimeout(5*time.Second))
		t.Cleanup(side.s.Close)
	}
	return side
}

func (c *censusSide) words(line string) []string {
	words, err := command.SplitWords(strings.ReplaceAll(line, "SERVER_URL", c.url))
	if err != nil {
		c.t.Fatal(err)
	}
	return words
}

func (c *censusSide) run(line string) censusResult {
	c.t.Helper()
	line = strings.ReplaceAll(line, "SERVER_URL", c.url)
	if c.s != nil {
		var out, errb syncBuf
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		err := c.s.RunStreams(ctx, line, command.Streams{Out: &out, Err: &errb})
		if err != nil && !command.Reported(err) {
			errb.Write([]byte(command.ErrorLine(err) + "\n"))
		}
		return c.clean(censusResult{out: out.String(), err: errb.String(), ok: err == nil})
	}
	words := c.words(line)
	r := brokertest.RunRealCLIIn(c.t, c.env(words), words...)
	return c.clean(censusResult{out: r.Stdout, err: r.Stderr, ok: r.ExitCode == 0})
}

// env is the real CLI's environment for words: context commands see no
// server, as the lab runs them.
func (c *censusSide) env(words []string) brokertest.RealEnv {
	env := brokertest.RealEnv{URL: c.url, Dir: c.dir, Home: c.home}
	if len(words) > 0 && (words[0] == "context" || words[0] == "ctx") {
		env.URL = ""
	}
	return env
}

func (c *censusSide) clean(r censusResult) censusResult {
	for _, p := range []struct{ path, as string }{{c.dir, "WORKDIR"}, {c.home, "HOME"}} {
		r.out = strings.ReplaceAll(r.out, p.path, p.as)
		r.err = strings.ReplaceAll(r.err, p.path, p.as)
	}
	return r
}

// start runs a long-running line and returns its first line and a stop.
func (c *censusSide) start(line string) (first func() string, stop func()) {
	if c.s != nil {
		first := brokertest.NewFirstLine()
		w := first.Writer() // one writer for both: the line completed first
		j := c.s.StartStreams(context.Background(), line, command.Streams{Out: w, Err: w})
		return func() string {
				select {
				case l := <-first.Line():
					return c.clean(censusResult{out: l}).out
				case <-j.Done():
					select {
					case l := <-first.Line():
						return c.clean(censusResult{out: l}).out
					default:
						return ""
					}
				}
			}, func() {
				j.Stop()
				<-j.Done()
			}
	}
	words := c.words(line)
	p := brokertest.StartRealCLI(c.t, c.env(words), words...)
	return func() string { return c.clean(censusResult{out: p.FirstLine()}).out }, p.Stop
}

// errorLines keeps the real CLI's error lines of s.
func errorLines(s string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, "nats: error:") {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

func runCensusFamily(t *testing.T, f censusFamily, report func(leaf, why string)) {
	lab, real := newCensusSide(t, f, true), newCensusSide(t, f, false)
	for _, line := range f.setup {
		for _, side := range []*censusSide{lab, real} {
			if r := side.run(line); !r.ok {
				t.Fatalf("setup %q failed (lab side %v):\n%s%s", line, side.s != nil, r.out, r.err)
			}
		}
	}
	for _, c := range f.lines {
		if c.mode == starts {
			firstLab, stopLab := lab.start(c.line)
			firstReal, stopReal := real.start(c.line)
			gotLab, gotReal := censusNormalize(firstLab(), exact), censusNormalize(firstReal(), exact)
			stopLab()
			stopReal()
			if gotLab != gotReal || gotLab == "" {
				t.Errorf("%s: first line differs from the real CLI's\nlab:  %q\nreal: %q", c.line, gotLab, gotReal)
				report(c.leaf, "first line differs")
			}
			continue
		}
		gotLab, gotReal := lab.run(c.line), real.run(c.line)
		if c.mode == failure {
			gotLab.out, gotLab.err = "", errorLines(gotLab.err)
			gotReal.out, gotReal.err = "", errorLines(gotReal.err)
		}
		var diffs []string
		if d := brokertest.DiffLines(censusNormalize(gotReal.out, c.mode), censusNormalize(gotLab.out, c.mode)); d != "" {
			diffs = append(diffs, "stdout (-real +lab):\n"+d)
		}
		if d := brokertest.DiffLines(censusNormalize(gotReal.err, c.mode), censusNormalize(gotLab.err, c.mode)); d != "" {
			diffs = append(diffs, "stderr (-real +lab):\n"+d)
		}
		if gotLab.ok != gotReal.ok {
			diffs = append(diffs, fmt.Sprintf("the lab's line succeeded: %v, the real CLI's: %v", gotLab.ok, gotReal.ok))
		}
		known, isKnown := censusKnownDifferences[c.leaf]
		switch {
		case len(diffs) > 0 && isKnown:
			t.Logf("%s: differs as known (%s)", c.line, known)
			report(c.leaf, "known: "+known)
		case len(diffs) > 0:
			t.Errorf("%s:\n%s", c.line, strings.Join(diffs, "\n"))
			report(c.leaf, "differs")
		case isKnown:
			t.Errorf("%s now prints what the real CLI prints: remove %q from censusKnownDifferences", c.line, c.leaf)
		}
	}
}
