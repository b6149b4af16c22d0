package kit

// bigDigits is a three-row font for numbers a room can read from the back.
var bigDigits = [10][3]string{
	{"┏━┓", "┃ ┃", "┗━┛"},
	{"╺┓ ", " ┃ ", "╺┻╸"},
	{"╺━┓", "┏━┛", "┗━╸"},
	{"╺━┓", " ━┫", "╺━┛"},
	{"╻ ╻", "┗━┫", "  ╹"},
	{"┏━╸", "┗━┓", "╺━┛"},
	{"┏━╸", "┣━┓", "┗━┛"},
	{"╺━┓", "  ┃", "  ╹"},
	{"┏━┓", "┣━┫", "┗━┛"},
	{"┏━┓", "┗━┫", "╺━┛"},
}

// BigHeight is how many rows big digits take.
const BigHeight = 3

// BigWidth is how many columns s takes in big digits.
func BigWidth(s string) int {
	n := 0
	for range s {
		n += 4
	}
	return max(n-1, 0)
}

// Big draws the digits of s three rows tall from x, y; other characters
// are drawn normal size on the middle row. It returns the column after.
func (c *Canvas) Big(x, y int, s string, role Role) int {
	for _, r := range s {
		if r >= '0' && r <= '9' {
			g := bigDigits[r-'0']
			for j := range g {
				c.Text(x, y+j, g[j], role)
			}
			x += 4
			continue
		}
		c.Set(x+1, y+1, r, role)
		x += 4
	}
	return x - 1
}
