package audit

import (
	"hash/maphash"
)

// The per-entry index is pointer-free (strings live in a chunked byte arena, nodes in chunked
// slices, ids in a hash-keyed map) so a transcript of millions of entries costs a few dozen
// bytes per entry and almost nothing for the garbage collector to scan.

// sref is a string stored in the arena.
type sref struct {
	chunk, off, n uint32
}

func (r sref) empty() bool { return r.n == 0 }

const arenaChunk = 1 << 20

type arena struct {
	chunks [][]byte
	cur    int // chunk small strings go to; -1 none
}

func (a *arena) put(b []byte) sref {
	if len(b) == 0 {
		return sref{}
	}
	if len(b) > arenaChunk/4 { // big strings get their own chunk
		a.chunks = append(a.chunks, append([]byte(nil), b...))
		a.cur = -1
		return sref{chunk: uint32(len(a.chunks) - 1), n: uint32(len(b))}
	}
	if len(a.chunks) == 0 || a.cur < 0 || len(a.chunks[a.cur])+len(b) > cap(a.chunks[a.cur]) {
		// chunks start small (most transcripts are small) and double up to arenaChunk
		size := 16 << 10
		if a.cur >= 0 && len(a.chunks) > 0 {
			size = min(2*cap(a.chunks[a.cur]), arenaChunk)
		}
		a.chunks = append(a.chunks, make([]byte, 0, max(size, len(b))))
		a.cur = len(a.chunks) - 1
	}
	c := a.chunks[a.cur]
	off := len(c)
	a.chunks[a.cur] = append(c, b...)
	return sref{chunk: uint32(a.cur), off: uint32(off), n: uint32(len(b))}
}

func (a *arena) putString(s string) sref { return a.put([]byte(s)) }

func (a *arena) bytes(r sref) []byte {
	if r.n == 0 {
		return nil
	}
	return a.chunks[r.chunk][r.off : r.off+r.n]
}

// nodeChunk is how many nodes one chunk holds.
const nodeChunk = 8192

type nodes struct {
	chunks [][]node
	n      int
}

func (ns *nodes) add(n node) int32 {
	if ns.n%nodeChunk == 0 {
		c := nodeChunk
		if ns.n == 0 {
			c = 64 // the first chunk grows by append; small files stay small
		}
		ns.chunks = append(ns.chunks, make([]node, 0, c))
	}
	k := len(ns.chunks) - 1
	ns.chunks[k] = append(ns.chunks[k], n)
	ns.n++
	return int32(ns.n - 1)
}

func (ns *nodes) at(i int32) *node { return &ns.chunks[i/nodeChunk][i%nodeChunk] }

// idMap maps entry ids to node indices: an open-addressing table of 64-bit id hashes
// (one probe sequence per insert-or-lookup, 12 bytes a slot, nothing for the GC to scan).
// Two different ids with the same hash go to a plain map.
type idMap struct {
	seed  maphash.Seed
	hs    []uint64
	is    []int32 // node index + 1; 0 marks an empty slot
	n     int
	other map[string]int32
}

func newIDMap() *idMap {
	return &idMap{seed: maphash.MakeSeed(), hs: make([]uint64, 1024), is: make([]int32, 1024)}
}

// slot returns the slot of hash h: the one holding it, or the empty one where it goes.
func (im *idMap) slot(h uint64) int {
	mask := len(im.hs) - 1
	for k := int(h) & mask; ; k = (k + 1) & mask {
		if im.is[k] == 0 || im.hs[k] == h {
			return k
		}
	}
}

// get returns the node of id; idOf reads a node's id for the collision check.
func (im *idMap) get(id []byte, idOf func(int32) []byte) (int32, bool) {
	h := maphash.Bytes(im.seed, id)
	k := im.slot(h)
	if im.is[k] == 0 {
		return 0, false
	}
	if i := im.is[k] - 1; string(idOf(i)) == string(id) {
		return i, true
	}
	j, ok := im.other[string(id)]
	return j, ok
}

// set maps id to i (the later entry wins, as in pi's index) and returns the node id had.
func (im *idMap) set(id []byte, i int32, idOf func(int32) []byte) (prev int32, dup bool) {
	h := maphash.Bytes(im.seed, id)
	k := im.slot(h)
	if im.is[k] != 0 {
		old := im.is[k] - 1
		if string(idOf(old)) != string(id) { // a different id with the same hash
			if im.other == nil {
				im.other = map[string]int32{}
			}
			prev, dup = im.other[string(id)]
			im.other[string(id)] = i
			return prev, dup
		}
		im.is[k] = i + 1
		return old, true
	}
	im.hs[k], im.is[k] = h, i+1
	im.n++
	if im.n*2 > len(im.hs) {
		im.grow()
	}
	return 0, false
}

func (im *idMap) grow() {
	hs, is := im.hs, im.is
	im.hs, im.is = make([]uint64, 2*len(hs)), make([]int32, 2*len(is))
	for k, v := range is {
		if v != 0 {
			j := im.slot(hs[k])
			im.hs[j], im.is[j] = hs[k], v
		}
	}
}
