package audit

import (
	"fmt"
	"hash/maphash"
	"runtime"
	"testing"
	"unsafe"

	"github.com/clawdoctor/clawdoctor/internal/hugemem"
)

// TestIdKeyPacks: exactly the ids of 8 lowercase hex digits are packed (and unpack to
// themselves); any other id is hashed, with the top bit clear.
func TestIdKeyPacks(t *testing.T) {
	seed := maphash.MakeSeed()
	for _, tc := range []struct {
		id     string
		packed bool
	}{
		{"0123abcd", true}, {"ffffffff", true}, {"00000000", true},
		{"0123ABCD", false}, {"0123abc/", false}, {"0123abc:", false}, {"0123abc`", false},
		{"0123abcg", false}, {"g123abcd", false}, {"0123abc\x00", false}, {"0123abc\xff", false},
		{"0123abc", false}, {"0123abcde", false},
	} {
		k := idKey(seed, []byte(tc.id))
		got, ok := packed(k)
		if ok != tc.packed || (ok && got != tc.id) || k == 0 {
			t.Errorf("idKey(%q) = %#x: packed %v %q, want packed %v", tc.id, k, ok, got, tc.packed)
		}
	}
}

func BenchmarkIdKey(b *testing.B) {
	seed := maphash.MakeSeed()
	ids := [][]byte{[]byte("1a88a9ed"), []byte("0eca9c7c"), []byte("d13543e9"), []byte("bd58ba6a")}
	var sum uint64
	for i := 0; b.Loop(); i++ {
		sum += idKey(seed, ids[i&3])
	}
	if sum == 1 {
		b.Log(sum)
	}
}

// TestIDEstimate: the id index is sized from the first batch's lines, a little over the
// stream's lines at that size, and never past maxReserve.
func TestIDEstimate(t *testing.T) {
	for _, c := range []struct {
		size, bytes int64
		lines       int
		want        int
	}{
		{0, 4 << 20, 1000, 0},                   // unknown size
		{1 << 30, 0, 0, 0},                      // no line
		{1 << 30, 500, 1000, 0},                 // less than a byte a line: not lines of a stream
		{1 << 30, 236 * 1000, 1000, 5_118_472},  // the bench's tiny shape: 4.5M lines
		{4 << 30, 2048 * 1000, 1000, 2_359_296}, // 2 KiB entries: 2.1M lines
		{16 << 30, 236 * 1000, 1000, maxReserve},
		{1 << 20, 100 * 100, 100, 11_795},
	} {
		if got := idEstimate(c.size, c.bytes, c.lines); got != c.want {
			t.Errorf("idEstimate(%d, %d, %d) = %d, want %d", c.size, c.bytes, c.lines, got, c.want)
		}
	}
}

// TestReserveBlock: a reserved index is one block split in shards of one size (on Linux
// starting on a huge page), and keys inserted into it are found; a shard that outgrows its
// part of the block grows on its own.
func TestReserveBlock(t *testing.T) {
	var keys []uint64
	m := newKeyMap(func(v int32) uint64 { return keys[v] })
	m.reserve(1 << 19) // 64 shards of 10,923 slots (4/3 of 8,192, not rounded to a power of two): a 5.3 MiB block, which hugemem.Make starts on a huge page
	size := len(m.shards[0].slots)
	if size != 10923 {
		t.Fatalf("shard size %d, want 10923", size)
	}
	for k := 1; k < keyShards; k++ {
		if len(m.shards[k].slots) != size || uintptr(unsafe.Pointer(&m.shards[k].slots[0])) != uintptr(unsafe.Pointer(&m.shards[k-1].slots[0]))+uintptr(size)*8 {
			t.Fatalf("shard %d is not the block's part after shard %d", k, k-1)
		}
	}
	if runtime.GOOS == "linux" && uintptr(unsafe.Pointer(&m.shards[0].slots[0]))%hugemem.PageSize != 0 {
		t.Errorf("the block does not start on a huge page")
	}
	for i := range 800_000 { // past the reserve (524,288 at 3/4 full): shards grow
		keys = append(keys, uint64(i)*0x9e3779b97f4a7c15|1<<63)
		if _, had := m.set(keys[i], int32(i)); had {
			t.Fatalf("key %d already there", i)
		}
	}
	for i, k := range keys {
		if v, ok := m.get(k); !ok || v != int32(i) {
			t.Fatalf("get(key %d) = %d, %v", i, v, ok)
		}
	}
	if len(m.shards[0].slots) <= size {
		t.Errorf("shard 0 did not grow past the block (%d slots)", len(m.shards[0].slots))
	}
}

