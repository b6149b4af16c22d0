package command

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/google/shlex"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// msgPrinter writes received messages in the real CLI's formats: the
// "[#1] Received on …" lines, headers, the body followed by blank lines,
// --raw bodies, --dump JSON. It appends into a buffered writer and reuses
// its scratch space, so printing a message costs no allocation in the
// common case. Not safe for concurrent use: the sink serialises calls.
type msgPrinter struct {
	w            *bufio.Writer
	ctx          context.Context
	raw          bool
	headersOnly  bool
	subjectsOnly bool
	dump         string // "", "-" (NUL-separated JSON on the output) or a directory
	stamps       byte   // 't' for --timestamp, 'd' for --delta-time
	start        time.Time
	now          func() time.Time
	translate    *translator
	// status writes a line of the real CLI's log (stderr, led by the
	// time), as natscli's log.Printf does: Call.Statusf.
	status func(format string, a ...any)
	// note writes the lab's note: Call.Notef.
	note func(format string, a ...any)
	// failed is the lab's refusal that ends the sub, once printing a
	// message met what the real CLI cannot go on from (it crashes).
	failed error

	line  []byte
	keys  []string
	clock secondClock
}

// stamp is the " @ …" label of -t and -d; at is when the message was
// stored (JetStream) or zero (now).
func (p *msgPrinter) stamp(b []byte, at time.Time) []byte {
	switch p.stamps {
	case 't':
		if at.IsZero() {
			at = p.now()
		}
		return at.AppendFormat(append(b, " @ "...), time.StampMicro)
	case 'd':
		from := p.start
		if !at.IsZero() {
			from = at
		}
		return append(append(b, " @ "...), time.Since(from).String()...)
	}
	return b
}

// core prints a message from a core subscription.
func (p *msgPrinter) core(ctr uint, m *nats.Msg) {
	if p.dump != "" {
		p.dumpMsg(m.Subject, m.Reply, m.Header, m.Data, strconv.FormatUint(uint64(ctr), 10), ctr)
		return
	}
	if p.raw {
		p.bodyCompact(m.Data, m.Subject)
		return
	}
	b := append(p.line[:0], "[#"...)
	b = append(strconv.AppendUint(b, uint64(ctr), 10), ']')
	b = append(p.stamp(b, time.Time{}), " Received on "...)
	b = strconv.AppendQuote(b, m.Subject)
	if m.Reply != "" {
		b = strconv.AppendQuote(append(b, " with reply "...), m.Reply)
	}
	p.line = append(b, '\n')
	p.w.Write(p.line)
	if !p.subjectsOnly {
		p.headersAndBody(m.Header, m.Data, m.Subject)
	}
}

// jetStream prints a message delivered by a consumer.
func (p *msgPrinter) jetStream(ctr uint, subject, reply string, hdr nats.Header, data []byte, meta jsMeta) {
	if p.dump != "" {
		p.dumpMsg(subject, reply, hdr, data, strconv.FormatUint(meta.seq, 10), ctr)
		return
	}
	if p.raw {
		p.bodyCompact(data, subject)
		return
	}
	b := append(p.line[:0], "[#"...)
	b = append(strconv.AppendUint(b, uint64(ctr), 10), ']')
	if p.stamps != 0 {
		b = p.stamp(b, time.Unix(0, meta.ts))
	}
	b = append(b, " Received JetStream message: stream: "...)
	b = append(b, meta.stream...)
	b = appendComma(append(b, " seq: "...), meta.seq)
	b = appendComma(append(b, " / pending: "...), meta.pending)
	b = append(append(b, " / subject: "...), subject...)
	b = p.clock.append(append(b, " / time: "...), meta.ts)
	p.line = append(b, '\n')
	p.w.Write(p.line)
	if !p.subjectsOnly {
		p.headersAndBody(hdr, data, subject)
	}
}

// direct prints a message read with a direct get (work-queue and interest
// streams, --direct). The real CLI numbers these without thousands
// separators and without a pending count.
func (p *msgPrinter) direct(ctr uint, m *jetstream.RawStreamMsg, stream string) {
	if p.dump != "" {
		p.dumpMsg(m.Subject, "", m.Header, m.Data, strconv.FormatUint(m.Sequence, 10), ctr)
		return
	}
	if p.raw {
		p.bodyCompact(m.Data, m.Subject)
		return
	}
	b := append(p.line[:0], "[#"...)
	b = append(strconv.AppendUint(b, uint64(ctr), 10), ']')
	b = append(p.stamp(b, time.Time{}), " Received JetStream message (direct): stream: "...)
	b = append(b, stream...)
	b = strconv.AppendUint(append(b, " seq "...), m.Sequence, 10)
	b = append(append(b, " / subject: "...), m.Subject...)
	b = p.clock.append(append(b, " / time: "...), m.Time.UnixNano())
	p.line = append(b, '\n')
	p.w.Write(p.line)
	if !p.subjectsOnly {
		p.headersAndBody(m.Header, m.Data, m.Subject)
	}
}

// headersAndBody prints "Key: value" lines, a blank line, then the body.
// Headers are sorted: the real CLI prints them in random order.
func (p *msgPrinter) headersAndBody(hdr nats.Header, data []byte, subject string) {
	p.keys = p.keys[:0]
	for k := range hdr {
		p.keys = append(p.keys, k)
	}
	if len(p.keys) > 0 {
		sort.Strings(p.keys)
		for _, k := range p.keys {
			for _, v := range hdr[k] {
				p.w.WriteString(k)
				p.w.WriteString(": ")
				p.w.WriteString(v)
				p.w.WriteByte('\n')
			}
		}
		p.w.WriteByte('\n')
	}
	if !p.headersOnly {
		p.body(data, subject)
	}
}

