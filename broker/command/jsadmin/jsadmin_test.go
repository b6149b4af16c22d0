package jsadmin_test

// These tests run the same script through jsm.go v0.5.0 (which jsadmin
// replaces) and through jsadmin, each on its own new server, and compare
// the API requests on the wire and every result, error text included.

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/jsm.go"
	"github.com/nats-io/jsm.go/api"
	"github.com/nats-io/nats.go"

	"natslab/broker/brokertest"
	"natslab/broker/command/jsadmin"
)

var timesRe = regexp.MustCompile(`\d{4}-\d\d-\d\dT[0-9:.]+(Z|[+-]\d\d:\d\d)`)

func show(v any, err error) string {
	j, _ := json.Marshal(v)
	s := timesRe.ReplaceAllString(string(j), "T")
	if err != nil {
		return fmt.Sprintf("%s ERR %T %q", s, err, err.Error())
	}
	return s
}

type sess struct {
	nc  *nats.Conn
	mu  sync.Mutex
	log []string
}

func newSess(t *testing.T) *sess {
	srv := brokertest.Start(t)
	nc := brokertest.Connect(t, srv, "ops")
	spy := brokertest.Connect(t, srv, "spy")
	s := &sess{nc: nc}
	_, err := spy.Subscribe("$JS.API.>", func(m *nats.Msg) {
		h := []string{}
		for k, v := range m.Header {
			h = append(h, k+"="+strings.Join(v, ","))
		}
		sort.Strings(h)
		s.mu.Lock()
		s.log = append(s.log, fmt.Sprintf("%s %v len=%d nil=%v %s", m.Subject, h, len(m.Data), m.Data == nil, m.Data))
		s.mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	spy.Flush()
	return s
}

// ops is what both sides do.
type ops struct {
	names     func(subj string) string
	streams   func(subj string) string
	load      func(name string) string
	create    func(name string, cfg api.StreamConfig) string
	del       func(name string) string
	subjects  func(name, filter string) string
	streamOps func(name string) []string
	update    func(name string, mod func(*api.StreamConfig)) string
}

func script(t *testing.T, s *sess, o ops) []string {
	var out []string
	add := func(x ...string) { out = append(out, x...) }
	add(o.names(""), o.streams(""), o.load("NOPE"), o.load("a.b"), o.load(""))
	cfg := api.StreamConfig{Retention: api.LimitsPolicy, Discard: api.DiscardOld, MaxConsumers: -1, MaxMsgs: -1, MaxMsgsPer: -1, MaxBytes: -1, MaxAge: 0, MaxMsgSize: -1, Replicas: 1, Storage: api.FileStorage, Subjects: []string{"orders.>"}, Metadata: map[string]string{"team": "x"}}
	add(o.create("ORDERS", cfg))
	cfg2 := cfg
	cfg2.MaxMsgs = 7
	add(o.create("ORDERS", cfg2))
	cfg3 := cfg
	cfg3.Subjects = []string{"orders.a"}
	add(o.create("OTHER", cfg3))
	cfg4 := cfg
	cfg4.Subjects = []string{"ttl.>"}
	cfg4.AllowMsgTTL = true
	add(o.create("TTL", cfg4))
	add(o.create("bad.name", cfg))
	cfg5 := cfg
	cfg5.Subjects = []string{">"}
	add(o.create("ALL", cfg5))
	for i, subj := range []string{"orders.a", "orders.b", "orders.a", "orders.c", "orders.b"} {
		m := nats.NewMsg(subj)
		m.Data = []byte(fmt.Sprintf("msg %d", i))
		m.Header.Set("K", "v")
		if _, err := s.nc.RequestMsg(m, time.Second); err != nil {
			t.Fatal(err)
		}
	}
	add(o.load("ORDERS"))
	add(o.subjects("ORDERS", ""), o.subjects("ORDERS", "orders.a"), o.subjects("a.b", ""), o.subjects("NOPE", ""))
	add(o.streamOps("ORDERS")...)
	add(o.update("ORDERS", func(c *api.StreamConfig) { c.MaxMsgs = 2 }))
	add(o.update("ORDERS", func(c *api.StreamConfig) { c.Storage = api.MemoryStorage }))
	add(o.update("ORDERS", func(c *api.StreamConfig) { c.AllowMsgTTL = true }))
	add(o.names(""), o.names("orders.x"), o.streams(""), o.streams("ttl.*"))
	for i := 0; i < 300; i++ {
		c := cfg
		c.Storage = api.MemoryStorage
		c.Subjects = []string{fmt.Sprintf("s.%d", i)}
		if i%3 == 0 {
			o.create(fmt.Sprintf("KV_S%03d", i), c)
		} else {
			o.create(fmt.Sprintf("S%03d", 299-i), c)
		}
	}
	add(o.names(""), o.streams(""))
	add(o.del("ORDERS"), o.del("ORDERS"), o.del("a.b"))
	return out
}

func jsmOps(t *testing.T, m *jsm.Manager) ops {
	return ops{
		names: func(subj string) string {
			var f *jsm.StreamNamesFilter
			if subj != "" {
				f = &jsm.StreamNamesFilter{Subject: subj}
			}
			return show(m.StreamNames(f))
		},
		streams: func(subj string) string {
			var f *jsm.StreamNamesFilter
			if subj != "" {
				f = &jsm.StreamNamesFilter{Subject: subj}
			}
			st, missing, off, err := m.Streams(f)
			var r []string
			for _, s := range st {
				i, _ := s.LatestInformation()
				r = append(r, s.Name(), s.Description(), fmt.Sprint(s.IsInternal(), s.Subjects()), show(i, nil))
			}
			return show([]any{r, missing, off}, err)
		},
		load: func(name string) string {
			st, err := m.LoadStream(name)
			if err != nil {
				return show(nil, err)
			}
			i, err := st.LatestInformation()
			return show([]any{i, st.Configuration(), st.Name(), st.Subjects()}, err)
		},
		create: func(name string, cfg api.StreamConfig) string {
			st, err := m.NewStreamFromDefault(name, cfg)
			if err != nil {
				return show(nil, err)
			}
			i, err := st.LatestInformation()
			return show([]any{i, st.Configuration()}, err)
		},
		del: func(name string) string { return show(nil, m.DeleteStream(name)) },
		subjects: func(name, filter string) string {
			return show(m.StreamContainedSubjects(name, filter))
		},
		update: func(name string, mod func(*api.StreamConfig)) string {
			st, err := m.LoadStream(name)
			if err != nil {
				return show(nil, err)
			}
			c := st.Configuration()
			mod(&c)
			err = st.UpdateConfiguration(c)
			i, ierr := st.LatestInformation()
			return show([]any{i, ierr, st.Configuration()}, err)
		},
		streamOps: func(name string) []string {
			st, err := m.LoadStream(name)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			out = append(out, show(st.ReadMessage(1)), show(st.ReadMessage(99)))
			out = append(out, show(st.ReadLastMessageForSubject("orders.b")), show(st.ReadLastMessageForSubject("orders.zz")))
			out = append(out, show(nil, st.DeleteMessageRequest(api.JSApiMsgDeleteRequest{})), show(nil, st.DeleteMessageRequest(api.JSApiMsgDeleteRequest{Seq: 2})), show(nil, st.DeleteMessageRequest(api.JSApiMsgDeleteRequest{Seq: 2})))
			i1, _ := st.LatestInformation()
			i2, e2 := st.Information()
			out = append(out, show(i1, nil), show(i2, e2), show(nil, st.Reset()))
			i3, _ := st.LatestInformation()
			out = append(out, show(i3, nil))
			out = append(out, show(st.PurgeExt(&api.JSApiStreamPurgeRequest{Subject: "orders.c"})))
			out = append(out, show(st.PurgeExt(&api.JSApiStreamPurgeRequest{Keep: 1})))
			out = append(out, show(st.PurgeExt(&api.JSApiStreamPurgeRequest{Subject: "nomatch.>"})))
			out = append(out, show(st.PurgeExt(nil)))
			out = append(out, show(nil, st.LeaderStepDown(nil)), show(nil, st.LeaderStepDown(&api.Placement{Preferred: "n2"})))
			return out
		},
	}
}

func ownOps(t *testing.T, m *jsadmin.Manager) ops {
	return ops{
		names: func(subj string) string { return show(m.StreamNames(subj)) },
		streams: func(subj string) string {
			st, missing, off, err := m.Streams(subj)
			var r []string
			for _, s := range st {
				i, _ := s.LatestInformation()
				r = append(r, s.Name(), s.Description(), fmt.Sprint(s.IsInternal(), s.Subjects()), show(i, nil))
			}
			return show([]any{r, missing, off}, err)
		},
		load: func(name string) string {
			st, err := m.LoadStream(name)
			if err != nil {
				return show(nil, err)
			}
			i, err := st.LatestInformation()
			return show([]any{i, st.Configuration(), st.Name(), st.Subjects()}, err)
		},
		create: func(name string, cfg api.StreamConfig) string {
			st, err := m.NewStreamFromDefault(name, cfg)
			if err != nil {
				return show(nil, err)
			}
			i, err := st.LatestInformation()
			return show([]any{i, st.Configuration()}, err)
		},
		del: func(name string) string { return show(nil, m.DeleteStream(name)) },
		subjects: func(name, filter string) string {
			return show(m.StreamContainedSubjects(name, filter))
		},
		update: func(name string, mod func(*api.StreamConfig)) string {
			st, err := m.LoadStream(name)
			if err != nil {
				return show(nil, err)
			}
			c := st.Configuration()
			mod(&c)
			err = st.UpdateConfiguration(c)
			i, ierr := st.LatestInformation()
			return show([]any{i, ierr, st.Configuration()}, err)
		},
		streamOps: func(name string) []string {
			st, err := m.LoadStream(name)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			out = append(out, show(st.ReadMessage(1)), show(st.ReadMessage(99)))
			out = append(out, show(st.ReadLastMessageForSubject("orders.b")), show(st.ReadLastMessageForSubject("orders.zz")))
			out = append(out, show(nil, st.DeleteMessageRequest(api.JSApiMsgDeleteRequest{})), show(nil, st.DeleteMessageRequest(api.JSApiMsgDeleteRequest{Seq: 2})), show(nil, st.DeleteMessageRequest(api.JSApiMsgDeleteRequest{Seq: 2})))
			i1, _ := st.LatestInformation()
			i2, e2 := st.Information()
			out = append(out, show(i1, nil), show(i2, e2), show(nil, st.Reset()))
			i3, _ := st.LatestInformation()
			out = append(out, show(i3, nil))
			out = append(out, show(st.PurgeExt(&api.JSApiStreamPurgeRequest{Subject: "orders.c"})))
			out = append(out, show(st.PurgeExt(&api.JSApiStreamPurgeRequest{Keep: 1})))
			out = append(out, show(st.PurgeExt(&api.JSApiStreamPurgeRequest{Subject: "nomatch.>"})))
			out = append(out, show(st.PurgeExt(nil)))
			out = append(out, show(nil, st.LeaderStepDown(nil)), show(nil, st.LeaderStepDown(&api.Placement{Preferred: "n2"})))
			return out
		},
	}
}

func TestCompareWithJSM(t *testing.T) {
	a, b := newSess(t), newSess(t)
	ma, err := jsm.New(a.nc, jsm.WithTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	mb := jsadmin.New(b.nc, 5*time.Second)
	ra := script(t, a, jsmOps(t, ma))
	rb := script(t, b, ownOps(t, mb))
	time.Sleep(300 * time.Millisecond)
	if len(ra) != len(rb) {
		t.Fatalf("results: %d vs %d", len(ra), len(rb))
	}
	for i := range ra {
		if ra[i] != rb[i] {
			t.Errorf("result %d differs:\njsm: %s\nown: %s", i, ra[i], rb[i])
		}
	}
	a.mu.Lock()
	b.mu.Lock()
	if len(a.log) != len(b.log) {
		t.Errorf("wire: %d vs %d requests", len(a.log), len(b.log))
	}
	for i := range min(len(a.log), len(b.log)) {
		if a.log[i] != b.log[i] {
			t.Errorf("request %d differs:\njsm: %s\nown: %s", i, a.log[i], b.log[i])
		}
	}
	t.Logf("%d results, %d requests compared", len(ra), len(a.log))
	for _, l := range a.log {
		if strings.Contains(l, "Nats-Required") || strings.Contains(l, "offset\":256") || strings.Contains(l, "STREAM.INFO.ORDERS") {
			t.Log(l)
		}
	}
	for _, r := range ra {
		if strings.Contains(r, "ERR") {
			t.Log(r)
		}
	}
}

func TestCompareFuncs(t *testing.T) {
	for _, n := range []string{"", "A", "a.b", "a b", "a*", "a>", "a/b", "a\\b", "a\x00", "KV_x", "OBJ_y", "$MQTT_z", "kv_x", "ÄB", "a-b_c"} {
		if jsm.IsValidName(n) != jsadmin.IsValidName(n) || jsm.IsInternalStream(n) != jsadmin.IsInternalStream(n) {
			t.Errorf("%q", n)
		}
	}
	for _, m := range []map[string]string{nil, {}, {"a": "b"}, {api.JSMetaCurrentServerVersion: "2", api.JsMetaRequiredServerLevel: "1", "x": "y"}, {api.JSMetaCurrentServerLevel: "1"}} {
		if !reflect.DeepEqual(jsm.FilterServerMetadata(m), jsadmin.FilterServerMetadata(m)) {
			t.Errorf("%v", m)
		}
	}
}

func TestCompareErrorsOff(t *testing.T) {
	srv := brokertest.Start(t, brokertest.WithoutJetStream())
	nc := brokertest.Connect(t, srv, "ops")
	ma, _ := jsm.New(nc, jsm.WithTimeout(100*time.Millisecond))
	mb := jsadmin.New(nc, 100*time.Millisecond)
	_, ea := ma.LoadStream("X")
	_, eb := mb.LoadStream("X")
	if show(nil, ea) != show(nil, eb) {
		t.Errorf("no responders: %s vs %s", show(nil, ea), show(nil, eb))
	}
	t.Log(show(nil, ea))
	// a responder that never answers: a timeout
	silent := brokertest.Connect(t, srv, "silent")
	silent.Subscribe("$JS.API.>", func(*nats.Msg) {})
	silent.Flush()
	start := time.Now()
	_, ea = ma.LoadStream("X")
	da := time.Since(start)
	start = time.Now()
	_, eb = mb.LoadStream("X")
	db := time.Since(start)
	if show(nil, ea) != show(nil, eb) {
		t.Errorf("timeout: %s vs %s", show(nil, ea), show(nil, eb))
	}
	t.Log(show(nil, ea), da, db)
	// a responder sending garbage, -ERR, and empty
	for _, reply := range []string{"", "-ERR 'nope'", "not json", `{"error":{"code":503,"err_code":10039,"description":"jetstream not enabled"}}`, `{"type":"x"}`} {
		srv2 := brokertest.Start(t, brokertest.WithoutJetStream())
		nc2 := brokertest.Connect(t, srv2, "ops")
		r := brokertest.Connect(t, srv2, "r")
		r.Subscribe("$JS.API.>", func(m *nats.Msg) { m.Respond([]byte(reply)) })
		r.Flush()
		ma, _ := jsm.New(nc2)
		mb := jsadmin.New(nc2, 5*time.Second)
		var outs [2][]string
		for k, f := range []func() []string{
			func() []string {
				_, e := ma.LoadStream("X")
				n, e2 := ma.StreamNames(nil)
				s, mi, of, e3 := ma.Streams(nil)
				sub, e4 := ma.StreamContainedSubjects("X")
				e5 := ma.DeleteStream("X")
				_, e6 := ma.NewStreamFromDefault("X", api.StreamConfig{})
				return []string{show(nil, e), show(n, e2), show([]any{len(s), mi, of}, e3), show(sub, e4), show(nil, e5), fmt.Sprint(e6)}
			},
			func() []string {
				_, e := mb.LoadStream("X")
				n, e2 := mb.StreamNames("")
				s, mi, of, e3 := mb.Streams("")
				sub, e4 := mb.StreamContainedSubjects("X", "")
				e5 := mb.DeleteStream("X")
				_, e6 := mb.NewStreamFromDefault("X", api.StreamConfig{})
				return []string{show(nil, e), show(n, e2), show([]any{len(s), mi, of}, e3), show(sub, e4), show(nil, e5), fmt.Sprint(e6)}
			},
		} {
			func() {
				defer func() {
					if p := recover(); p != nil {
						outs[k] = append(outs[k], fmt.Sprint("PANIC ", p))
					}
				}()
				outs[k] = f()
			}()
		}
		if len(outs[0]) == 1 && strings.HasPrefix(outs[0][0], "PANIC") {
			// jsm.go dereferences a reply without the info it asked
			// for; jsadmin says so instead. No real server answers so.
			if len(outs[1]) != 6 || strings.HasPrefix(outs[1][0], "PANIC") {
				t.Errorf("reply %q: jsadmin panicked too: %q", reply, outs[1])
			}
			continue
		}
		if !reflect.DeepEqual(outs[0], outs[1]) {
			t.Errorf("reply %q:\njsm: %q\nown: %q", reply, outs[0], outs[1])
		} else {
			t.Logf("reply %q: %q", reply, outs[0])
		}
	}
}
