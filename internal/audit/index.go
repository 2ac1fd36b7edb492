package audit

import (
	"hash/maphash"
	"math/bits"

	"github.com/clawdoctor/clawdoctor/internal/hugemem"
)

// The per-entry index is pointer-free and split in two: the hot part of every entry (node, 16
// bytes: id key, parent, kind, flags) stays in memory for the tree walks; the rest (detail:
// line, timestamp, previews, tool-call ids) is appended to spilled logs (spill.go) and read
// back in file order after the scan. Ids are 64-bit keys (idKey), so the id index needs no
// strings at all.

// idKey turns an entry or tool-call id into a 64-bit key. OpenClaw's entry ids are 8 lowercase
// hex digits: they are packed exactly (top bit set). Any other id is hashed (top bit clear):
// two different ids then share a key with probability 2^-63 per pair, which the duplicate-id
// check rules out by comparing the strings (see scan.sameID); parent links trust the key.
func idKey(seed maphash.Seed, id []byte) uint64 {
	if len(id) == 0 {
		return 0
	}
	if len(id) == 8 {
		// a table lookup a byte, no branch per byte: two ids an entry made the switch a
		// twentieth of the audit of small entries
		var v, bad uint64
		for _, c := range id {
			x := hexNibble[c]
			v = v<<4 | uint64(x&15)
			bad |= uint64(x)
		}
		if bad&notHex == 0 {
			return 1<<63 | v
		}
	}
	h := maphash.Bytes(seed, id) &^ (1 << 63)
	if h == 0 {
		h = 1 // 0 means "no id"
	}
	return h
}

