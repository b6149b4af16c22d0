package kit

import (
	"strings"
	"unicode/utf8"
)

// Canvas is a grid of cells a scene draws into at the pane's size; drawing
// outside it is clipped, so layouts never have to guard their edges.
// Every rune used must be one cell wide (box drawing, geometric shapes,
// ASCII): the canvas counts runes, not display widths, which is what keeps
// a frame cheap.
type Canvas struct {
	w, h    int
	runes   []rune
	roles   []Role
	spilled int
}

// NewCanvas makes a blank canvas.
func NewCanvas(w, h int) *Canvas {
	c := &Canvas{}
	c.Reset(w, h)
	return c
}

// Reset blanks the canvas at a new size, reusing its memory.
func (c *Canvas) Reset(w, h int) {
	w, h = max(w, 0), max(h, 0)
	n := w * h
	if cap(c.runes) < n {
		c.runes = make([]rune, n)
		c.roles = make([]Role, n)
	}
	c.runes, c.roles = c.runes[:n], c.roles[:n]
	for i := range c.runes {
		c.runes[i], c.roles[i] = ' ', Plain
	}
	c.w, c.h, c.spilled = w, h, 0
}

// Width and Height are the canvas size.
func (c *Canvas) Width() int  { return c.w }
func (c *Canvas) Height() int { return c.h }

// Set puts one rune at x, y.
func (c *Canvas) Set(x, y int, r rune, role Role) {
	if x < 0 || y < 0 || x >= c.w || y >= c.h {
		return
	}
	c.runes[y*c.w+x], c.roles[y*c.w+x] = r, role
}

// At returns the rune at x, y (a space outside).
func (c *Canvas) At(x, y int) rune {
	if x < 0 || y < 0 || x >= c.w || y >= c.h {
		return ' '
	}
	return c.runes[y*c.w+x]
}

// Text writes s from x, y and returns the column after it. Text that
// runs past the left or right edge is cut there, mid-word: Spilled counts
// it, since a layout should choose shorter text or drop a part instead.
func (c *Canvas) Text(x, y int, s string, role Role) int {
	for _, r := range s {
		if (x < 0 || x >= c.w) && y >= 0 && y < c.h && r != ' ' {
			c.spilled++
		}
		c.Set(x, y, r, role)
		x++
	}
	return x
}

// Spilled is how many runes of text, since the last Reset, fell past the
// canvas's left or right edge (see Text).
func (c *Canvas) Spilled() int { return c.spilled }

// TextCenter writes s centred on the span [x0, x1).
func (c *Canvas) TextCenter(x0, x1, y int, s string, role Role) {
	n := utf8.RuneCountInString(s)
	c.Text(x0+(x1-x0-n)/2, y, s, role)
}

// TextRight writes s so that it ends just before x1.
func (c *Canvas) TextRight(x1, y int, s string, role Role) {
	c.Text(x1-utf8.RuneCountInString(s), y, s, role)
}

// ServerState draws the server's state at the right end of row y, a
// blank column from the edge: "server ● up" (Good) or "server ○ down"
// (Bad), in Flash while flash. It returns the column the state begins at.
func (c *Canvas) ServerState(y int, up, flash bool) int {
	srv, role := "server ● up", Good
	if !up {
		srv, role = "server ○ down", Bad
	}
	if flash {
		role = Flash
	}
	x := c.w - utf8.RuneCountInString(srv) - 1
	c.Text(x, y, srv, role)
	return x
}

// HLine draws r from x0 to x1 (exclusive) on row y.
func (c *Canvas) HLine(x0, x1, y int, r rune, role Role) {
	for x := x0; x < x1; x++ {
		c.Set(x, y, r, role)
	}
}

// Fill blanks a rectangle (to draw a box over what passed behind it).
func (c *Canvas) Fill(x, y, w, h int) {
	for j := y; j < y+h; j++ {
		c.HLine(x, x+w, j, ' ', Plain)
	}
}

// Box draws a rounded box with its interior cleared; a box narrower than
// two cells or shorter than two rows is not drawn.
func (c *Canvas) Box(x, y, w, h int, role Role) {
	if w < 2 || h < 2 {
		return
	}
	c.Fill(x, y, w, h)
	c.Set(x, y, '╭', role)
	c.Set(x+w-1, y, '╮', role)
	c.Set(x, y+h-1, '╰', role)
	c.Set(x+w-1, y+h-1, '╯', role)
	c.HLine(x+1, x+w-1, y, '─', role)
	c.HLine(x+1, x+w-1, y+h-1, '─', role)
	for j := y + 1; j < y+h-1; j++ {
		c.Set(x, j, '│', role)
		c.Set(x+w-1, j, '│', role)
	}
}

// Render turns the canvas into styled lines joined by newlines, trailing
// blanks trimmed from each line.
func (c *Canvas) Render(st *Styles) string {
	var b strings.Builder
	b.Grow(c.w*c.h + c.h*16)
	for y := 0; y < c.h; y++ {
		if y > 0 {
			b.WriteByte('\n')
		}
		row := c.runes[y*c.w : (y+1)*c.w]
		roles := c.roles[y*c.w : (y+1)*c.w]
		end := len(row)
		for end > 0 && st.effective(row[end-1], roles[end-1]) == Plain && row[end-1] == ' ' {
			end--
		}
		for x := 0; x < end; {
			role := st.effective(row[x], roles[x])
			j := x + 1
			for j < end && st.effective(row[j], roles[j]) == role {
				j++
			}
			b.WriteString(st.open[role])
			for _, r := range row[x:j] {
				b.WriteRune(r)
			}
			b.WriteString(st.close[role])
			x = j
		}
	}
	return b.String()
}

// effective is the role a cell is drawn in: blanks carry no style (which
// keeps frames small) unless the style paints them, as reverse video does.
func (st *Styles) effective(r rune, role Role) Role {
	if r == ' ' && !st.paints[role] {
		return Plain
	}
	return role
}
