package broker

import (
	"cmp"
	"slices"
	"strings"

	"github.com/nats-io/nats-server/v2/server"
)

// maxSubscriptions bounds how many subscriptions of one account a look
// lists; lessons hold a handful.
const maxSubscriptions = 1 << 16

// Subscriptions are the running server's subscriptions, account by
// account, with stream imports' shadows apart (see AccountSubscriptions).
type Subscriptions struct {
	// Own lists, by account, the subscriptions its own connections made:
	// its clients', and those of the server's internal clients working
	// for it (a service import's, a stream's). Each one's Msgs counts
	// what reached it in that account; what reached it through a stream
	// import is counted on its shadows.
	Own map[string][]server.SubDetail
	// Shadows are the stream imports' shadow subscriptions, by importer,
	// then cid, sid, exporter and subject.
	Shadows []Shadow
}

// Shadow is the subscription a stream import makes in the exporting
// account for one subscription of the importer's.
type Shadow struct {
	Importer string // the account of the subscription it stands for
	Exporter string // the account it listens in
	// Import is the import's subject in the exporter, as /accountz names
	// it (the export it takes); "" when none of the importer's stream
	// imports from the exporter covers Subject any more.
	Import  string
	Cid     uint64 // the importer's client, as its own subscription's
	Sid     string // the importer's subscription's id
	Subject string // in the exporter's subjects
	Queue   string
	// Msgs is what the importer's subscription received through this
	// import.
	Msgs int64
}

// Imported lists the shadows of one subscription of an importer's: what
// reached it through each stream import, one shadow per import.
func (s *Subscriptions) Imported(cid uint64, sid string) []Shadow {
	var out []Shadow
	for _, sh := range s.Shadows {
		if sh.Cid == cid && sh.Sid == sid {
			out = append(out, sh)
		}
	}
	return out
}

// Of lists the shadows one stream import made: importer's import of
// subject (in the exporter's subjects, as /accountz names it) from
// exporter.
func (s *Subscriptions) Of(importer, exporter, subject string) []Shadow {
	var out []Shadow
	for _, sh := range s.Shadows {
		if sh.Importer == importer && sh.Exporter == exporter && sh.Import == subject {
			out = append(out, sh)
		}
	}
	return out
}

// AccountSubscriptions lists the subscriptions of the accounts named
// (every account when none is), as the server's /subsz endpoint gives
// them account by account, with stream imports' shadows split out: a
// shadow is listed when its exporter is.
//
// A stream import lets the importer's subscribers hear what is published
// in the exporter, and a message is matched only against the subscriptions
// of the account it was published in. So, for each subscription of the
// importer's that the import can feed, the server puts a copy of it into
// the exporter's account, on the exporter's side of the subject (orders.>
// for an import of orders.> under the prefix shop, fed by shop.orders.>).
// The copy keeps its client, so /subsz of the exporter lists it with the
// importer's account and the same cid and sid as the subscription it
// stands for. It is no subscription anyone made in the exporter, and what
// it counts is what the importer's subscription received through the
// import; the subscription's own count holds only what reached it in its
// own account. Subscriptions lists each in its place: Own, by the account
// of the connection that made it, and Shadows.
func (m *Monitor) AccountSubscriptions(accounts ...string) (*Subscriptions, error) {
	if len(accounts) == 0 {
		az, err := m.ns.Accountz(nil)
		if err != nil {
			return nil, err
		}
		accounts = az.Accounts
	}
	out := &Subscriptions{Own: map[string][]server.SubDetail{}}
	for _, acc := range accounts {
		sz, err := m.ns.Subsz(&server.SubszOptions{Account: acc, Subscriptions: true, Limit: maxSubscriptions})
		if err != nil {
			return nil, err
		}
		for _, sd := range sz.Subs {
			// Only a shadow is in one account's list with a client of
			// another.
			if sd.Account == acc {
				out.Own[acc] = append(out.Own[acc], sd)
				continue
			}
			out.Shadows = append(out.Shadows, Shadow{Importer: sd.Account, Exporter: acc, Cid: sd.Cid, Sid: sd.Sid, Subject: sd.Subject, Queue: sd.Queue, Msgs: sd.Msgs})
		}
	}
	imports := map[string][]server.ExtImport{} // each importer's stream imports
	for i := range out.Shadows {
		sh := &out.Shadows[i]
		ims, ok := imports[sh.Importer]
		if !ok {
			ims = m.streamImports(sh.Importer)
			imports[sh.Importer] = ims
		}
		sh.Import = importOf(ims, sh.Exporter, sh.Subject)
	}
	slices.SortFunc(out.Shadows, func(a, b Shadow) int {
		return cmp.Or(strings.Compare(a.Importer, b.Importer), cmp.Compare(a.Cid, b.Cid), strings.Compare(a.Sid, b.Sid), strings.Compare(a.Exporter, b.Exporter), strings.Compare(a.Subject, b.Subject))
	})
	return out, nil
}

// streamImports lists an account's stream imports, by subject.
func (m *Monitor) streamImports(account string) []server.ExtImport {
	az, err := m.ns.Accountz(&server.AccountzOptions{Account: account})
	if err != nil || az.Account == nil {
		return nil
	}
	var out []server.ExtImport
	for _, im := range az.Account.Imports {
		if im.Type.String() == "stream" {
			out = append(out, im)
		}
	}
	slices.SortFunc(out, func(a, b server.ExtImport) int { return strings.Compare(string(a.Subject), string(b.Subject)) })
	return out
}

// importOf names the stream import from exporter that made a shadow on
// subject: the one on exactly that subject, or else the first whose
// subject covers it (a subscription narrower than the import is shadowed
// on its own part of the subject).
func importOf(imports []server.ExtImport, exporter, subject string) string {
	found := ""
	for _, im := range imports {
		if im.Account != exporter || !server.SubjectMatchesFilter(subject, string(im.Subject)) {
			continue
		}
		if string(im.Subject) == subject {
			return subject
		}
		if found == "" {
			found = string(im.Subject)
		}
	}
	return found
}
