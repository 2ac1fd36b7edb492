package audit

import (
	"fmt"
	"os"
	"unsafe"
)

// Why spill. The audit of one transcript needs, after the last line, a few facts per entry
// (line, timestamp, tool-call ids, previews for messages) to check the active branch, which is
// only known once the file ends. Kept in memory those facts cost 40 bytes an entry (detail)
// plus their strings: a 16 GiB transcript (~9.5M entries) would need ~0.5 GB or more. Two
// passes would halve the parse speed and cannot re-read a stream (stdin, a decompressor, a
// SQLite row feed). So only the hot part
// of each entry (id key, parent, kind and flags: 16 bytes, see node) stays in memory; the rest
// is appended to logs whose old chunks go to a temp file once a log holds more than its memory
// budget, and are read back a chunk at a time. The checks after the scan walk the active
// branch in file order (a parent precedes its children), so the read-back is sequential.
// Transcripts whose details fit their budget (detailBudget) never touch the disk. The details
// go to their log packed (detailLog, ~4-10 bytes an entry instead of 40), so that budget holds
// the details of millions of entries.

// spillDir is where spilled chunks go ("" means os.TempDir, i.e. $TMPDIR).
var spillDir = ""

// spilled is an append-only log of pointer-free values of type T, in chunks of clen values
// (chunkLen). It keeps at most budget chunks in memory; older ones are written to
// an unlinked temp file. Reads of spilled chunks go through a one-chunk cache.
type spilled[T any] struct {
	chunks  [][]T // nil for a chunk on disk
	clen    int   // values per chunk
	n       int
	inMem   int // chunks in memory
	budget  int
	f       *os.File
	cache   []T
	cacheAt int // index of the cached chunk; -1 none
	err     error
	spills  int // chunks written out (for tests and figures)
}

const spillChunkLen = 1 << 13

// minChunkBytes is the least a chunk holds: each spilled chunk is one pwrite, and on this
// project's machines a write call costs as much as copying ~50 KB (dd of 70 MB to a file: 0.16 s
// in 8 KiB writes, 0.03 s in 64 KiB ones). The string arena's chunks were 8 KiB (8,192 bytes),
// and writing them out was a tenth of the audit of a deep-branching transcript.
const minChunkBytes = 64 << 10

// chunkLen is the values per chunk of a log of values of size bytes: spillChunkLen, or more
// for small values, so that a chunk holds at least minChunkBytes.
func chunkLen(size int) int {
	n := spillChunkLen
	for n*size < minChunkBytes {
		n *= 2
	}
	return n
}

func newSpilled[T any](budgetBytes int) *spilled[T] {
	var zero T
	clen := chunkLen(int(unsafe.Sizeof(zero)))
	per := clen * int(unsafe.Sizeof(zero))
	return &spilled[T]{clen: clen, budget: max(2, budgetBytes/per), cacheAt: -1}
}

func (s *spilled[T]) len() int { return s.n }

func (s *spilled[T]) add(v T) int {
	if s.n%s.clen == 0 {
		var c []T
		if s.inMem >= s.budget {
			c = s.spillOldest() // its memory holds the new chunk: spilling makes no garbage
		}
		if c == nil {
			n := s.clen
			if s.n == 0 {
				n = 16 // small transcripts stay small; the first chunk grows by append
			}
			c = make([]T, 0, n)
		}
		s.chunks = append(s.chunks, c)
		s.inMem++
	}
	k := len(s.chunks) - 1
	s.chunks[k] = append(s.chunks[k], v)
	s.n++
	return s.n - 1
}

func asBytes[T any](c []T) []byte {
	var zero T
	if len(c) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&c[0])), len(c)*int(unsafe.Sizeof(zero)))
}

// spillOldest writes the oldest chunk still in memory to the temp file (chunk k at offset
// k*chunkBytes) and drops it. It returns the chunk's memory, emptied, for reuse (nil when
// nothing was written).
func (s *spilled[T]) spillOldest() []T {
	k := len(s.chunks) - s.inMem
	if s.err != nil || k < 0 || s.chunks[k] == nil {
		return nil
	}
	if s.f == nil {
		f, err := os.CreateTemp(spillDir, "clawdoctor-audit-*.spill")
		if err != nil {
			s.err = fmt.Errorf("audit spill file: %w", err)
			s.budget = 1 << 30 // keep everything in memory rather than fail
			return nil
		}
		os.Remove(f.Name()) // unlinked: the space is freed when the scan ends, even on a crash
		s.f = f
	}
	var zero T
	chunkBytes := int64(s.clen) * int64(unsafe.Sizeof(zero))
	if _, err := s.f.WriteAt(asBytes(s.chunks[k]), int64(k)*chunkBytes); err != nil {
		s.err = fmt.Errorf("audit spill file: %w", err)
		s.budget = 1 << 30
		return nil
	}
	c := s.chunks[k][:0]
	s.chunks[k] = nil
	s.inMem--
	s.spills++
	return c
}

