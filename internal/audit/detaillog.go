package audit

import (
	"encoding/binary"
	"errors"
)

// Why pack the details. Every entry's detail (40 bytes, see detail) is kept until the scan
// ends. As plain structs the details of a 1 GiB transcript of tiny entries (4.5M entries) were
// 180 MB: 48 MB in memory and the rest written to the spill file's page cache. On the bench
// machine (a microVM) a page the process touches for the first time costs 10-15 µs, whether it
// is the process's own or the kernel's page cache: those 180 MB were about a tenth of the
// audit's CPU. Most fields repeat or grow by a little from one entry to the next (the line
// grows by one, the timestamp by seconds, the preview's offset by its length), so a block of
// details packed against each other takes 5-10 bytes an entry.
//
// Blocks of detailBlock details are packed once full into a spilled byte log (each block in
// one of its chunks, so it is read back with one read); the block being filled stays plain.
// Reads decode a whole block into a cache of the reader's own: the checks after the scan
// read details in file order, one block after the other.

// detailBlock is the details packed together: a random read decodes this many.
const detailBlock = 128

// detailLog is an append-only log of details, packed by blocks.
type detailLog struct {
	b      *spilled[byte] // the packed blocks
	blocks []cref         // where each full block is in b (offset and length, as a cref)
	cur    []detail       // the block being filled
	n      int
	enc    []byte   // scratch for packing a block
	dec    []detail // the decoded block decAt of this reader
	decAt  int      // -1: none
	decs   int      // blocks decoded by this reader (for tests)
}

func newDetailLog(budgetBytes int) *detailLog {
	return &detailLog{b: newSpilled[byte](budgetBytes), decAt: -1}
}

func (l *detailLog) len() int { return l.n }

// add appends d and returns its index.
func (l *detailLog) add(d detail) int {
	if len(l.cur) == detailBlock {
		l.flush()
	}
	if l.cur == nil {
		l.cur = make([]detail, 0, 16) // small transcripts stay small; it grows by append
	}
	l.cur = append(l.cur, d)
	l.n++
	return l.n - 1
}

// flush packs the full block cur into the byte log.
func (l *detailLog) flush() {
	l.enc = packDetails(l.enc[:0], l.cur)
	off := l.b.addRun(l.enc)
	l.blocks = append(l.blocks, cref(uint64(off)<<crefLenBits|uint64(len(l.enc))))
	l.cur = l.cur[:0]
}

// at returns detail i.
func (l *detailLog) at(i int) detail {
	k := i / detailBlock
	if k == len(l.blocks) {
		return l.cur[i%detailBlock]
	}
	if l.decAt != k {
		r := l.blocks[k]
		var err error
		l.dec, err = unpackDetails(l.dec[:0], l.b.span(r.off(), r.len()))
		if err == nil && len(l.dec) != detailBlock {
			err = errPacked
		}
		if err != nil && l.b.err == nil {
			l.b.err = err // a spill read that failed left zeros: the audit must not pass
		}
		for len(l.dec) < detailBlock {
			l.dec = append(l.dec, detail{})
		}
		l.decAt = k
		l.decs++
	}
	return l.dec[i%detailBlock]
}

// reader is a copy of l that reads what l holds through caches of its own (see
// spilled.reader); only l may add to it or close it.
func (l *detailLog) reader() *detailLog {
	r := *l
	r.b = l.b.reader()
	r.enc, r.dec, r.decAt = nil, nil, -1
	return &r
}

func (l *detailLog) close() {
	l.b.close()
	l.blocks, l.cur, l.dec = nil, nil, nil
}

// The packed form of a detail: a byte of flags saying which fields differ from what the
// previous detail of the block predicts, then those fields as varints, in flag order.
const (
	pkLine     = 1 << iota // line is not the previous line + 1: zigzag(line - previous - 1)
	pkTS                   // ts differs from the previous: zigzag(ts - previous)
	pkExtra                // extra is set: zigzag(offset - previous extra's offset), length
	pkKeySmall             // extraKey < 2^40 (an assistant's callStart): zigzag(key - previous small key)
	pkKeyRaw               // a bigger extraKey (an id's key): 8 bytes, little-endian
	pkRare                 // rare: uvarint
	pkCallN                // callN: uvarint
	pkModel                // model differs from the previous: uvarint
)