// TestKeyMapSpreads: keyMap.hash spreads the keys a transcript makes (packed ids that differ in
// their low digits, counters, hashed ids) evenly over the shards and the slots' tags, and two
// maps use different seeds. The key itself as its hash puts all sequential ids in one shard
// (tried: fails).
func TestKeyMapSpreads(t *testing.T) {
	seed := maphash.MakeSeed()
	sets := map[string]func(i int) uint64{
		"packed sequential":  func(i int) uint64 { return 1<<63 | uint64(i) },
		"packed high digits": func(i int) uint64 { return 1<<63 | uint64(i)<<20 },
		"hashed":             func(i int) uint64 { return idKey(seed, []byte(string(rune('a'+i%26))+string(rune(i)))) },
	}
	const n = 1 << 16
	for name, key := range sets {
		m := newKeyMap(nil)
		var shards [keyShards]int
		tags, starts := map[uint32]bool{}, map[int]bool{}
		for i := range n {
			h := m.hash(key(i))
			shards[h>>58]++
			tags[uint32(h)&(1<<20-1)] = true
			starts[start(uint32(h), 1<<20)] = true // the slot a key starts at comes from the tag's high bits
		}
		for k, c := range shards {
			if c < n/keyShards/2 || c > n/keyShards*2 {
				t.Errorf("%s: shard %d holds %d of %d keys", name, k, c, n)
			}
		}
		// 65,536 keys in 2^20 buckets: ~63,500 distinct expected; a skewed mix gives far fewer
		if len(tags) < n*9/10 {
			t.Errorf("%s: %d distinct low tags of %d keys", name, len(tags), n)
		}
		if len(starts) < n*9/10 {
			t.Errorf("%s: %d distinct start slots of %d keys", name, len(starts), n)
		}
	}
	a, b := newKeyMap(nil), newKeyMap(nil)
	if a.hash(1<<63|42) == b.hash(1<<63|42) {
		t.Errorf("two maps hash a key alike: their seeds are not random")
	}
}

// TestNodesKey: a node's id key comes back whole whatever its kind (none, packed, hashed),
// including hashed keys whose high half is 0 or 1<<31 - 1 and hashed ids that first appear in a
// later chunk; nodes of packed ids alone make no chunk of high halves.
func TestNodesKey(t *testing.T) {
	seed := maphash.MakeSeed()
	var ns nodes
	var want []uint64
	add := func(k uint64) {
		want = append(want, k)
		if i := ns.add(node{parentIdx: -1, flags: fError}, k); int(i) != len(want)-1 {
			t.Fatalf("add returned %d, want %d", i, len(want)-1)
		}
	}
	for i := range 3 * nodeChunk {
		add(idKey(seed, fmt.Appendf(nil, "%08x", i)))
	}
	if len(ns.hi) != 0 {
		t.Fatalf("packed ids made %d chunks of high halves", len(ns.hi))
	}
	add(0)
	add(1)                // hashed, high half 0
	add(1<<63 - 1)        // hashed, the highest
	add(0x7fffffff << 32) // hashed, high half of a packed key but without its top bit
	for i := range nodeChunk {
		add(idKey(seed, fmt.Appendf(nil, "id-%d", i)))
	}
	for i, k := range want {
		if got := ns.key(int32(i)); got != k {
			t.Fatalf("node %d: key %#x, want %#x", i, got, k)
		}
		if ns.at(int32(i)).flags&fError == 0 {
			t.Fatalf("node %d lost its flags", i)
		}
	}
}
