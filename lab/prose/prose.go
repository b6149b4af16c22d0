// Package prose is the lesson pane's text: the lab's Markdown (the welcome
// text and every episode's lesson) rendered with glamour, in the pane's
// style, for every width the pane can have.
//
// The rendering happens when the lessons change (go generate ./lab/prose),
// not when natslab starts: glamour brings a syntax highlighter whose
// package initialisation parses every lexer and style it knows, a cost
// every natslab command would pay, TUI or not, if the binary linked it.
// The tests render every text again and fail, naming the command, if
// rendered.zip is stale.
//
// It imports nothing of natslab: the rendered text is data the binary embeds.
package prose

import (
	"archive/zip"
	"bufio"
	"bytes"
	_ "embed"
	"fmt"
	"hash/fnv"
	"io"
	"strconv"
	"strings"
	"sync"
)

//go:generate go run ./internal/gen

// MinWidth and MaxWidth bound the text column widths rendered: the lesson
// pane's text is 26 to 76 columns wide. Narrower asks get MinWidth's lines
// (the pane cuts them), wider ones MaxWidth's.
const (
	MinWidth = 20
	MaxWidth = 80
)

//go:embed rendered.zip
var rendered []byte

// EntryName is the archive entry that holds markdown's renderings: a short
// name for people reading the archive, and the text's hash for lookups.
func EntryName(name, markdown string) string {
	return fmt.Sprintf("%s.%016x.txt", name, Hash(markdown))
}

// Hash identifies a text.
func Hash(markdown string) uint64 {
	h := fnv.New64a()
	_, _ = io.WriteString(h, markdown)
	return h.Sum64()
}

var (
	mu   sync.Mutex
	last struct {
		hash  uint64
		lines map[int][]string
	}
)

// Lines is markdown rendered for a text column inner cells wide. ok is
// false for a text that was not rendered (a lesson edited without go
// generate; the tests catch it).
func Lines(markdown string, inner int) (lines []string, ok bool) {
	inner = min(max(inner, MinWidth), MaxWidth)
	h := Hash(markdown)
	mu.Lock()
	defer mu.Unlock()
	if last.lines == nil || last.hash != h {
		byWidth, err := load(h)
		if err != nil {
			return nil, false
		}
		last.hash, last.lines = h, byWidth
	}
	lines, ok = last.lines[inner]
	return lines, ok
}

func load(h uint64) (map[int][]string, error) {
	zr, err := zip.NewReader(bytes.NewReader(rendered), int64(len(rendered)))
	if err != nil {
		return nil, err
	}
	suffix := fmt.Sprintf(".%016x.txt", h)
	for _, f := range zr.File {
		if !strings.HasSuffix(f.Name, suffix) {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		return Decode(rc)
	}
	return nil, fmt.Errorf("no rendering of text %016x", h)
}

// Encode writes one text's renderings: for each width a line "WIDTH N",
// then its N lines.
func Encode(w io.Writer, byWidth map[int][]string) error {
	bw := bufio.NewWriter(w)
	for width := MinWidth; width <= MaxWidth; width++ {
		lines := byWidth[width]
		fmt.Fprintf(bw, "%d %d\n", width, len(lines))
		for _, l := range lines {
			bw.WriteString(l)
			bw.WriteByte('\n')
		}
	}
	return bw.Flush()
}

// Decode reads what Encode wrote.
func Decode(r io.Reader) (map[int][]string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	out := map[int][]string{}
	for sc.Scan() {
		head := strings.Fields(sc.Text())
		if len(head) != 2 {
			return nil, fmt.Errorf("damaged rendering: %q", sc.Text())
		}
		width, err1 := strconv.Atoi(head[0])
		n, err2 := strconv.Atoi(head[1])
		if err1 != nil || err2 != nil || n < 0 {
			return nil, fmt.Errorf("damaged rendering: %q", sc.Text())
		}
		lines := make([]string, 0, n)
		for range n {
			if !sc.Scan() {
				return nil, fmt.Errorf("damaged rendering: width %d ends early", width)
			}
			lines = append(lines, sc.Text())
		}
		out[width] = lines
	}
	return out, sc.Err()
}