const smallKeyMax = 1 << 40

// packState is what the previous detail of a block predicts.
type packState struct {
	line, ts, extraOff, key int64
	model                   uint16
}

func zig(v int64) uint64   { return uint64(v<<1) ^ uint64(v>>63) }
func unzig(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// packDetails appends the packed form of ds to b.
func packDetails(b []byte, ds []detail) []byte {
	var p packState
	for i := range ds {
		d := &ds[i]
		at := len(b)
		b = append(b, 0)
		var f byte
		if d.line != p.line+1 {
			f |= pkLine
			b = binary.AppendUvarint(b, zig(d.line-p.line-1))
		}
		if d.ts != p.ts {
			f |= pkTS
			b = binary.AppendUvarint(b, zig(d.ts-p.ts))
		}
		if d.extra != 0 {
			f |= pkExtra
			off := int64(d.extra.off())
			b = binary.AppendUvarint(b, zig(off-p.extraOff))
			b = binary.AppendUvarint(b, uint64(d.extra.len()))
			p.extraOff = off
		}
		switch k := d.extraKey; {
		case k == 0:
		case k < smallKeyMax:
			f |= pkKeySmall
			b = binary.AppendUvarint(b, zig(int64(k)-p.key))
			p.key = int64(k)
		default:
			f |= pkKeyRaw
			b = binary.LittleEndian.AppendUint64(b, k)
		}
		if d.rare != 0 {
			f |= pkRare
			b = binary.AppendUvarint(b, uint64(uint32(d.rare)))
		}
		if d.callN != 0 {
			f |= pkCallN
			b = binary.AppendUvarint(b, uint64(d.callN))
		}
		if d.model != p.model {
			f |= pkModel
			b = binary.AppendUvarint(b, uint64(d.model))
		}
		b[at] = f
		p.line, p.ts, p.model = d.line, d.ts, d.model
	}
	return b
}

var errPacked = errors.New("audit spill: a packed block of details is cut short")

// unpackDetails appends the details packed in b to ds. A block cut short (a spill read
// that failed) gives the details read before the cut and errPacked.
func unpackDetails(ds []detail, b []byte) ([]detail, error) {
	var p packState
	for i := 0; i < len(b); {
		f := b[i]
		i++
		var d detail
		var v uint64
		ok := true
		d.line = p.line + 1
		if f&pkLine != 0 {
			v, i, ok = uvarint(b, i)
			d.line += unzig(v)
		}
		d.ts = p.ts
		if f&pkTS != 0 && ok {
			v, i, ok = uvarint(b, i)
			d.ts += unzig(v)
		}
		if f&pkExtra != 0 && ok {
			v, i, ok = uvarint(b, i)
			p.extraOff += unzig(v)
			if ok {
				v, i, ok = uvarint(b, i)
			}
			d.extra = cref(uint64(p.extraOff)<<crefLenBits | v&(1<<crefLenBits-1))
		}
		switch {
		case !ok:
		case f&pkKeySmall != 0:
			v, i, ok = uvarint(b, i)
			p.key += unzig(v)
			d.extraKey = uint64(p.key)
		case f&pkKeyRaw != 0:
			if ok = i+8 <= len(b); ok {
				d.extraKey = binary.LittleEndian.Uint64(b[i:])
				i += 8
			}
		}
		if f&pkRare != 0 && ok {
			v, i, ok = uvarint(b, i)
			d.rare = int32(uint32(v))
		}
		if f&pkCallN != 0 && ok {
			v, i, ok = uvarint(b, i)
			d.callN = uint16(v)
		}
		d.model = p.model
		if f&pkModel != 0 && ok {
			v, i, ok = uvarint(b, i)
			d.model = uint16(v)
		}
		if !ok {
			return ds, errPacked
		}
		ds = append(ds, d)
		p.line, p.ts, p.model = d.line, d.ts, d.model
	}
	return ds, nil
}

// uvarint reads the varint at b[i:], one byte without a call (most are).
func uvarint(b []byte, i int) (uint64, int, bool) {
	if i < len(b) && b[i] < 0x80 {
		return uint64(b[i]), i + 1, true
	}
	if i >= len(b) {
		return 0, i, false
	}
	v, n := binary.Uvarint(b[i:])
	return v, i + n, n > 0
}