// hexNibble maps '0'-'9' and 'a'-'f' to their value and every other byte to notHex.
var hexNibble = func() (t [256]uint8) {
	for i := range t {
		t[i] = notHex
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = uint8(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = uint8(c - 'a' + 10)
	}
	return t
}()

const notHex = 0x10

// packed reports whether k holds its id exactly, and returns it.
func packed(k uint64) (string, bool) {
	if k>>63 == 0 {
		return "", false
	}
	const hex = "0123456789abcdef"
	var b [8]byte
	for i := 7; i >= 0; i-- {
		b[i] = hex[k&15]
		k >>= 4
	}
	return string(b[:]), true
}

// nodeChunk is how many nodes one chunk holds.
const nodeChunk = 8192

// nodes is a chunked slice: growing it never copies, so a big index never needs twice its
// size, and it holds no pointers for the garbage collector to scan. The high halves of hashed
// id keys are in hi, a chunk beside each chunk of nodes that holds one: most transcripts have
// only OpenClaw's packed ids and never make one. 12 bytes a node instead of 16: on the bench
// machine a page touched for the first time costs 10-27 µs, and a transcript of tiny entries
// touches a node's bytes for every ~230 bytes read (docs/audit.md, "Memory").
type nodes struct {
	chunks [][]node
	hi     [][]uint32
	n      int
}

// The key flags of a node: which high half its id key has (neither: the entry has no id).
const (
	fKeyPacked uint16 = 1 << 13 // a packed id: the high half is 1<<31 (see idKey)
	fKeyHashed uint16 = 1 << 14 // a hashed id: the high half is in nodes.hi
)

// add appends n with id key key (0: none) and returns its index.
func (ns *nodes) add(n node, key uint64) int32 {
	n.keyLo = uint32(key)
	switch {
	case key>>32 == 1<<31:
		n.flags |= fKeyPacked
	case key != 0:
		n.flags |= fKeyHashed
		k, j := ns.n/nodeChunk, ns.n%nodeChunk
		for len(ns.hi) <= k {
			ns.hi = append(ns.hi, nil)
		}
		if h := ns.hi[k]; j >= len(h) { // grown by append: a small file's chunk stays small
			ns.hi[k] = append(h, make([]uint32, j+1-len(h))...)
		}
		ns.hi[k][j] = uint32(key >> 32)
	}
	return ns.push(n)
}

// key returns the id key of node i.
func (ns *nodes) key(i int32) uint64 {
	n := &ns.chunks[i/nodeChunk][i%nodeChunk]
	switch {
	case n.flags&fKeyPacked != 0:
		return 1<<63 | uint64(n.keyLo)
	case n.flags&fKeyHashed != 0:
		return uint64(ns.hi[i/nodeChunk][i%nodeChunk])<<32 | uint64(n.keyLo)
	}
	return 0
}

func (ns *nodes) push(n node) int32 {
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

// keyMap maps 64-bit keys to int32 values (node or call indices). It is split in shards by
// the key's hash so that growing never allocates more than a shard's worth at once (a single
// table doubling from 16 to 32 M slots would hold both for a moment); each shard is an
// open-addressing table of 8-byte slots (the hash's low 32 bits as a tag, which also gives the
// slot, see start, so growing needs no rehash; value + 1). A tag match is confirmed by the
// caller's key of the value (keyOf), so slots need not hold the key.
type keyMap struct {
	mix    [2]uint64 // the hash's random seed (hash)
	shards [keyShards]keyShard
	keyOf  func(v int32) uint64
}

const keyShards = 64

type keyShard struct {
	slots []uint64 // tag<<32 | uint32(v+1); 0 empty
	n     int
}

func newKeyMap(keyOf func(int32) uint64) *keyMap {
	seed := maphash.MakeSeed()
	return &keyMap{mix: [2]uint64{maphash.Comparable(seed, uint64(1)), maphash.Comparable(seed, uint64(2)) | 1}, keyOf: keyOf}
}

// reserve sizes the shards for n keys, so that a big transcript's index does not grow by
// doubling as it is read (the rehashing moved every slot of the table once more: a twentieth of
// the CPU of a transcript of tiny entries). It only sizes empty shards. A shard's size is not a
// power of two (a slot is found by fastrange, see start): rounded up to one, the table of the
// bench's tiny entries was 1.6 times what 3/4 full needs, 13 MB more of memory touched for the
// first time. A big table is one block (hugemem.Make): the ids' slots are read at random, so
// with 4 KiB pages nearly every read of a table of millions of ids also missed the TLB; a block
// in huge pages took 5-7 % off the audit's CPU on the bench's 1 GiB of tiny entries.
func (m *keyMap) reserve(n int) {
	size := n/keyShards*4/3 + 1
	if size <= 16 {
		return // a small file: shards are made as ids reach them, 16 slots each
	}
	block := hugemem.Make[uint64](size*keyShards, size*keyShards)
	for k := range m.shards {
		if sh := &m.shards[k]; len(sh.slots) == 0 {
			sh.slots = block[k*size : (k+1)*size : (k+1)*size]
		}
	}
}

// start is the slot where a key of hash tag starts probing in a shard of size slots: the tag
// scaled to the size (Lemire's fastrange), so a shard of any size needs no division, and
// growing keeps the order of the slots' starts.
func start(tag uint32, size int) int { return int(uint64(tag) * uint64(size) >> 32) }

// hash mixes a key with the map's random seed: two rounds of a 128-bit multiply folded (as
// wyhash mixes), inlined where maphash.Comparable was a call. The calls kept the processor from
// loading many slots at once in scan.flushIDs (a twelfth of the audit of small entries).
func (m *keyMap) hash(k uint64) uint64 {
	hi, lo := bits.Mul64(k^m.mix[0], 0x9e3779b97f4a7c15)
	hi, lo = bits.Mul64(hi^lo, m.mix[1])
	return hi ^ lo
}

// get returns the value of key k.
func (m *keyMap) get(k uint64) (int32, bool) {
	h := m.hash(k)
	sh := &m.shards[h>>58]
	if len(sh.slots) == 0 {
		return 0, false
	}
	tag := uint32(h)
	for i := start(tag, len(sh.slots)); ; i = next(i, len(sh.slots)) {
		s := sh.slots[i]
		if s == 0 {
			return 0, false
		}
		if uint32(s>>32) == tag {
			if v := int32(uint32(s)) - 1; m.keyOf(v) == k {
				return v, true
			}
		}
	}
}

// set maps k to v and returns the value k had.
func (m *keyMap) set(k uint64, v int32) (prev int32, had bool) {
	return m.setHashed(k, m.hash(k), v)
}

// touch loads the slot where a key of hash h starts probing and returns it. The scan calls it
// for a run of keys before inserting them (see scan.flushIDs): the loads do not depend on one
// another, so the processor waits for their cache misses side by side instead of one insert
// at a time (a table of millions of ids is far bigger than the caches).
func (m *keyMap) touch(h uint64) uint64 {
	sh := &m.shards[h>>58]
	if len(sh.slots) == 0 {
		return 0
	}
	return sh.slots[start(uint32(h), len(sh.slots))]
}

// setHashed is set with the key's hash h already computed.
func (m *keyMap) setHashed(k, h uint64, v int32) (prev int32, had bool) {
	sh := &m.shards[h>>58]
	if len(sh.slots) == 0 {
		sh.slots = make([]uint64, 16)
	}
	tag := uint32(h)
	slot := uint64(tag)<<32 | uint64(uint32(v+1))
	for i := start(tag, len(sh.slots)); ; i = next(i, len(sh.slots)) {
		s := sh.slots[i]
		if s == 0 {
			sh.slots[i] = slot
			sh.n++
			if sh.n*4 > len(sh.slots)*3 {
				m.grow(sh)
			}
			return 0, false
		}
		if uint32(s>>32) == tag {
			if old := int32(uint32(s)) - 1; m.keyOf(old) == k {
				sh.slots[i] = slot
				return old, true
			}
		}
	}
}

// next is the slot probed after slot i in a shard of size slots.
func next(i, size int) int {
	if i++; i == size {
		return 0
	}
	return i
}

func (m *keyMap) grow(sh *keyShard) {
	old := sh.slots
	sh.slots = make([]uint64, 2*len(old))
	size := len(sh.slots)
	for _, s := range old {
		if s == 0 {
			continue
		}
		for i := start(uint32(s>>32), size); ; i = next(i, size) { // the slot holds its tag: no rehash
			if sh.slots[i] == 0 {
				sh.slots[i] = s
				break
			}
		}
	}
}
