package workshop

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"net"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// codeAlphabet has no letters or digits that read alike (0/o, 1/l/i).
const codeAlphabet = "abcdefghjkmnpqrstuvwxyz23456789"

// NewRoomCode makes a room code to read out in a room: eight characters
// from 31 (about 40 bits), in two groups of four.
func NewRoomCode() string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported systems
	}
	out := make([]byte, 0, 9)
	for i, c := range b {
		if i == 4 {
			out = append(out, '-')
		}
		// The modulo bias (256 % 31) is a few percent on some letters:
		// irrelevant next to the attempt limit.
		out = append(out, codeAlphabet[int(c)%len(codeAlphabet)])
	}
	return string(out)
}

// newToken is a lab listener's token: 128 random bits, in hex.
func newToken() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported systems
	}
	return hex.EncodeToString(b)
}

// codeMatches compares what an attendee typed with the room code in
// constant time, forgiving case, spaces around it and a missing dash.
func codeMatches(typed, code string) bool {
	norm := func(s string) []byte {
		return []byte(strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "-", ""))
	}
	return subtle.ConstantTimeCompare(norm(typed), norm(code)) == 1
}

// attempts limits wrong room codes per address: a burst for typos, then
// one try every few seconds, so guessing the code takes longer than any
// workshop lasts. Right codes never count.
type attempts struct {
	mu      sync.Mutex
	per     map[string]*rate.Limiter
	every   time.Duration
	burst   int
	maxKeys int
}

func newAttempts() *attempts {
	return &attempts{per: map[string]*rate.Limiter{}, every: 5 * time.Second, burst: 8, maxKeys: 10000}
}

func host(addr net.Addr) string {
	if addr == nil {
		return ""
	}
	h, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return addr.String()
	}
	return h
}

// blocked says whether addr has used up its wrong guesses for now.
func (a *attempts) blocked(addr string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	l, ok := a.per[addr]
	return ok && l.Tokens() < 1
}

// failed counts a wrong code from addr.
func (a *attempts) failed(addr string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	l, ok := a.per[addr]
	if !ok {
		if len(a.per) >= a.maxKeys {
			// Someone is trying from very many addresses: forget the
			// oldest state rather than grow without bound. The limit
			// per address still holds for every address kept.
			for k := range a.per {
				delete(a.per, k)
				break
			}
		}
		l = rate.NewLimiter(rate.Every(a.every), a.burst)
		a.per[addr] = l
	}
	l.Allow()
}
