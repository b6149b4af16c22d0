package command

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/choria-io/fisk"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker/brokertest"
)

func completeSession(t *testing.T) *Session {
	t.Helper()
	srv := brokertest.Start(t)
	s := NewSession(srv, WithTimeout(2*time.Second))
	t.Cleanup(s.Close)
	return s
}

func complete(t *testing.T, s *Session, line string) Completion {
	t.Helper()
	return s.Complete(context.Background(), line)
}

func TestCompleteCommandWords(t *testing.T) {
	s := completeSession(t)
	for _, line := range []string{"pu", "nats pu"} {
		c := complete(t, s, line)
		if !reflect.DeepEqual(c.Candidates, []string{"publish"}) {
			t.Errorf("%q: want publish (the name, not the alias pub too), got %v", line, c.Candidates)
		}
		if c.Word != "pu" || c.Start != len(line)-2 {
			t.Errorf("%q: word %q at %d", line, c.Word, c.Start)
		}
	}
	if c := complete(t, s, "resta"); !reflect.DeepEqual(c.Candidates, []string{"restart"}) {
		t.Errorf("resta: got %v", c.Candidates)
	}
	if c := complete(t, s, ""); !slices.Contains(c.Candidates, "help") || !slices.Contains(c.Candidates, "publish") || slices.Contains(c.Candidates, "pub") {
		t.Errorf("empty line: want every command name (no aliases), got %v", c.Candidates)
	}
	if c := complete(t, s, "zzz"); len(c.Candidates) != 0 {
		t.Errorf("zzz: want nothing, got %v", c.Candidates)
	}
}

func TestCompleteFlags(t *testing.T) {
	s := completeSession(t)
	cases := map[string][]string{
		"pub greet --co":             {"--count"},
		"pub greet --count 3 --jet":  {"--jetstream"},
		"publish greet hi --qu":      {"--quiet"},
		"pub greet -H a:b --sle":     {"--sleep"},
		"pub greet --count=5 --jitt": {"--jitter"},
	}
	for line, want := range cases {
		if c := complete(t, s, line); !reflect.DeepEqual(c.Candidates, want) {
			t.Errorf("%q: want %v, got %v", line, want, c.Candidates)
		}
	}
	c := complete(t, s, "pub greet -")
	if !slices.Contains(c.Candidates, "--help") || !slices.Contains(c.Candidates, "--count") {
		t.Errorf("pub greet -: want every flag, got %v", c.Candidates)
	}
	for _, cand := range c.Candidates {
		if cand == "--help-long" || cand == "--help-man" || cand == "--completion-bash" {
			t.Errorf("pub greet -: offers the hidden %s", cand)
		}
	}
	// A flag's value is not a flag: --count takes a number, nothing to offer.
	if c := complete(t, s, "pub greet --count "); len(c.Candidates) != 0 {
		t.Errorf("after --count: want nothing, got %v", c.Candidates)
	}
}

func TestCompleteHelpStopAndVerbs(t *testing.T) {
	s := completeSession(t)
	if c := complete(t, s, "help pu"); !reflect.DeepEqual(c.Candidates, []string{"publish"}) {
		t.Errorf("help pu: got %v", c.Candidates)
	}
	// An alias is offered when no name fits it.
	if c := complete(t, s, "pub"); !reflect.DeepEqual(c.Candidates, []string{"publish"}) {
		t.Errorf("pub: got %v", c.Candidates)
	}
	s.AddVerb(Verb{Name: "block", Usage: "block", Summary: "waits", Run: func(c *Call, _ []string) error {
		c.Ready()
		<-c.Ctx.Done()
		return c.Ctx.Err()
	}})
	j := s.Start(context.Background(), "block", nilWriter{}, nilWriter{})
	<-j.Ready()
	if c := complete(t, s, "stop "); !reflect.DeepEqual(c.Candidates, []string{"1", "all"}) {
		t.Errorf("stop: got %v", c.Candidates)
	}
	j.Stop()
	<-j.Done()

	s.AddVerb(Verb{Name: "scene", Usage: "scene [NAME]", Summary: "scenes",
		Run:      func(*Call, []string) error { return nil },
		Complete: func(args []string) []string { return []string{"contrast", "cluster"} },
	})
	if c := complete(t, s, "scene con"); !reflect.DeepEqual(c.Candidates, []string{"contrast"}) {
		t.Errorf("scene con: got %v", c.Candidates)
	}
	if !s.IsCommand("pub") || !s.IsCommand("help") || s.IsCommand("scene") || s.IsCommand("offline") {
		t.Errorf("IsCommand: pub and help are commands; scene (a lab-added verb) and offline are not")
	}
}

