package kit

import "natslab/broker/text"

// Clip shortens s to at most n cells. Where s has a blank to cut at, it
// keeps whole words and marks the cut with " …" (text.Words): a word cut
// in two reads as a different word. Only where that would keep less than
// half of what fits (a name too wide for n: a subject, an inbox, a queue
// group) is the name cut inside, with "…" (text.Clip): a beginning of it
// says more than nothing.
func Clip(s string, n int) string {
	if text.Width(s) <= n {
		return text.Clip(s, n) // s, each text.NoBreak a blank
	}
	if w := text.Words(s, n); w != "" && 2*text.Width(w) >= n {
		return w
	}
	return text.Clip(s, n)
}
