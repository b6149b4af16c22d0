package broker_test

import (
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"

	. "natslab/broker"
	"natslab/broker/brokertest"
)

// A listener for a room shows the addresses the room can reach and that a
// token is needed, never the token; and those addresses do work, with the
// token only.
func TestRoomAccessShowsReachableAddressesAndNoSecret(t *testing.T) {
	ips := brokertest.HostIPv4(t)
	const token = "room-secret-token"
	s, err := Start(Options{StoreDir: t.TempDir(), JetStream: true, Listen: "0.0.0.0:0", Token: token})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	a := s.Access()
	if got := fmt.Sprintf("%+v", a); strings.Contains(got, token) {
		t.Fatalf("the access shows the token: %s", got)
	}
	if a.Needs != NeedsToken || a.Needed() != "token needed" || a.Flags() != "--token …" {
		t.Errorf("what a client needs: %+v", a)
	}
	if !strings.HasPrefix(a.Local, "nats://127.0.0.1:") {
		t.Errorf("on this machine: %q", a.Local)
	}
	for _, ip := range ips {
		want := "nats://" + net.JoinHostPort(ip, strings.TrimPrefix(a.Local[strings.LastIndex(a.Local, ":"):], ":"))
		found := false
		for _, u := range a.Room {
			found = found || u == want
		}
		if !found {
			t.Errorf("the room's URLs %q lack %s", a.Room, want)
		}
	}
	if a.URL() != a.Room[0] {
		t.Errorf("the URL to show first is %q, not the room's", a.URL())
	}
	for _, u := range a.Room {
		if _, err := nats.Connect(u, nats.MaxReconnects(0)); err == nil {
			t.Errorf("%s let a client in without the token", u)
		}
		nc, err := nats.Connect(u, nats.Token(token), nats.MaxReconnects(0))
		if err != nil {
			t.Errorf("the room cannot reach %s: %v", u, err)
			continue
		}
		nc.Close()
	}
}

func TestLoopbackAccessHasNoRoom(t *testing.T) {
	s, err := Start(Options{StoreDir: t.TempDir(), JetStream: true, Listen: "127.0.0.1:0", User: "alice", Password: "pw-secret"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	a := s.Access()
	if len(a.Room) != 0 || a.URL() != a.Local || a.Needs != NeedsUserPassword || a.Flags() != "--user alice --password …" {
		t.Errorf("loopback with a user: %+v", a)
	}
	if strings.Contains(fmt.Sprintf("%+v", a), "pw-secret") {
		t.Error("the password shows")
	}
}
