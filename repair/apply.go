package repair

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrChanged is returned when the input does not match the plan (it changed since planning).
var ErrChanged = errors.New("file changed since it was planned")

// Apply streams src, the same bytes the plan was made from, into dst with the plan's edits.
// Unchanged ranges are copied as they are. It returns the bytes written, which equal
// plan.BytesAfter, or an error when src does not have the planned size.
func Apply(ctx context.Context, plan *Plan, src io.Reader, dst io.Writer) (int64, error) {
	a := applier{ctx: ctx, br: bufio.NewReaderSize(src, 1<<20), w: dst}
	return a.run(plan)
}

// ApplyFile is Apply for an uncompressed file: unchanged ranges are copied with io.CopyN from
// the file itself, which lets the kernel copy them (copy_file_range) when dst leads to a file,
// and skipped ranges are seeked over. Bytes after the planned ones (appended by a live writer)
// are not copied: the caller carries them (see tailGuard).
func ApplyFile(ctx context.Context, plan *Plan, src *os.File, dst io.Writer) (int64, error) {
	st, err := src.Stat()
	if err != nil {
		return 0, err
	}
	if st.Size() < plan.BytesBefore { // longer is fine: appended bytes are carried later
		return 0, fmt.Errorf("%w: %d bytes, planned %d", ErrChanged, st.Size(), plan.BytesBefore)
	}
	if _, err := src.Seek(0, io.SeekStart); err != nil {
		return 0, err
	}
	a := applier{ctx: ctx, f: src, w: dst}
	return a.run(plan)
}

func (a *applier) run(plan *Plan) (int64, error) {
	for _, e := range plan.Edits {
		if err := a.edit(e); err != nil {
			return a.n, err
		}
	}
	return a.finish(plan)
}

// edit copies the source up to e and writes e's replacement. Edits must come in order.
func (a *applier) edit(e Edit) error {
	if e.Off < a.pos {
		return fmt.Errorf("repair: edit [%d,%d) before position %d", e.Off, e.End, a.pos)
	}
	if err := a.copyTo(e.Off); err != nil {
		return err
	}
	for _, r := range e.Repl {
		if r.Lit != nil {
			if err := a.write(r.Lit); err != nil {
				return err
			}
			continue
		}
		if r.Off < a.pos || r.End > e.End {
			return fmt.Errorf("repair: plan piece [%d,%d) outside edit [%d,%d)", r.Off, r.End, e.Off, e.End)
		}
		if err := a.discardTo(r.Off); err != nil {
			return err
		}
		if err := a.copyTo(r.End); err != nil {
			return err
		}
	}
	return a.discardTo(e.End)
}

// finish copies the rest and checks the sizes against the plan.
func (a *applier) finish(plan *Plan) (int64, error) {
	if err := a.ctx.Err(); err != nil {
		return a.n, err
	}
	if err := a.copyTo(plan.BytesBefore); err != nil {
		return a.n, err
	}
	if a.f != nil {
		// A plain file may have grown (a live writer appends): the tail guard carries that.
		if st, err := a.f.Stat(); err != nil || st.Size() < plan.BytesBefore {
			return a.n, fmt.Errorf("%w: size changed while repairing", ErrChanged)
		}
	} else if _, err := a.br.Peek(1); err != io.EOF {
		if err == nil {
			return a.n, fmt.Errorf("%w: longer than the %d planned bytes", ErrChanged, plan.BytesBefore)
		}
		return a.n, err
	}
	if a.n != plan.BytesAfter {
		return a.n, fmt.Errorf("repair: wrote %d bytes, planned %d", a.n, plan.BytesAfter)
	}
	return a.n, nil
}

type applier struct {
	ctx context.Context
	br  *bufio.Reader
	f   *os.File // instead of br for an uncompressed file
	w   io.Writer
	pos int64 // source bytes consumed
	n   int64 // bytes written
	buf []byte
}

func (a *applier) write(b []byte) error {
	n, err := a.w.Write(b)
	a.n += int64(n)
	return err
}

// copyTo copies source bytes up to offset off, in chunks so cancellation is seen.
func (a *applier) copyTo(off int64) error {
	for a.pos < off {
		if err := a.ctx.Err(); err != nil {
			return err
		}
		var src io.Reader = a.br
		n := min(off-a.pos, 4<<20)
		if a.f != nil {
			src, n = a.f, min(off-a.pos, 64<<20)
		}
		m, err := io.CopyN(a.w, src, n)
		a.pos += m
		a.n += m
		if err != nil {
			if err == io.EOF {
				return fmt.Errorf("%w: shorter than the %d planned bytes", ErrChanged, off)
			}
			return err
		}
	}
	return nil
}

func (a *applier) discardTo(off int64) error {
	if a.f != nil && a.pos < off {
		if _, err := a.f.Seek(off, io.SeekStart); err != nil {
			return err
		}
		a.pos = off
		return nil
	}
	for a.pos < off {
		n := int(min(off-a.pos, 1<<30))
		m, err := a.br.Discard(n)
		a.pos += int64(m)
		if err != nil {
			if err == io.EOF {
				return fmt.Errorf("%w: shorter than the %d planned bytes", ErrChanged, off)
			}
			return err
		}
	}
	return nil
}
