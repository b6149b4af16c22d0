package command

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/choria-io/fisk"
	"github.com/nats-io/jsm.go/api"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/natscli/columns"
)

// account info: who the lab's connection is, where it is connected, and
// what the account holds in JetStream, in natscli's layout.

func init() {
	register(&natsCommand{name: "account", aliases: []string{"a"}, summary: "Show the account the lab is connected as", build: buildAccount})
	examples["account info"] = "account info"
}

func buildAccount(app *fisk.Application, c *Call) {
	a := app.Command("account", "Account information").Alias("a")
	a.Command("info", "Shows the connection, the account and its JetStream usage and limits").Alias("nfo").Action(act(c, accountInfo))
}

// userInfo is the server's answer to $SYS.REQ.USER.INFO.
type userInfo struct {
	Data *struct {
		User        string        `json:"user"`
		UserName    string        `json:"user_name"`
		Account     string        `json:"account"`
		AccountName string        `json:"account_name"`
		Expires     time.Duration `json:"expires"`
		Permissions *struct {
			Publish   *subjectPermission `json:"publish"`
			Subscribe *subjectPermission `json:"subscribe"`
		} `json:"permissions"`
	} `json:"data"`
	Error *struct {
		Description string `json:"description"`
	} `json:"error"`
}

type subjectPermission struct {
	Allow []string `json:"allow"`
	Deny  []string `json:"deny"`
}

func accountInfo(c *Call) error {
	nc, err := c.Conn()
	if err != nil {
		return err
	}
	cols := newColumns("Account Information")
	ui := c.userInfo(nc)
	if ui != nil {
		d := ui.Data
		if d.UserName != "" {
			cols.AddRowf("User", "%s (%s)", d.UserName, d.User)
		} else {
			// Without users configured this is empty, as natscli shows it.
			cols.AddRow("User", d.User)
		}
		if d.AccountName != "" {
			cols.AddRowf("Account", "%s (%s)", d.AccountName, d.Account)
			cols.AddRow("System Account", nc.IsSystemAccount())
		} else {
			cols.AddRow("Account", d.Account)
		}
		if d.Expires == 0 {
			cols.AddRow("Expires", "never")
		} else {
			cols.AddRow("Expires", d.Expires)
		}
	}
	c.connectionRows(cols, nc)
	if ui != nil && ui.Data.Permissions != nil {
		cols.AddSectionTitle("Connection Permissions")
		permissionRows(cols, "Publish:", ui.Data.Permissions.Publish)
		cols.Println()
		permissionRows(cols, "Subscribe:", ui.Data.Permissions.Subscribe)
		cols.Println()
	}
	why := c.jetStreamAccountRows(cols, nc)
	if err := renderColumns(c.Out, cols); err != nil {
		return err
	}
	if why != "" {
		c.Notef("%s", why)
	}
	return nil
}

// userInfo asks the server who this connection is; nil if it will not say.
// natscli gives it a second, whatever --timeout says.
func (c *Call) userInfo(nc *nats.Conn) *userInfo {
	ctx, cancel := context.WithTimeout(c.Ctx, time.Second)
	defer cancel()
	resp, err := nc.RequestWithContext(ctx, "$SYS.REQ.USER.INFO", nil)
	if err != nil {
		return nil
	}
	var ui userInfo
	if json.Unmarshal(resp.Data, &ui) != nil || ui.Error != nil || ui.Data == nil {
		return nil
	}
	return &ui
}

