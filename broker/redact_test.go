package broker

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

func TestRedactMasksUserInfoOfEveryURL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"nats://127.0.0.1:4222", "nats://127.0.0.1:4222"},
		{"nats://alice:s3cret@host:4222", "nats://alice:xxxxx@host:4222"},
		{"nats://T0KEN@host:4222", "nats://xxxxx@host:4222"},
		{"cannot connect to nats://alice:s3cret@h:1: refused", "cannot connect to nats://alice:xxxxx@h:1: refused"},
		{"nats://a:p1@h1:1,nats://b:p2@h2:2", "nats://a:xxxxx@h1:1,nats://b:xxxxx@h2:2"},
		{"nats://a:p@ss/w@h:1 and tls://tok@h2", "nats://a:xxxxx@h:1 and tls://xxxxx@h2"},
		{`parse "nats://a:b c@h": invalid`, `parse "nats://a:xxxxx@h": invalid`},
		{"mail me@example.com at http://example.com/a@b", "mail me@example.com at http://xxxxx@b"},
		{"no urls here @ all", "no urls here @ all"},
	} {
		if got := Redact(c.in); got != c.want {
			t.Errorf("Redact(%q) = %q, want %q", c.in, got, c.want)
		}
		if HasUserInfo(c.in) != (c.in != c.want) {
			t.Errorf("HasUserInfo(%q) = %v", c.in, HasUserInfo(c.in))
		}
	}
}

func TestRedactErrorKeepsTheChain(t *testing.T) {
	//lint:ignore SA1007 an invalid URL on purpose: url.Parse's error quotes it, secret and all
	_, perr := url.Parse("nats://alice:se cret@host")
	err := RedactError(perr)
	if strings.Contains(err.Error(), "cret") {
		t.Errorf("the secret shows: %v", err)
	}
	var ue *url.Error
	if !errors.As(err, &ue) {
		t.Errorf("the chain is lost: %T", err)
	}
	plain := errors.New("nothing secret")
	if RedactError(plain) != plain || RedactError(nil) != nil {
		t.Error("an error without user info should come back as it was")
	}
}

func TestRedactURLTakesTheWholeValue(t *testing.T) {
	if got := RedactURL("nats://alice:hun ter2@h:1,nats://tok en@h:2"); got != "nats://alice:xxxxx@h:1,nats://xxxxx@h:2" {
		t.Errorf("RedactURL = %q", got)
	}
}