// at returns value i.
func (s *spilled[T]) at(i int) T {
	k := i / s.clen
	if c := s.chunks[k]; c != nil {
		return c[i%s.clen]
	}
	if s.cacheAt != k {
		if s.cache == nil {
			s.cache = make([]T, s.clen)
		}
		var zero T
		chunkBytes := int64(s.clen) * int64(unsafe.Sizeof(zero))
		if _, err := s.f.ReadAt(asBytes(s.cache), int64(k)*chunkBytes); err != nil && s.err == nil {
			s.err = fmt.Errorf("audit spill file: %w", err)
		}
		s.cacheAt = k
	}
	return s.cache[i%s.clen]
}

// reader is a copy of s that reads what s holds (its chunks in memory and on disk) through a
// cache of its own, so that several goroutines can read one log side by side once it is
// written; only s may add to it or close it.
func (s *spilled[T]) reader() *spilled[T] {
	r := *s
	r.cache, r.cacheAt, r.err = nil, -1, nil
	return &r
}

// close removes the temp file.
func (s *spilled[T]) close() {
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
	s.chunks, s.cache = nil, nil
}

// addRun appends vs, all in one chunk: when they do not fit in the current chunk, it is padded
// with zero values first. len(vs) must be at most s.clen. It returns the index of vs[0].
func (s *spilled[T]) addRun(vs []T) int {
	if room := s.clen - s.n%s.clen; s.n%s.clen != 0 && len(vs) > room {
		var zero T
		for ; room > 0; room-- {
			s.add(zero)
		}
	}
	first := s.add(vs[0])
	k := len(s.chunks) - 1
	s.chunks[k] = append(s.chunks[k], vs[1:]...)
	s.n += len(vs) - 1
	return first
}

// run returns a copy of the n values from i, which addRun stored in one chunk.
func (s *spilled[T]) run(i, n int) []T {
	out := make([]T, n)
	copy(out, s.span(i, n))
	return out
}

// span returns the n values from i, which addRun stored in one chunk, in place: valid until
// the next read of s.
func (s *spilled[T]) span(i, n int) []T {
	k, o := i/s.clen, i%s.clen
	if c := s.chunks[k]; c != nil {
		return c[o : o+n]
	}
	s.at(i) // loads the chunk into the cache
	return s.cache[o : o+n]
}

// coldArena stores strings that are read only to write findings (previews, error messages,
// tool-call ids) in a spilled byte log. A string longer than maxCold is cut (only messages
// quote it; ids compared for equality are kept as 64-bit keys, see idKey).
type coldArena struct{ b *spilled[byte] }

const maxCold = 4 << 10

func newColdArena(budgetBytes int) *coldArena { return &coldArena{b: newSpilled[byte](budgetBytes)} }

// cref is a string in a coldArena: its offset (40 bits, 1 TiB of strings) and length (24
// bits; put cuts at maxCold) in one word, so the logs that hold crefs stay small: three of
// them in every entry's detail were 48 of its 80 bytes, more than half of them written out.
type cref uint64

const crefLenBits = 24

func (r cref) empty() bool { return r == 0 }

func (r cref) off() int { return int(r >> crefLenBits) }

func (r cref) len() int { return int(r & (1<<crefLenBits - 1)) }

func (a *coldArena) put(b []byte) cref {
	if len(b) == 0 {
		return 0
	}
	if len(b) > maxCold {
		b = b[:maxCold]
	}
	off := uint64(a.b.addRun(b))
	if off >= 1<<(64-crefLenBits) {
		return 0 // past 1 TiB of strings: messages quote "" rather than another string
	}
	return cref(off<<crefLenBits | uint64(len(b)))
}

func (a *coldArena) putString(s string) cref { return a.put([]byte(s)) }

func (a *coldArena) str(r cref) string {
	if r.empty() {
		return ""
	}
	return string(a.b.run(r.off(), r.len()))
}
