package command

import (
	"fmt"
	"strings"
)

// natsHeaders are the header names the server acts on when a message
// reaches a stream.
var natsHeaders = []string{
	"Nats-Msg-Id",
	"Nats-Expected-Stream",
	"Nats-Expected-Last-Sequence",
	"Nats-Expected-Last-Subject-Sequence",
	"Nats-Expected-Last-Msg-Id",
	"Nats-Rollup",
	"Nats-TTL",
}

// headerCaseNote says so when key is one of the server's own headers
// spelt with other capitals: header names are case-sensitive, so the
// server ignores it (a Nats-Msg-ID never deduplicates).
func headerCaseNote(key string) string {
	for _, h := range natsHeaders {
		if key != h && strings.EqualFold(key, h) {
			return fmt.Sprintf("header names are case-sensitive: the server acts on %s, and %s is just another header to it", h, key)
		}
	}
	return ""
}