// connectionRows describes the connection. The lab's own connection runs
// in-process, with no address: it says so instead of showing nats.go's
// placeholder URL.
func (c *Call) connectionRows(cols *columns.Writer, nc *nats.Conn) {
	id, _ := nc.GetClientID()
	cols.AddRowf("Client ID", "%d", id)
	inProcess := nc.ConnectedAddr() == "pipe"
	if inProcess {
		cols.AddRow("Client IP", "in-process")
	} else {
		ip, _ := nc.GetClientIP()
		if lip := nc.LocalAddr(); lip == "" || strings.HasPrefix(lip, ip.String()) {
			cols.AddRow("Client IP", ip)
		} else {
			cols.AddRowf("Client IP", "%s (%s)", ip, lip)
		}
	}
	rtt, _ := nc.RTT()
	cols.AddRow("RTT", rtt)
	cols.AddRow("Headers Supported", nc.HeadersSupported())
	cols.AddRow("Maximum Payload", size(nc.MaxPayload()))
	cols.AddRowIfNotEmpty("Connected Cluster", nc.ConnectedClusterName())
	if inProcess {
		url := "in-process"
		if u := c.S.dep.ClientURL(); u != "" {
			url += fmt.Sprintf(" (other clients use %s)", u)
		}
		cols.AddRow("Connected URL", url)
		cols.AddRow("Connected Address", "in-process")
	} else {
		cols.AddRow("Connected URL", nc.ConnectedUrl())
		cols.AddRow("Connected Address", nc.ConnectedAddr())
	}
	cols.AddRow("Connected Server ID", nc.ConnectedServerId())
	cols.AddRow("Connected Server Version", nc.ConnectedServerVersion())
	cols.AddRowIf("Connected Server Name", nc.ConnectedServerName(), nc.ConnectedServerId() != nc.ConnectedServerName())
	if tlsc, err := nc.TLSConnectionState(); err == nil && tlsc.HandshakeComplete {
		cols.AddRowf("TLS Version", "%s using %s", tlsVersion(tlsc.Version), tls.CipherSuiteName(tlsc.CipherSuite))
		cols.AddRow("TLS Server Name", tlsc.ServerName)
		if len(tlsc.VerifiedChains) > 0 {
			cols.AddRowf("TLS Verified", "issuer %s", tlsc.PeerCertificates[0].Issuer.String())
		} else {
			cols.AddRow("TLS Verified", "no")
		}
	} else {
		cols.AddRow("TLS Connection", "no")
	}
}

func tlsVersion(v uint16) string {
	switch v {
	case tls.VersionTLS10:
		return "1.0"
	case tls.VersionTLS11:
		return "1.1"
	case tls.VersionTLS12:
		return "1.2"
	case tls.VersionTLS13:
		return "1.3"
	}
	return fmt.Sprintf("unknown (%x)", v)
}

func permissionRows(cols *columns.Writer, title string, p *subjectPermission) {
	if p == nil || (len(p.Allow) == 0 && len(p.Deny) == 0) {
		return
	}
	cols.Indent(2)
	defer cols.Indent(0)
	cols.Println(title)
	if len(p.Allow) > 0 {
		sort.Strings(p.Allow)
		cols.AddStringsAsValue("Allow", p.Allow)
	}
	if len(p.Deny) > 0 {
		cols.Println()
		sort.Strings(p.Deny)
		cols.AddStringsAsValue("Deny", p.Deny)
	}
}

// jsErrCodeNotEnabledForAccount is the JetStream API's error code for an
// account without JetStream on a server that has it.
const jsErrCodeNotEnabledForAccount = 10039

