package command

import (
	"strconv"
	"strings"
	"time"
)

// jsMeta is what a JetStream message's ack subject says about it. Parsing
// it here, without allocating, keeps a 200,000-message replay cheap: the
// client library's Metadata() builds a struct and a token slice per message.
type jsMeta struct {
	stream   string
	consumer string
	seq      uint64 // stream sequence
	pending  uint64 // messages left for the consumer after this one
	ts       int64  // when the stream stored it, Unix nanoseconds
}

// parseAckSubject reads $JS.ACK.<stream>.<consumer>.<delivered>.<sseq>.<cseq>.<ts>.<pending>,
// or the longer form with a domain and account hash (and maybe a random
// token) after $JS.ACK. It reports false for anything else.
func parseAckSubject(reply string) (jsMeta, bool) {
	const prefix = "$JS.ACK."
	if !strings.HasPrefix(reply, prefix) {
		return jsMeta{}, false
	}
	var toks [12]string
	n := 0
	rest := reply[len(prefix):]
	for n < len(toks) {
		i := strings.IndexByte(rest, '.')
		if i < 0 {
			toks[n] = rest
			n++
			rest = ""
			break
		}
		toks[n] = rest[:i]
		n++
		rest = rest[i+1:]
	}
	if rest != "" {
		return jsMeta{}, false
	}
	// After $JS.ACK: 7 tokens in the old form, 9 or 10 in the new one.
	var t []string
	switch n {
	case 7:
		t = toks[0:7]
	case 9, 10:
		t = toks[2:9]
	default:
		return jsMeta{}, false
	}
	seq, err1 := strconv.ParseUint(t[3], 10, 64)
	ts, err2 := strconv.ParseInt(t[5], 10, 64)
	pending, err3 := strconv.ParseUint(t[6], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return jsMeta{}, false
	}
	return jsMeta{stream: t[0], consumer: t[1], seq: seq, pending: pending, ts: ts}, true
}

// appendComma appends n with thousands separators, as natscli's human() prints
// counts ("200,000").
func appendComma(b []byte, n uint64) []byte {
	if n < 1000 {
		return strconv.AppendUint(b, n, 10)
	}
	var digits [20]byte
	d := strconv.AppendUint(digits[:0], n, 10)
	lead := len(d) % 3
	if lead == 0 {
		lead = 3
	}
	b = append(b, d[:lead]...)
	for i := lead; i < len(d); i += 3 {
		b = append(b, ',')
		b = append(b, d[i:i+3]...)
	}
	return b
}

// secondClock formats stream timestamps as natscli does ("2006-01-02
// 15:04:05", local time), formatting each second once: a replay shows
// thousands of messages stored in the same second.
type secondClock struct {
	sec  int64
	text []byte
	ok   bool
}

func (sc *secondClock) append(b []byte, unixNano int64) []byte {
	sec := unixNano / int64(time.Second)
	if unixNano < 0 && unixNano%int64(time.Second) != 0 {
		sec--
	}
	if !sc.ok || sec != sc.sec {
		sc.text = time.Unix(sec, 0).Local().AppendFormat(sc.text[:0], "2006-01-02 15:04:05")
		sc.sec, sc.ok = sec, true
	}
	return append(b, sc.text...)
}
