package realcli

import (
	"bufio"
	"errors"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A running child says, when asked, where its connections come from: the
// local address of each TCP socket it has connected. A server lists its
// clients by that address (Connz's ip and port), so the lab can tell which
// of a server's connections are the child's, and, once the child has
// ended, wait until the server has dropped them and their subscriptions:
// the server notices a client's closed socket only a moment after the
// client's process has exited.
//
// The lab asks on the pipe the child watches its parent on (see
// watchParent), one byte per question; the child answers each with one
// line on a second pipe, the addresses separated by spaces.

// replyFDVar names the descriptor the child answers on.
const replyFDVar = "NATSLAB_CLI_REPLY_FD"

// askConns is the byte that asks the child for its connections.
const askConns = 'c'

// Probe asks a running child for its connections (see Child.Probe).
type Probe struct {
	// Found receives each answer, while the child still runs: the local
	// addresses of the child's connected TCP sockets, none when it has
	// none.
	Found func(local []netip.AddrPort)

	mu  sync.Mutex
	ask *asker // while the child runs
}

// probeTimeout bounds how long the lab waits for the child's answer.
const probeTimeout = 2 * time.Second

// Look asks the running child for its connections and hands the answer to
// Found. It does nothing once the child has ended (or before it started),
// or when the child does not answer.
func (p *Probe) Look() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ask == nil {
		return
	}
	local, err := p.ask.conns(probeTimeout)
	if err != nil {
		// A child that failed to answer once is not asked again: a late
		// answer would be taken for the next question's.
		p.ask = nil
		return
	}
	if p.Found != nil {
		p.Found(local)
	}
}

// attach makes the probe ask the child on w and read its answers from r;
// nil ends that, once any question asked has been answered.
func (p *Probe) attach(a *asker) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.ask = a
	p.mu.Unlock()
}

// asker is the lab's end of the two pipes.
type asker struct {
	w *os.File // the child reads its questions at the other end
	f *os.File // the child answers at the other end
	r *bufio.Reader
}

func newAsker(w, answers *os.File) *asker {
	return &asker{w: w, f: answers, r: bufio.NewReader(answers)}
}

func (a *asker) conns(timeout time.Duration) ([]netip.AddrPort, error) {
	if _, err := a.w.Write([]byte{askConns}); err != nil {
		return nil, err
	}
	if err := a.f.SetReadDeadline(time.Now().Add(timeout)); err != nil {
		return nil, err
	}
	line, err := a.r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	return parseConns(line)
}

// formatConns is the child's answer line.
func formatConns(local []netip.AddrPort) string {
	words := make([]string, len(local))
	for i, a := range local {
		words[i] = a.String()
	}
	return strings.Join(words, " ") + "\n"
}

func parseConns(line string) ([]netip.AddrPort, error) {
	var out []netip.AddrPort
	for _, w := range strings.Fields(line) {
		a, err := netip.ParseAddrPort(w)
		if err != nil {
			return nil, errors.New("the real CLI answered with an address it cannot have: " + strconv.Quote(w))
		}
		out = append(out, a)
	}
	return out, nil
}

// answerQuestions is the child's end: it reads questions from parent until
// the parent is gone (then the child exits, see watchParent) and answers
// each on the descriptor replyFDVar names.
func answerQuestions(parent *os.File) {
	var reply *os.File
	if fd, err := strconv.Atoi(os.Getenv(replyFDVar)); err == nil && fd >= 3 {
		os.Unsetenv(replyFDVar)
		closeOnExec(fd)
		reply = os.NewFile(uintptr(fd), "natslab-reply")
	}
	buf := make([]byte, 64)
	for {
		n, err := parent.Read(buf)
		for _, b := range buf[:n] {
			if b == askConns && reply != nil {
				_, _ = reply.WriteString(formatConns(localConns()))
			}
		}
		if err != nil {
			return
		}
	}
}
