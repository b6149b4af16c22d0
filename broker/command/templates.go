package command

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"text/template"
	"time"

	"github.com/nats-io/nuid"
)

// msgTemplate is a message body (or header value, or subject) with the real
// CLI's template functions: {{Count}}, {{TimeStamp}}, {{Unix}}, {{UnixNano}},
// {{Time}}, {{ID}}, {{Random a b}}, and {{Request}} in replies. Text without
// "{{" is used as is and costs nothing per message.
type msgTemplate struct {
	text string
	t    *template.Template
	vars *templateVars
}

// templateVars are what the functions return for one message. Fields with
// the same names let {{.Count}} work too, as it does in the real CLI.
type templateVars struct {
	Cnt, Count     int
	Unix, UnixNano int64
	TimeStamp      string
	Time           string
	Request        string
}

func (v *templateVars) ID() string { return nuid.Next() }

func compileTemplate(text string) (*msgTemplate, error) {
	m := &msgTemplate{text: text}
	if !strings.Contains(text, "{{") {
		return m, nil
	}
	v := &templateVars{}
	funcs := template.FuncMap{
		"Count":     func() int { return v.Count },
		"Cnt":       func() int { return v.Count },
		"Unix":      func() int64 { return v.Unix },
		"UnixNano":  func() int64 { return v.UnixNano },
		"TimeStamp": func() string { return v.TimeStamp },
		"Time":      func() string { return v.Time },
		"ID":        func() string { return nuid.Next() },
		"Random":    randomString,
		"Request":   func() string { return v.Request },
	}
	t, err := template.New("body").Funcs(funcs).Parse(text)
	if err != nil {
		return nil, usageErrorf("the template %q does not parse: %s (templates look like {{Count}} or {{Random 5 10}})", text, templateError(err))
	}
	m.t, m.vars = t, v
	return m, nil
}

// expand renders the template for message number count. Not safe for
// concurrent use: one template per running command.
func (m *msgTemplate) expand(count int, request string, now time.Time) (string, error) {
	if m.t == nil {
		return m.text, nil
	}
	*m.vars = templateVars{Cnt: count, Count: count, Unix: now.Unix(), UnixNano: now.UnixNano(),
		TimeStamp: now.Format(time.RFC3339), Time: now.Format(time.Kitchen), Request: request}
	var b bytes.Buffer
	if err := m.t.Execute(&b, m.vars); err != nil {
		return m.text, fmt.Errorf("the template %q failed: %s", m.text, templateError(err))
	}
	return b.String(), nil
}

func templateError(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, ": "); i >= 0 && strings.HasPrefix(msg, "template: ") {
		msg = msg[i+2:]
	}
	return strings.TrimPrefix(msg, "template: body:")
}

const randomAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// randomString is at least min and at most max characters long.
func randomString(min, max int) string {
	if min < 0 {
		min = 0
	}
	if max < min {
		max = min
	}
	if max > 1<<20 {
		max = 1 << 20
	}
	n := min
	if max > min {
		n += rand.IntN(max - min + 1)
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = randomAlphabet[rand.IntN(len(randomAlphabet))]
	}
	return string(b)
}
