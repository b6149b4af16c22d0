package command

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"text/template"
	"time"

	"github.com/nats-io/nuid"
)

// The real CLI's message templates (natscli's PubReplyBodyTemplate), used
// by pub, request and reply for bodies, subjects and header values:
// {{Count}}, {{TimeStamp}}, {{Unix}}, {{UnixNano}}, {{Time}}, {{ID}},
// {{Random a b}}, the same as fields ({{.Count}}), and {{Request}} in a
// reply when the request has a body. A template that does not parse or
// run yields its text unchanged and the error, as the real CLI does.

// msgTemplate is one text, parsed once: the real CLI parses it again for
// every message, which gives the same result.
type msgTemplate struct {
	text string

	mu      sync.Mutex
	plain   *template.Template // without Request
	request *template.Template // with Request, for a request with a body
	vars    templateVars
}

// templateVars are what the functions and fields give for one message.
type templateVars struct {
	Cnt, Count     int
	Unix, UnixNano int64
	TimeStamp      string
	Time           string
	Request        string
}

func (v *templateVars) ID() string { return nuid.Next() }

// newTemplate prepares text; text without "{{" is used as it is.
func newTemplate(text string) *msgTemplate {
	return &msgTemplate{text: text}
}

// expand renders the template for message number ctr (counting from 1),
// in answer to request (the request's body, for reply). On an error the
// text comes back unchanged, with the error.
func (m *msgTemplate) expand(ctr int, request string, now time.Time) (string, error) {
	if !strings.Contains(m.text, "{{") {
		return m.text, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.vars = templateVars{Cnt: ctr, Count: ctr, Unix: now.Unix(), UnixNano: now.UnixNano(),
		TimeStamp: now.Format(time.RFC3339), Time: now.Format(time.Kitchen), Request: request}
	t, err := m.parsed(request != "")
	if err != nil {
		return m.text, err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, &m.vars); err != nil {
		return m.text, asNatscliVars(err)
	}
	return b.String(), nil
}

// asNatscliVars names the data a template runs against in err as natscli's
// errors name theirs ("can't evaluate field Nope in type *util.pubData"),
// since the lab prints the error as the real CLI does.
func asNatscliVars(err error) error {
	msg := strings.ReplaceAll(err.Error(), fmt.Sprintf("%T", &templateVars{}), "*util.pubData")
	if msg == err.Error() {
		return err
	}
	return errors.New(msg)
}

// parsed is the text parsed with the functions the real CLI offers: Request
// only when there is a request body.
func (m *msgTemplate) parsed(withRequest bool) (*template.Template, error) {
	slot := &m.plain
	if withRequest {
		slot = &m.request
	}
	if *slot != nil {
		return *slot, nil
	}
	v := &m.vars
	funcs := template.FuncMap{
		"Random":    randomString,
		"Count":     func() int { return v.Count },
		"Cnt":       func() int { return v.Count },
		"Unix":      func() int64 { return v.Unix },
		"UnixNano":  func() int64 { return v.UnixNano },
		"TimeStamp": func() string { return v.TimeStamp },
		"Time":      func() string { return v.Time },
		"ID":        func() string { return nuid.Next() },
	}
	if withRequest {
		funcs["Request"] = func() string { return v.Request }
	}
	t, err := template.New("body").Funcs(funcs).Parse(m.text)
	if err != nil {
		return nil, err
	}
	*slot = t
	return t, nil
}

const randomAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// randomLimit caps Random's length so a typo cannot exhaust memory: one
// byte more than any server's max_payload may be (64 MiB), so whatever the
// real CLI would publish or have refused, the lab publishes or has
// refused too.
const randomLimit = 64<<20 + 1

// randomString is natscli's RandomString: between shortest and longest
// characters (either order), capped at randomLimit.
func randomString(shortest, longest uint) string {
	if shortest > longest {
		shortest, longest = longest, shortest
	}
	longest = min(longest, randomLimit)
	shortest = min(shortest, longest)
	n := int(shortest)
	if longest > shortest {
		n += rand.IntN(int(longest-shortest) + 1)
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = randomAlphabet[rand.IntN(len(randomAlphabet))]
	}
	return string(b)
}
