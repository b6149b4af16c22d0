package brokertest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker"
)

// APIAudit hears the server's audit of its JetStream API
// ($JS.EVENT.ADVISORY.API): which client asked for what, from the moment
// AuditAPI returns.
type APIAudit struct {
	nc   *nats.Conn
	name string
	msgs chan *nats.Msg
}

// AuditAPI starts hearing d's audit of its JetStream API on a connection
// of its own.
func AuditAPI(t testing.TB, d broker.Deployment) *APIAudit {
	t.Helper()
	a := &APIAudit{name: "audit", msgs: make(chan *nats.Msg, 4096)}
	a.nc = Connect(t, d, a.name)
	if _, err := a.nc.ChanSubscribe("$JS.EVENT.ADVISORY.API", a.msgs); err != nil {
		t.Fatal(err)
	}
	if err := a.nc.Flush(); err != nil {
		t.Fatal(err)
	}
	return a
}

// Asked lists what other clients asked for so far whose subject starts
// with prefix, each as "CLIENT asked SUBJECT". The server audits requests
// in the order it answers them: once it has audited a request of the
// audit's own, sent now, it has audited every one answered before.
func (a *APIAudit) Asked(t testing.TB, prefix string) []string {
	t.Helper()
	js, err := jetstream.New(a.nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := js.AccountInfo(ctx); err != nil {
		t.Fatal(err)
	}
	var asked []string
	for {
		select {
		case m := <-a.msgs:
			var e struct {
				Subject string `json:"subject"`
				Client  struct {
					Name string `json:"name"`
				} `json:"client"`
			}
			if err := json.Unmarshal(m.Data, &e); err != nil {
				t.Fatal(err)
			}
			if e.Client.Name == a.name {
				if e.Subject == "$JS.API.INFO" {
					return asked
				}
				continue
			}
			if strings.HasPrefix(e.Subject, prefix) {
				asked = append(asked, fmt.Sprintf("%s asked %s", e.Client.Name, e.Subject))
			}
		case <-ctx.Done():
			t.Fatal("the server never audited the audit's own request")
		}
	}
}
