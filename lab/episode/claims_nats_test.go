package episode

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"natslab/broker/brokertest"
	"natslab/broker/command"
)

// Claims of the lesson texts that the lab's own commands cannot show,
// played on a real nats-server with a plain client.

// claimIn fails the test when lesson id no longer makes the claim.
func claimIn(t *testing.T, id, claim string) {
	t.Helper()
	ep, ok := catalog().Get(id)
	if !ok || !strings.Contains(collapse(ep.Text), collapse(claim)) {
		t.Fatalf("lesson %s no longer says %q: update or remove this test", id, claim)
	}
}

// startNATS runs a nats-server in the test, with opts changed by f.
func startNATS(t *testing.T, f func(*server.Options)) *server.Server {
	t.Helper()
	opts := &server.Options{Host: "127.0.0.1", Port: -1, NoSigs: true, JetStream: true, StoreDir: t.TempDir()}
	if f != nil {
		f(opts)
	}
	s, err := server.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server did not start")
	}
	t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
	return s
}

func connect(t *testing.T, s *server.Server, opts ...nats.Option) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(s.ClientURL(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// before returns the subjects sub received ahead of a sentinel: pub
// publishes one on subject (which sub must match) after everything the
// test sent, and a connection's messages reach a subscriber in the order
// they were published, so whatever was coming has come by the time the
// sentinel does. A publish that should reach nobody is shown to have
// reached nobody without waiting for a time to pass.
func before(t *testing.T, pub *nats.Conn, sub *nats.Subscription, subject string) []string {
	t.Helper()
	const sentinel = "sentinel: all sent before it has arrived"
	if err := pub.Publish(subject, []byte(sentinel)); err != nil {
		t.Fatal(err)
	}
	if err := pub.Flush(); err != nil {
		t.Fatal(err)
	}
	var subjects []string
	for {
		// The bound is a failure's, not a wait: the sentinel comes
		// at once unless the subscription is broken.
		m, err := sub.NextMsg(10 * time.Second)
		if err != nil {
			t.Fatalf("%s: the sentinel on %s never came: %v", sub.Subject, subject, err)
		}
		if string(m.Data) == sentinel {
			return subjects
		}
		subjects = append(subjects, m.Subject)
	}
}

// gets waits for sub's next message; the bound is a failure's.
func gets(t *testing.T, sub *nats.Subscription) bool {
	t.Helper()
	_, err := sub.NextMsg(10 * time.Second)
	if err != nil && !errors.Is(err, nats.ErrTimeout) {
		t.Fatal(err)
	}
	return err == nil
}

// Wildcards are for subscribing: a publish to orders.*.created reaches no
// concrete subscriber of the same shape, only the subscriptions that match
// it as written; and orders> is an ordinary subject of its own.
func TestClaimWildcardsBelongToSubscriptions(t *testing.T) {
	claimIn(t, "subjects", "publishing to `orders.*.created` does not reach a subscriber on `orders.us.created`, only the subscriptions that match `orders.*.created` as written, like your two.")
	claimIn(t, "subjects", "Only a whole token is a wildcard, so `orders>` is not a pattern at all, just an unusual subject name.")
	s := startNATS(t, nil)
	nc := connect(t, s)
	concrete, _ := nc.SubscribeSync("orders.us.created")
	star, _ := nc.SubscribeSync("orders.*.created")
	rest, _ := nc.SubscribeSync("orders.>")
	literal, _ := nc.SubscribeSync("orders>")
	if err := nc.Publish("orders.*.created", []byte("x")); err != nil {
		t.Fatal(err)
	}
	nc.Flush()
	if got := before(t, nc, concrete, "orders.us.created"); len(got) > 0 {
		t.Errorf("a publish to orders.*.created reached orders.us.created: %v", got)
	}
	for _, sub := range []*nats.Subscription{star, rest} {
		m, err := sub.NextMsg(time.Second)
		if err != nil || m.Subject != "orders.*.created" {
			t.Errorf("%s should receive the publish to orders.*.created as it is: %v %v", sub.Subject, m, err)
		}
	}
	if err := nc.Publish("orders.x", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := nc.Publish("orders>", []byte("y")); err != nil {
		t.Fatalf("the server should accept orders> as a subject: %v", err)
	}
	nc.Flush()
	m, err := literal.NextMsg(time.Second)
	if err != nil || string(m.Data) != "y" {
		t.Fatalf("orders> should receive exactly the publish to orders>: %v %v", m, err)
	}
	if got := before(t, nc, literal, "orders>"); len(got) > 0 {
		t.Errorf("orders> matched %v, as if it were a wildcard", got)
	}
}

// * is one token, > one or more at the end: of the lesson's three
// subjects, orders.*.created gets only orders.us.created, orders.> all
// three, and each matching subscription its own copy.
func TestClaimStarIsOneTokenGreaterIsTheRest(t *testing.T) {
	claimIn(t, "subjects", "`orders.us.created` has one token in the middle: both receive it.")
	claimIn(t, "subjects", "`orders.created` has nothing in the middle: only `orders.>` matches, since `*` needs exactly one token.")
	claimIn(t, "subjects", "`orders.us.west.created` has two tokens in the middle: `*` matches one token only, so again just `orders.>`.")
	claimIn(t, "subjects", "`>` stands for one or more tokens, and only at the end")
	s := startNATS(t, nil)
	nc := connect(t, s)
	star, _ := nc.SubscribeSync("orders.*.created")
	rest, _ := nc.SubscribeSync("orders.>")
	for _, subj := range []string{"orders", "orders.us.created", "orders.created", "orders.us.west.created"} {
		if err := nc.Publish(subj, []byte(subj)); err != nil {
			t.Fatal(err)
		}
	}
	// The sentinel's subject matches both subscriptions.
	read := func(sub *nats.Subscription) string {
		return strings.Join(before(t, nc, sub, "orders.sentinel.created"), " ")
	}
	if g := read(star); g != "orders.us.created" {
		t.Errorf("orders.*.created received %q, want only orders.us.created", g)
	}
	if g := read(rest); g != "orders.us.created orders.created orders.us.west.created" {
		t.Errorf("orders.> received %q, want the three (not orders itself)", g)
	}
	before := s.NumSubscriptions()
	bad := connect(t, s)
	_, err := bad.SubscribeSync("orders.>.created")
	if err == nil {
		if err = bad.Flush(); err == nil {
			err = bad.LastError()
		}
	}
	if err == nil || s.NumSubscriptions() != before {
		t.Errorf("a subscription to orders.>.created should be refused: error %v, subscriptions %d then %d", err, before, s.NumSubscriptions())
	}
}

// A subject with a space is refused by the client before it is sent; one
// with an empty token is sent, and matches no subscription, not even >.
func TestClaimSpacesAreRefusedEmptyTokensReachNobody(t *testing.T) {
	claimIn(t, "subjects", "The second publish is refused, and nothing reaches the server.")
	claimIn(t, "subjects", "A subject with an empty token, like `orders..created`, is sent, but no subscription can match it, so it reaches nobody.")
	s := startNATS(t, nil)
	nc := connect(t, s)
	all, _ := nc.SubscribeSync(">")
	nc.Flush()
	if err := nc.Publish("orders.us created", []byte("oops")); err == nil {
		t.Fatal("the client sent a subject with a space")
	}
	nc.Flush()
	vz, err := s.Varz(nil)
	if err != nil {
		t.Fatal(err)
	}
	if vz.InMsgs != 0 {
		t.Fatalf("the server took in %d messages, want 0: nothing should reach it", vz.InMsgs)
	}
	if err := nc.Publish("orders..created", []byte("empty")); err != nil {
		t.Fatalf("the client should send orders..created: %v", err)
	}
	nc.Flush()
	if vz, _ = s.Varz(nil); vz.InMsgs != 1 {
		t.Fatalf("the server took in %d messages, want the one with an empty token", vz.InMsgs)
	}
	if got := before(t, nc, all, "sentinel"); len(got) > 0 {
		t.Errorf("a subscriber on > received %v, the subject with an empty token", got)
	}
}

// nats reply joins the queue group NATS-RPLY-22 unless told otherwise;
// plain subscribers on one subject each receive every request.
func TestClaimReplyJoinsAQueueGroupPlainSubscribersDoNot(t *testing.T) {
	claimIn(t, "request-reply", "`reply` joins a queue group (`NATS-RPLY-22`) unless you give it another with `--queue`.")
	claimIn(t, "request-reply", "several plain subscribers would each receive every request")
	srv := brokertest.Start(t, brokertest.InProcessOnly())
	sess := command.NewSession(srv)
	t.Cleanup(sess.Close)
	j := sess.Start(context.Background(), "reply time now", io.Discard, io.Discard)
	<-j.Ready()
	sz, err := srv.Monitor().Subsz(&server.SubszOptions{Subscriptions: true, Test: "time"})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, sd := range sz.Subs {
		found = found || (sd.Subject == "time" && sd.Queue == "NATS-RPLY-22")
	}
	if !found {
		t.Fatalf("reply's subscription should be in queue group NATS-RPLY-22: %+v", sz.Subs)
	}

	s := startNATS(t, nil)
	a, b, client := connect(t, s), connect(t, s), connect(t, s)
	subA, _ := a.SubscribeSync("prices")
	subB, _ := b.SubscribeSync("prices")
	a.Flush()
	b.Flush()
	if err := client.PublishRequest("prices", nats.NewInbox(), []byte("?")); err != nil {
		t.Fatal(err)
	}
	client.Flush()
	if !gets(t, subA) || !gets(t, subB) {
		t.Fatal("each plain subscriber should receive the request")
	}
}

// A timeout is not only a slow service: an answer the responder may not
// publish (a permission) never comes back, and the client hears a timeout,
// not "no responders".
func TestClaimATimeoutMayBeALostAnswer(t *testing.T) {
	claimIn(t, "request-reply", "or its answer may have been lost on the way back (a responder that is not allowed to publish to the client's inbox looks exactly the same)")
	s := startNATS(t, func(o *server.Options) {
		o.Users = []*server.User{
			{Username: "client", Password: "c"},
			{Username: "svc", Password: "s", Permissions: &server.Permissions{
				Publish:   &server.SubjectPermission{Deny: []string{"_INBOX.>"}},
				Subscribe: &server.SubjectPermission{Allow: []string{"time"}},
			}},
		}
	})
	svc := connect(t, s, nats.UserInfo("svc", "s"), nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {}))
	if _, err := svc.Subscribe("time", func(m *nats.Msg) { _ = m.Respond([]byte("now")) }); err != nil {
		t.Fatal(err)
	}
	svc.Flush()
	client := connect(t, s, nats.UserInfo("client", "c"))
	_, err := client.Request("time", nil, 500*time.Millisecond)
	if !errors.Is(err, nats.ErrTimeout) {
		t.Fatalf("want a timeout, got %v", err)
	}
}

// durable-ephemeral: a shell expands $JS inside double quotes, and what is
// left is no subject a client may subscribe to.
func TestClaimDoubleQuotesLoseTheDollar(t *testing.T) {
	claimIn(t, "durable-ephemeral", "inside double quotes a shell reads `$JS` as a variable, and what is left of the subject is not a valid subject")
	cmd := exec.Command("sh", "-c", `printf '%s' "$JS.EVENT.ADVISORY.CONSUMER.>"`)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")} // no JS in it
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := string(out); got != ".EVENT.ADVISORY.CONSUMER.>" {
		t.Fatalf("the shell made %q of the double-quoted subject", got)
	}
	nc := connect(t, startNATS(t, nil))
	if _, err := nc.SubscribeSync(string(out)); !errors.Is(err, nats.ErrBadSubject) {
		t.Errorf("subscribing to %q: %v, want %v", out, err, nats.ErrBadSubject)
	}
	if _, err := nc.SubscribeSync("$JS.EVENT.ADVISORY.CONSUMER.>"); err != nil {
		t.Errorf("the single-quoted subject: %v", err)
	}
}
