package safefile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
)

// ErrNotRegular is returned for a path that is a FIFO, a device, a socket or a directory:
// clawdoctor reads and writes regular files only. A FIFO would block open() itself and a
// device such as /dev/zero never ends.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is returned by ReadFile for a file over its cap.
var ErrTooLarge = errors.New("file is over its size cap")

// SizeError says which file is over which cap. Flag names the setting that raises the cap.
type SizeError struct {
	Path  string
	Size  int64 // -1 when only "more than Limit" is known (the file grew while read)
	Limit int64
	Flag  string
}

func (e *SizeError) Error() string {
	size := fmt.Sprintf("%d bytes", e.Size)
	if e.Size < 0 {
		size = fmt.Sprintf("more than %d bytes", e.Limit)
	}
	msg := fmt.Sprintf("%s: %s is over the cap of %d bytes", e.Path, size, e.Limit)
	if e.Flag != "" {
		msg += " (raise it with " + e.Flag + ")"
	}
	return msg
}

func (e *SizeError) Unwrap() error { return ErrTooLarge }

// kindOf names the kind of a non-regular file for messages.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	}
	return "not a regular file"
}

// NotRegular returns the error for path whose mode is m (nil when m is a regular file).
func NotRegular(path string, m fs.FileMode) error {
	if m.IsRegular() {
		return nil
	}
	return &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w: %s", ErrNotRegular, kindOf(m))}
}

// Open opens path for reading when it is a regular file (symlinks are followed). It never
// blocks: the file is opened with O_NONBLOCK, so a FIFO planted under a transcript's or a
// config's name is refused instead of hanging open(), and a device is refused too. On Windows
// the file is shared for deletion, so a file clawdoctor reads can still be replaced (the
// repair renames over a transcript it holds open, see open_windows.go).
func Open(path string) (*os.File, error) {
	f, _, err := OpenStat(path)
	return f, err
}

// OpenStat is Open that also returns the file's stat (the one Open makes anyway).
func OpenStat(path string) (*os.File, os.FileInfo, error) {
	f, err := openRead(path)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if err := NotRegular(path, st.Mode()); err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}

// ReadFile reads the regular file at path whole, refusing it before reading when it is
// larger than limit bytes (a *SizeError naming flag, the setting that raises the cap). A file
// that grows past the cap while read is refused too, and ctx is checked between chunks, so
// neither a huge nor an endless file costs more than limit bytes or ignores an interrupt.
func ReadFile(ctx context.Context, path string, limit int64, flag string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readLimited(ctx, f, path, limit, flag)
}

func readLimited(ctx context.Context, f *os.File, path string, limit int64, flag string) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if limit > 0 && st.Size() > limit {
		return nil, &SizeError{Path: path, Size: st.Size(), Limit: limit, Flag: flag}
	}
	return ReadAll(ctx, f, path, limit, flag, st.Size())
}

// ReadAll reads r to its end in chunks, checking ctx between them and refusing more than
// limit bytes (no cap when limit <= 0). sizeHint presizes the buffer: a file read with its
// size as the hint is read into one allocation, never grown and copied (a bytes.Buffer
// grows when less than 512 bytes are free, so a 118 MB sessions.json cost 192 MB).
func ReadAll(ctx context.Context, r io.Reader, name string, limit int64, flag string, sizeHint int64) ([]byte, error) {
	const chunk = 4 << 20
	hint := max(sizeHint, 0) + 1
	if limit > 0 {
		hint = min(hint, limit+1)
	} else {
		hint = min(hint, 64<<20)
	}
	buf := make([]byte, 0, hint)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, min(max(len(buf), 512), chunk))
		}
		n, err := r.Read(buf[len(buf):min(cap(buf), len(buf)+chunk)])
		buf = buf[:len(buf)+n]
		if limit > 0 && int64(len(buf)) > limit {
			return nil, &SizeError{Path: name, Size: -1, Limit: limit, Flag: flag}
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
	}
}

// Unreadable reports a read that failed because of the file itself (no permission, not a
// regular file, over its cap), as opposed to an I/O error: commands report such a file as
// skipped (exit 3) and go on.
func Unreadable(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, ErrNotRegular) || errors.Is(err, ErrTooLarge)
}
