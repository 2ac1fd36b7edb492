package dbhealth

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
)

// The write-ahead log and its index, as https://sqlite.org/walformat.html lays them out.

const (
	walMagicLE = 0x377f0682
	walMagicBE = 0x377f0683
	walHeader  = 32
	frameHead  = 24
	// autoCheckpoint is OpenClaw's wal_autocheckpoint (DEFAULT_SQLITE_WAL_AUTOCHECKPOINT_PAGES);
	// journalLimit its journal_size_limit (64 MiB): a WAL far past both is not being
	// checkpointed.
	autoCheckpoint = 1000
	journalLimit   = 64 << 20
)

// WAL is what the -wal file's header says.
type WAL struct {
	Exists   bool  `json:"exists"`
	Bytes    int64 `json:"bytes"`
	PageSize int   `json:"pageSize,omitempty"`
	Frames   int64 `json:"frames"`
	// Salt is the header's two salts as stored (the -shm keeps a byte copy of them).
	Salt    [8]byte `json:"-"`
	Problem string  `json:"problem,omitempty"` // not a WAL, or one of another page size
}

// SHM is what the -shm index's header says (native byte order, two copies of the header).
type SHM struct {
	Exists    bool     `json:"exists"`
	MaxFrame  uint32   `json:"maxFrame"`  // the last committed frame
	Backfill  uint32   `json:"backfill"`  // frames already copied into the database
	ReadMarks []uint32 `json:"readMarks"` // the frames readers hold (0xffffffff: unused)
	Salt      [8]byte  `json:"-"`         // a byte copy of the -wal header's salts (wal.c)
	Problem   string   `json:"problem,omitempty"`
}

func readWAL(path string, dbPageSize int) WAL {
	w := WAL{}
	f, err := os.Open(path)
	if err != nil {
		return w
	}
	defer f.Close()
	w.Exists = true
	st, err := f.Stat()
	if err != nil {
		w.Problem = err.Error()
		return w
	}
	w.Bytes = st.Size()
	if w.Bytes == 0 {
		return w
	}
	var h [walHeader]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		w.Problem = fmt.Sprintf("%d bytes, shorter than a WAL header", w.Bytes)
		return w
	}
	magic := binary.BigEndian.Uint32(h[0:4])
	if magic != walMagicLE && magic != walMagicBE {
		w.Problem = "not a write-ahead log (no WAL magic number)"
		return w
	}
	w.PageSize = int(binary.BigEndian.Uint32(h[8:12]))
	copy(w.Salt[:], h[16:24])
	if w.PageSize > 0 {
		w.Frames = (w.Bytes - walHeader) / int64(frameHead+w.PageSize)
	}
	if dbPageSize > 0 && w.PageSize != dbPageSize {
		w.Problem = fmt.Sprintf("its pages are %d bytes, the database's %d: it belongs to another database", w.PageSize, dbPageSize)
	}
	return w
}

func readSHM(path string) SHM {
	s := SHM{}
	b, err := os.ReadFile(path)
	if err != nil {
		return s
	}
	s.Exists = true
	if len(b) < 136 {
		if len(b) > 0 {
			s.Problem = fmt.Sprintf("%d bytes, shorter than a WAL index header", len(b))
		}
		return s
	}
	o := binary.NativeEndian
	if o.Uint32(b[0:4]) != 3007000 || b[12] != 1 {
		return s // not initialised: it says nothing
	}
	s.MaxFrame = o.Uint32(b[16:20])
	copy(s.Salt[:], b[32:40])
	s.Backfill = o.Uint32(b[96:100])
	for i := 0; i < 5; i++ {
		s.ReadMarks = append(s.ReadMarks, o.Uint32(b[100+4*i:]))
	}
	return s
}

// starved says why a WAL is not being checkpointed, "" when it is: it holds far more frames
// than OpenClaw's auto-checkpoint lets it grow to, committed frames are not yet in the
// database, and a reader's mark is behind the last commit (the checkpoint cannot pass it).
func starved(w WAL, s SHM) string {
	if !w.Exists || w.Problem != "" || !s.Exists || s.MaxFrame == 0 || s.Backfill >= s.MaxFrame {
		return ""
	}
	if w.Frames < 4*autoCheckpoint && w.Bytes < journalLimit {
		return ""
	}
	oldest := uint32(0)
	for i, m := range s.ReadMarks {
		if i == 0 || m == 0xffffffff || m == 0 || m >= s.MaxFrame {
			continue // slot 0 is for readers of the database alone
		}
		if oldest == 0 || m < oldest {
			oldest = m
		}
	}
	why := fmt.Sprintf("the WAL holds %d frames (%d bytes), %d of %d committed frames are not in the database yet", w.Frames, w.Bytes, s.MaxFrame-s.Backfill, s.MaxFrame)
	if oldest > 0 {
		why += fmt.Sprintf(", and a reader holds frame %d: the checkpoint cannot pass it (a long-lived reader: a stuck gateway request, a backup, an open sqlite3 shell)", oldest)
	}
	return why
}

// foreign says why the -wal and -shm do not belong together or to the database, "" when
// nothing shows it.
func foreign(w WAL, s SHM) string {
	if w.Problem != "" && w.PageSize > 0 {
		return "the -wal " + w.Problem
	}
	if w.Exists && w.Bytes >= walHeader && w.Problem == "" && s.Exists && s.MaxFrame > 0 && s.Salt != w.Salt {
		return fmt.Sprintf("the -shm index was made for another -wal (salt %x, the -wal's %x): one of them belongs to another database or another moment", s.Salt, w.Salt)
	}
	return ""
}
