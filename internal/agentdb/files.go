package agentdb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// The SQLite file formats read here (https://sqlite.org/fileformat2.html, walformat.html).
const (
	headerSize    = 100
	walHeaderSize = 32
	walFrameHead  = 24
)

var sqliteMagic = []byte("SQLite format 3\x00")

// header is what the first 100 bytes of a database file say.
type header struct {
	pageSize    int
	userVersion int
	walMode     bool // read/write versions 2: the database is in WAL mode
}

// readHeader reads the database header of path. An empty file is a valid empty database.
func readHeader(path string) (header, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return header{}, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return header{}, 0, err
	}
	if !st.Mode().IsRegular() {
		return header{}, 0, wrapf(ErrNotDatabase, "not a regular file")
	}
	if st.Size() == 0 {
		return header{}, 0, nil
	}
	var b [headerSize]byte
	if _, err := io.ReadFull(f, b[:]); err != nil {
		return header{}, st.Size(), wrapf(ErrNotDatabase, "%d bytes, shorter than a database header", st.Size())
	}
	if !bytes.Equal(b[:16], sqliteMagic) {
		return header{}, st.Size(), wrapf(ErrNotDatabase, "no SQLite header")
	}
	h := header{pageSize: int(binary.BigEndian.Uint16(b[16:18])), userVersion: int(int32(binary.BigEndian.Uint32(b[60:64])))}
	if h.pageSize == 1 {
		h.pageSize = 65536
	}
	// Fixed fields of every valid header: a power-of-two page size and the payload
	// fractions 64, 32, 32. A damaged header must not be read as a schema version.
	if h.pageSize < 512 || h.pageSize&(h.pageSize-1) != 0 || b[21] != 64 || b[22] != 32 || b[23] != 32 {
		return header{}, st.Size(), wrapf(ErrNotDatabase, "damaged header")
	}
	h.walMode = b[18] == 2 && b[19] == 2
	return h, st.Size(), nil
}

// sig identifies one state of a file, to notice a writer between two looks.
type sig struct {
	exists bool
	size   int64
	mtime  time.Time
	ino    uint64
}

func sigOf(path string) (sig, error) {
	st, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return sig{}, nil
	}
	if err != nil {
		return sig{}, err
	}
	return sig{exists: true, size: st.Size(), mtime: st.ModTime(), ino: inode(st)}, nil
}

// fileSet is the database and the side files SQLite keeps beside it.
type fileSet struct {
	db, wal, shm, journal sig
}

func sigsOf(path string) (fileSet, error) {
	var fs fileSet
	var err error
	for _, x := range []struct {
		s      *sig
		suffix string
	}{{&fs.db, ""}, {&fs.wal, "-wal"}, {&fs.shm, "-shm"}, {&fs.journal, "-journal"}} {
		if *x.s, err = sigOf(path + x.suffix); err != nil {
			return fs, err
		}
	}
	return fs, nil
}

// same compares the files a reader depends on (not -shm, which readers of a live database
// update all the time without changing its content).
func (a fileSet) same(b fileSet) bool {
	return a.db == b.db && a.wal == b.wal && a.journal == b.journal
}

// needsCopy reports whether the database cannot be read in place without SQLite writing
// beside it: a WAL with frames (reading it needs a -shm index) or a hot rollback journal.
func (a fileSet) needsCopy() bool {
	return (a.wal.exists && a.wal.size > 0) || (a.journal.exists && a.journal.size > 0)
}

// checkWAL returns ErrMissingWAL when the -shm index of path says committed frames that are
// not yet copied into the database live in a WAL that is missing or too short: reading the
// main file alone would silently lose those transactions.
func checkWAL(path string, pageSize int) error {
	shm, err := os.ReadFile(path + "-shm")
	if err != nil || len(shm) < 136 {
		return nil // no index: nothing says frames exist
	}
	// WalIndexHdr (native byte order): iVersion, unused, iChange, isInit, bigEndCksum,
	// szPage, mxFrame, ... ; two copies of 48 bytes, then WalCkptInfo.nBackfill at 96.
	order := binary.NativeEndian
	if order.Uint32(shm[0:4]) != 3007000 || shm[12] != 1 || !bytes.Equal(shm[:48], shm[48:96]) {
		return nil // not initialised, or being rewritten: it proves nothing
	}
	mxFrame := int64(order.Uint32(shm[16:20]))
	backfill := int64(order.Uint32(shm[96:100]))
	if mxFrame == 0 || backfill >= mxFrame {
		return nil // every committed frame is already in the database file
	}
	if sz := int(order.Uint16(shm[14:16])); sz > 0 {
		pageSize = sz
		if sz == 1 {
			pageSize = 65536
		}
	}
	need := walHeaderSize + mxFrame*int64(walFrameHead+pageSize)
	st, err := os.Stat(path + "-wal")
	switch {
	case errors.Is(err, os.ErrNotExist):
		return wrapf(ErrMissingWAL, "%s-shm lists %d committed frames (%d not in the database yet) but %s-wal does not exist; restore the -wal file beside the database (it holds the latest sessions)",
			filepath.Base(path), mxFrame, mxFrame-backfill, filepath.Base(path))
	case err != nil:
		return err
	case st.Size() < need:
		return wrapf(ErrMissingWAL, "%s-wal is %d bytes but its index lists %d committed frames (%d bytes): it was truncated or replaced",
			filepath.Base(path), st.Size(), mxFrame, need)
	}
	return nil
}

// copySnapshot copies the database and its WAL or journal into dir, and checks that none
// of them changed meanwhile, so the copy is one consistent state (SQLite's own recovery then
// ignores a torn last WAL frame). It retries a few times while a gateway writes.
func copySnapshot(path, dir string) (string, error) {
	dst := filepath.Join(dir, "snapshot.sqlite")
	var last error
	for attempt := 0; attempt < 5; attempt++ {
		if attempt > 0 {
			time.Sleep(time.Duration(attempt*attempt) * 20 * time.Millisecond)
		}
		before, err := sigsOf(path)
		if err != nil {
			return "", err
		}
		if err := copyFiles(path, dst, before); err != nil {
			return "", err
		}
		if testHookCopied != nil {
			testHookCopied(attempt)
		}
		after, err := sigsOf(path)
		if err != nil {
			return "", err
		}
		if before.same(after) {
			return dst, nil
		}
		last = wrapf(ErrBusy, "the database kept changing while it was copied (5 attempts); stop the gateway or try again")
	}
	return "", last
}

// testHookCopied runs between the copy and the second look (tests simulate a writer).
var testHookCopied func(attempt int)

func copyFiles(path, dst string, fs fileSet) error {
	for _, x := range []struct {
		s      sig
		suffix string
	}{{fs.db, ""}, {fs.wal, "-wal"}, {fs.journal, "-journal"}} {
		os.Remove(dst + x.suffix)
		if !x.s.exists {
			continue
		}
		if err := copyFile(path+x.suffix, dst+x.suffix); err != nil {
			return fmt.Errorf("copy %s to a temp dir: %w", filepath.Base(path+x.suffix), err)
		}
	}
	os.Remove(dst + "-shm") // SQLite rebuilds the index from the copied WAL
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil { // copy_file_range on Linux
		out.Close()
		return err
	}
	return out.Close()
}