// TestCompleteBrokerNames checks that stream, bucket and consumer names come
// from the broker, and that a create command is not offered existing names.
func TestCompleteBrokerNames(t *testing.T) {
	s := completeSession(t)
	nc, err := s.conn()
	if err != nil {
		t.Fatal(err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for name, subj := range map[string]string{"EVENTS": "events.>", "ORDERS": "orders.>"} {
		if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: name, Subjects: []string{subj}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: "profiles"}); err != nil {
		t.Fatal(err)
	}
	if _, err := js.CreateOrUpdateConsumer(ctx, "EVENTS", jetstream.ConsumerConfig{Durable: "worker"}); err != nil {
		t.Fatal(err)
	}
	walk := func(path ...string) *walker {
		w := &walker{args: map[string]string{}}
		for _, p := range path {
			w.path = append(w.path, &fisk.CmdModel{Name: p})
		}
		return w
	}
	if got := uniqueSorted(s.argCandidates(ctx, walk("stream", "info"), "stream")); !reflect.DeepEqual(got, []string{"EVENTS", "KV_profiles", "ORDERS"}) {
		t.Errorf("streams: got %v", got)
	}
	if got := s.argCandidates(ctx, walk("kv", "get"), "bucket"); !reflect.DeepEqual(got, []string{"profiles"}) {
		t.Errorf("buckets: got %v", got)
	}
	w := walk("consumer", "info")
	w.args["stream"] = "EVENTS"
	if got := s.argCandidates(ctx, w, "consumer"); !reflect.DeepEqual(got, []string{"worker"}) {
		t.Errorf("consumers: got %v", got)
	}
	if got := s.argCandidates(ctx, walk("stream", "add"), "stream"); got != nil {
		t.Errorf("stream add offers existing names: %v", got)
	}
	if got := s.argCandidates(ctx, walk("kv", "add"), "bucket"); got != nil {
		t.Errorf("kv add offers existing names: %v", got)
	}
	w = walk("consumer", "add")
	if got := uniqueSorted(s.argCandidates(ctx, w, "stream")); len(got) != 3 {
		t.Errorf("consumer add's stream: want the streams, got %v", got)
	}

	// Through the real grammar, once the commands are registered.
	if s.IsCommand("stream") {
		if c := complete(t, s, "str"); !reflect.DeepEqual(c.Candidates, []string{"stream"}) {
			t.Errorf("str: got %v", c.Candidates)
		}
		if c := complete(t, s, "stream info E"); !reflect.DeepEqual(c.Candidates, []string{"EVENTS"}) {
			t.Errorf("stream info E: got %v", c.Candidates)
		}
		if c := complete(t, s, "stream in"); !slices.Contains(c.Candidates, "info") {
			t.Errorf("stream in: got %v", c.Candidates)
		}
	}
	if s.IsCommand("consumer") {
		if c := complete(t, s, "consumer info EVENTS w"); !reflect.DeepEqual(c.Candidates, []string{"worker"}) {
			t.Errorf("consumer info EVENTS w: got %v", c.Candidates)
		}
	}
	if s.IsCommand("kv") {
		if c := complete(t, s, "kv get p"); !reflect.DeepEqual(c.Candidates, []string{"profiles"}) {
			t.Errorf("kv get p: got %v", c.Candidates)
		}
	}
}

func TestSplitPartial(t *testing.T) {
	cases := []struct {
		line  string
		words []string
		word  string
		start int
	}{
		{"", nil, "", 0},
		{"pub", nil, "pub", 0},
		{"pub ", []string{"pub"}, "", 4},
		{`pub greet "Hello Wo`, []string{"pub", "greet"}, "Hello Wo", 10},
		{`pub 'a b' c`, []string{"pub", "a b"}, "c", 10},
		{`pub a\ b`, []string{"pub"}, "a b", 4},
		{"  stream   info  EV", []string{"stream", "info"}, "EV", 17},
	}
	for _, c := range cases {
		words, word, start := splitPartial(c.line)
		if !reflect.DeepEqual(words, c.words) || word != c.word || start != c.start {
			t.Errorf("%q: got %q %q %d, want %q %q %d", c.line, words, word, start, c.words, c.word, c.start)
		}
	}
}

type nilWriter struct{}

func (nilWriter) Write(p []byte) (int, error) { return len(p), nil }

// Tab knows the commands the lab runs through the real CLI's code: their
// names, sub-commands, flags and the broker's object buckets.
func TestCompletePassthroughCommands(t *testing.T) {
	s := completeSession(t)
	nc, err := s.conn()
	if err != nil {
		t.Fatal(err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := js.CreateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: "FILES"}); err != nil {
		t.Fatal(err)
	}
	if _, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: "CONFIG"}); err != nil {
		t.Fatal(err)
	}
	cases := map[string][]string{
		"obj":                       {"object"},
		"object p":                  {"put"},
		"object put ":               {"FILES"},
		"object put FILES x --no-p": {"--no-progress"},
		"server map":                {"mappings"},
		"server report js":          {"js", "jsz"},
		"server report jet":         {"jetstream"},
		"stream co":                 {"copy"},
		"stream cop":                {"copy"},
		"stream copy --subje":       {"--subject-del-markers-ttl", "--subjects"},
		"kv com":                    {"compact"},
		"kv compact ":               {"CONFIG"},
		"help object p":             {"put"},
		"help str":                  {"stream"},
		"servic":                    {"service"},
	}
	for line, want := range cases {
		if got := complete(t, s, line).Candidates; !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("%q: got %v, want %v", line, got, want)
		}
	}
	if got := complete(t, s, "stream ").Candidates; !slices.Contains(got, "ls") || !slices.Contains(got, "copy") || !slices.Contains(got, "seal") {
		t.Errorf("stream sub-commands: want the lab's (ls) and the real CLI's (copy, seal), got %v", got)
	}
}