// bodyCompact prints the body on its own line ("nil body" when empty), as
// --raw does; it reports what was printed and whether that went well.
func (p *msgPrinter) bodyCompact(data []byte, subject string) ([]byte, bool) {
	if len(data) == 0 && p.translate == nil {
		p.w.WriteString("nil body\n")
		return nil, true
	}
	if p.translate != nil {
		out, err := p.translate.run(p.ctx, data, subject)
		if err != nil {
			if p.noCommand(err) {
				return nil, false
			}
			fmt.Fprintf(p.w, "%q\nError while translating msg body: %s\n\n", out, err)
			p.noteOf(err)
			return nil, false
		}
		data = out
	}
	p.w.Write(data)
	if !bytes.HasSuffix(data, []byte{'\n'}) {
		p.w.WriteByte('\n')
	}
	return data, true
}

// body prints the body and then blank lines: two after a body without a
// final newline, one after a body with it, exactly as the real CLI.
func (p *msgPrinter) body(data []byte, subject string) {
	out, ok := p.bodyCompact(data, subject)
	if !ok {
		return
	}
	p.w.WriteByte('\n')
	if !bytes.HasSuffix(out, []byte{'\n'}) {
		p.w.WriteByte('\n')
	}
}

// dumpMsg writes the message as the real CLI's JSON: to the output followed
// by a NUL (--dump=-), or to DIR/<seq>.json with a dot every 100 messages.
func (p *msgPrinter) dumpMsg(subject, reply string, hdr nats.Header, data []byte, name string, ctr uint) {
	msg := &nats.Msg{Subject: subject, Reply: reply, Header: hdr, Data: data}
	if len(hdr) == 0 {
		msg.Header = nil
	}
	if p.translate != nil {
		out, err := p.translate.run(p.ctx, data, subject)
		if err != nil {
			if !p.noCommand(err) {
				p.status("%q\nError while translating msg body: %s\n\n", out, err)
				p.noteOf(err)
			}
			return
		}
		msg.Data = out
	}
	js, err := json.Marshal(msg)
	if err != nil {
		p.status("Could not JSON encode message: %s", err)
		return
	}
	if p.dump == "-" {
		p.w.Write(js)
		p.w.WriteByte(0)
		return
	}
	if err := os.WriteFile(filepath.Join(p.dump, name+".json"), js, 0o600); err != nil {
		p.status("Could not save message: %s", err)
	}
	if ctr%100 == 0 {
		p.w.WriteByte('.')
	}
}

// noCommand reports whether err says that the --translate command line
// names no command, and if so makes it the refusal that ends the sub: the
// real CLI crashes there (an index out of range), so it has no line of its
// own to print.
func (p *msgPrinter) noCommand(err error) bool {
	var empty *emptyTranslation
	if !errors.As(err, &empty) {
		return false
	}
	if p.failed == nil {
		p.failed = usageErrorf("--translate %q names no command to run, so the sub stops here (the real CLI crashes on it): give one, for example --translate 'tr a-z A-Z'", empty.line)
	}
	return true
}

// noteOf shows the lab's note on err, if it has one, after what is
// printed so far.
func (p *msgPrinter) noteOf(err error) {
	if n := ErrorNote(err); n != "" && p.note != nil {
		p.w.Flush()
		p.note("%s", n)
	}
}

// emptyTranslation: the --translate command line, as its template wrote it
// for a message, has no words.
type emptyTranslation struct{ line string }

func (e *emptyTranslation) Error() string { return fmt.Sprintf("the command line %q is empty", e.line) }

// translator pipes a body through a command (--translate), as the real CLI
// does (natscli's filterDataThroughCmd): the command line may use
// {{Subject}} and {{Stream}}; it is split into words as natscli splits it
// and runs without a shell, and is killed if the job stops or it takes too
// long. Its failures are natscli's: the template's own error or the
// splitter's, and nothing translated.
type translator struct {
	tmpl     *template.Template
	parseErr error // the command line does not parse: every message says so
	subject  string
	timeout  time.Duration
}

func newTranslator(command string, timeout time.Duration) *translator {
	t := &translator{timeout: timeout}
	funcs := template.FuncMap{
		"Subject": func() string { return t.subject },
		// natscli's sub and request give {{Stream}} nothing, wherever
		// the message came from.
		"Stream": func() string { return "" },
	}
	t.tmpl, t.parseErr = template.New("translate").Funcs(funcs).Parse(command)
	return t
}

func (t *translator) run(ctx context.Context, data []byte, subject string) ([]byte, error) {
	if t.parseErr != nil {
		return nil, t.parseErr
	}
	t.subject = subject
	var line strings.Builder
	if err := t.tmpl.Execute(&line, nil); err != nil {
		return nil, err
	}
	words, err := shlex.Split(line.String())
	if err != nil {
		return nil, fmt.Errorf("the filter command line could not be parsed: %w", err)
	}
	if len(words) == 0 {
		return nil, &emptyTranslation{line: line.String()}
	}
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, words[0], words[1:]...)
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.CombinedOutput()
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		// The real CLI would wait for it; its line says only how it ended.
		err = explain(err, "the --translate command ran longer than %s, so the lab stopped it", t.timeout)
	}
	return out, err
}