// jetStreamAccountRows adds the account's JetStream usage and limits, or
// says why there are none, and returns the lab's note on it, if any.
func (c *Call) jetStreamAccountRows(cols *columns.Writer, nc *nats.Conn) (note string) {
	js, err := jetstream.New(nc)
	var info *jetstream.AccountInfo
	if err == nil {
		// natscli asks through jsm.go, which waits at least half a second.
		ctx, cancel := context.WithTimeout(c.Ctx, jsmTimeout(c.timeout))
		info, err = js.AccountInfo(ctx)
		cancel()
	}
	if err != nil {
		cols.Println()
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			cols.Println("   No response from JetStream server")
		case errors.Is(err, nats.ErrNoResponders), errors.Is(err, jetstream.ErrJetStreamNotEnabled):
			cols.Println("   JetStream is not supported in this account")
			if c.S.dep.Own() {
				return "the lab's server runs without JetStream: turn it on with nats-server -js"
			}
		default:
			// natscli asks through jsm.go, whose errors read otherwise
			// than nats.go's ("JetStream not enabled for account
			// (10039)"): its words come from asking as it asks.
			if mgr, merr := c.manager(); merr == nil {
				if _, jerr := mgr.JetStreamAccountInfo(); jerr != nil {
					err = jerr
				}
			}
			cols.Println("   Could not obtain account information: ", err.Error())
			if unreachable(err) {
				return unreachableNote
			}
			if api.IsNatsError(err, jsErrCodeNotEnabledForAccount) {
				return "this account has no JetStream: a server with accounts enables it account by account (jetstream: enabled in the account's configuration, or JetStream limits in its JWT)"
			}
		}
		return ""
	}
	if info.Domain == "" {
		cols.AddSectionTitle("JetStream Account Information")
	} else {
		cols.AddSectionTitle("JetStream Account Information for domain %s", info.Domain)
	}
	cols.AddSectionTitle("Account Usage")
	cols.AddRowIfNotEmpty("Domain", info.Domain)
	cols.AddRow("Storage", size(info.Store))
	cols.AddRow("Memory", size(info.Memory))
	cols.AddRow("Streams", info.Streams)
	cols.AddRow("Consumers", info.Consumers)
	cols.AddSectionTitle("Account Limits")
	cols.AddRow("Max Message Payload", size(nc.MaxPayload()))
	if len(info.Tiers) > 0 {
		names := make([]string, 0, len(info.Tiers))
		for n := range info.Tiers {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			tierRows(cols, n, info.Tiers[n])
		}
	} else {
		tierRows(cols, "Default", info.Tier)
	}
	return ""
}

// tierRows is one JetStream tier's requirements and limits.
func tierRows(cols *columns.Writer, name string, t jetstream.Tier) {
	cols.Indent(2)
	defer cols.Indent(0)
	cols.AddSectionTitle("Tier: %s", name)
	cols.Indent(6)
	cols.AddSectionTitle("Configuration Requirements")
	cols.AddRow("Stream Requires Max Bytes Set", t.Limits.MaxBytesRequired)
	if t.Limits.MaxAckPending <= 0 {
		cols.AddRow("Consumer Maximum Ack Pending", "Unlimited")
	} else {
		cols.AddRow("Consumer Maximum Ack Pending", t.Limits.MaxAckPending)
	}
	cols.AddSectionTitle("Stream Resource Usage Limits")
	reserved := func(n uint64) string {
		if n == 0 {
			return ""
		}
		return fmt.Sprintf("(%s reserved)", size(n))
	}
	limit := func(n int64) string {
		if n == -1 {
			return "Unlimited"
		}
		return size(n)
	}
	// natscli leaves a space before an empty "reserved" note; so does the lab.
	cols.AddRowf("Memory", "%s of %s %s", size(t.Memory), limit(t.Limits.MaxMemory), reserved(t.ReservedMemory))
	if t.Limits.MemoryMaxStreamBytes <= 0 {
		cols.AddRow("Memory Per Stream", "Unlimited")
	} else {
		cols.AddRow("Memory Per Stream", size(t.Limits.MemoryMaxStreamBytes))
	}
	cols.AddRowf("Storage", "%s of %s %s", size(t.Store), limit(t.Limits.MaxStore), reserved(t.ReservedStore))
	if t.Limits.StoreMaxStreamBytes <= 0 {
		cols.AddRow("Storage Per Stream", "Unlimited")
	} else {
		cols.AddRow("Storage Per Stream", size(t.Limits.StoreMaxStreamBytes))
	}
	if t.Limits.MaxStreams == -1 {
		cols.AddRowf("Streams", "%s of Unlimited", human(t.Streams))
	} else {
		cols.AddRowf("Streams", "%s of %s", human(t.Streams), human(t.Limits.MaxStreams))
	}
	if t.Limits.MaxConsumers == -1 {
		cols.AddRow("Consumers", "Unlimited")
	} else {
		cols.AddRowf("Consumers", "Maximum %s per stream", human(t.Limits.MaxConsumers))
	}
}
