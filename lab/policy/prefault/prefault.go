// Package prefault has the kernel map, on a spare core, the memory that
// natslab's start-up is about to write: the binary's zeroed variables
// (among them go-runewidth's 2 MB width table, which termui fills as it
// initialises) and the heap the runtime has set aside past its newest
// object, which the packages' initialisation fills. Without it, the
// goroutine that initialises the packages stops at a page fault for every
// page it writes first, which on a virtual machine is dear. madvise's
// MADV_POPULATE_WRITE maps a whole range in one call and changes no byte
// of it, so it is safe beside code that is writing there.
//
// Go initialises a package once everything it imports is, taking packages
// in import-path order; this one imports syscall and nothing of natslab,
// so that it starts before the packages that write the most. Importing it
// is the whole of its use (see main). Elsewhere than Linux it does nothing.
package prefault

// span is a range of addresses, [start, end).
type span struct{ start, end uintptr }

func (s span) len() uintptr { return s.end - s.start }

const (
	page = 4096
	// zeroedAhead is how much of the zeroed variables is mapped: those
	// start-up writes come first, the width table last; the linker puts
	// the 32 MB crypto keeps for FIPS mode, which nothing touches
	// otherwise, after them.
	zeroedAhead = 3 << 20
	// heapAhead bounds how far past its newest object the heap is
	// mapped; what the runtime has set aside for it ends sooner, most
	// often.
	heapAhead = 8 << 20
)

// ranges finds, in the text of /proc/self/maps, the spans to map ahead:
// the zeroed variables (the anonymous writable mapping right after the
// executable's own, the first file mapped) and the heap from the page of
// heapAddr, a new object's address, on. Either is empty when maps does
// not show it. A last line cut short, without its newline, is not read.
func ranges(maps []byte, heapAddr uintptr) (zeroed, heap span) {
	var exe string
	var prevEnd uintptr
	prevExe := false
	for {
		line, rest, whole := cutLine(maps)
		if !whole {
			break
		}
		maps = rest
		m, ok := parseMapping(line)
		if !ok {
			continue
		}
		if exe == "" && m.path != "" && m.path[0] == '/' {
			exe = m.path
		}
		if zeroed.len() == 0 && prevExe && m.path == "" && m.perms == "rw-p" && m.start == prevEnd {
			zeroed = span{m.start, min(m.end, m.start+zeroedAhead)}
		}
		if heap.len() == 0 && m.perms == "rw-p" && m.start <= heapAddr && heapAddr < m.end {
			from := heapAddr &^ (page - 1)
			heap = span{from, min(m.end, from+heapAhead)}
		}
		prevEnd, prevExe = m.end, exe != "" && m.path == exe
	}
	return zeroed, heap
}

// mapping is one line of /proc/self/maps.
type mapping struct {
	start, end  uintptr
	perms, path string
}

// parseMapping reads "start-end perms offset dev inode [path]".
func parseMapping(line []byte) (mapping, bool) {
	var m mapping
	var field []byte
	field, line = cut(line, ' ')
	lo, hi := cut(field, '-')
	var ok1, ok2 bool
	m.start, ok1 = parseHex(lo)
	m.end, ok2 = parseHex(hi)
	if !ok1 || !ok2 || m.end <= m.start {
		return m, false
	}
	field, line = cut(line, ' ')
	m.perms = string(field)
	for range 3 { // offset, device, inode
		_, line = cut(line, ' ')
	}
	for len(line) > 0 && line[0] == ' ' {
		line = line[1:]
	}
	m.path = string(line)
	return m, len(m.perms) == 4
}

// cutLine cuts maps after its first line; whole is false when there is no
// newline.
func cutLine(maps []byte) (line, rest []byte, whole bool) {
	for i, c := range maps {
		if c == '\n' {
			return maps[:i], maps[i+1:], true
		}
	}
	return nil, nil, false
}

// cut is bytes.Cut for one byte, without importing bytes.
func cut(b []byte, sep byte) (before, after []byte) {
	for i, c := range b {
		if c == sep {
			return b[:i], b[i+1:]
		}
	}
	return b, nil
}

func parseHex(b []byte) (uintptr, bool) {
	if len(b) == 0 || len(b) > 16 {
		return 0, false
	}
	var v uintptr
	for _, c := range b {
		switch {
		case '0' <= c && c <= '9':
			v = v<<4 | uintptr(c-'0')
		case 'a' <= c && c <= 'f':
			v = v<<4 | uintptr(c-'a'+10)
		default:
			return 0, false
		}
	}
	return v, true
}
