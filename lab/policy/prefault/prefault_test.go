package prefault

import "testing"

const someMaps = `00400000-017a5000 r-xp 00000000 fe:00 10168130                           /opt/natslab/natslab
017a5000-02c10000 r--p 013a5000 fe:00 10168130                           /opt/natslab/natslab
02c10000-02da5000 rw-p 02810000 fe:00 10168130                           /opt/natslab/natslab
02da5000-05012000 rw-p 00000000 00:00 0 
381e9000-3820a000 rw-p 00000000 00:00 0                                  [heap]
266168000000-266168800000 rw-p 00000000 00:00 0 
266168800000-26616c000000 ---p 00000000 00:00 0 
7efc3c29b000-7efc3c39b000 rw-p 00000000 00:00 0 
7efc3d39d000-7efc3d3c3000 r--p 00000000 fe:00 247 /usr/lib/x86_64-linux-gnu/libc.so.6
7efc3d3c3000-7efc3d518000 r-xp 00026000 fe:00 247 /usr/lib/x86_64-linux-gnu/libc.so.6
7efc3d518000-7efc3d56d000 r--p 0017b000 fe:00 247 /usr/lib/x86_64-linux-gnu/libc.so.6
7efc3d56d000-7efc3d571000 rw-p 001d0000 fe:00 247 /usr/lib/x86_64-linux-gnu/libc.so.6
7efc3d571000-7efc3d57e000 rw-p 00000000 00:00 0 
7fffde48c000-7fffde4ad000 rw-p 00000000 00:00 0                          [stack]
`

func TestRanges(t *testing.T) {
	for _, tc := range []struct {
		name         string
		maps         string
		heapAddr     uintptr
		zeroed, heap span
	}{
		{
			name:     "the executable's zeroed variables, not libc's; the heap from its newest object's page to its mapping's end",
			maps:     someMaps,
			heapAddr: 0x266168123458,
			zeroed:   span{0x02da5000, 0x02da5000 + zeroedAhead},
			heap:     span{0x266168123000, 0x266168800000},
		},
		{
			name:     "no further than heapAhead",
			maps:     "00400000-00500000 r-xp 00000000 fe:00 1 /a\n266168000000-26616c000000 rw-p 00000000 00:00 0\n",
			heapAddr: 0x266168123458,
			heap:     span{0x266168123000, 0x266168123000 + heapAhead},
		},
		{
			name:     "a heap address in no writable mapping",
			maps:     someMaps,
			heapAddr: 0x266168900000,
			zeroed:   span{0x02da5000, 0x02da5000 + zeroedAhead},
		},
		{
			name: "no anonymous mapping right after the executable",
			maps: `00400000-017a5000 r-xp 00000000 fe:00 1 /opt/natslab
02c10000-02da5000 rw-p 02810000 fe:00 1 /opt/natslab
02da6000-05012000 rw-p 00000000 00:00 0 
7efc3d56d000-7efc3d571000 rw-p 001d0000 fe:00 247 /usr/lib/libc.so.6
7efc3d571000-7efc3d57e000 rw-p 00000000 00:00 0 
`,
			heapAddr: 0x1000,
		},
		{
			name:     "a small zeroed mapping",
			maps:     "00400000-00500000 r-xp 00000000 fe:00 1 /a b\n00500000-00501000 rw-p 00000000 fe:00 1 /a b\n00501000-00502000 rw-p 00000000 00:00 0\n",
			heapAddr: 0x501010,
			zeroed:   span{0x501000, 0x502000},
			heap:     span{0x501000, 0x502000},
		},
		{
			name:     "a last line cut short",
			maps:     "00400000-00500000 r-xp 00000000 fe:00 1 /a\n00500000-00501000 rw-p 00000000 fe:00 1 /a\n00501000-00502000 rw-p 0000",
			heapAddr: 0x501010,
		},
		{name: "nothing readable", maps: "garbage\n\nzz-yy rw-p\n", heapAddr: 0x1000},
		{name: "empty", maps: "", heapAddr: 0x1000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			zeroed, heap := ranges([]byte(tc.maps), tc.heapAddr)
			if zeroed != tc.zeroed || heap != tc.heap {
				t.Errorf("ranges = zeroed %#x heap %#x, want zeroed %#x heap %#x", zeroed, heap, tc.zeroed, tc.heap)
			}
		})
	}
}
