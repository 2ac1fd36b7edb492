//go:build !windows

package safefile

import (
	"errors"
	"fmt"
	"os"
)

// SyncDir fsyncs a directory so a rename or create in it survives a power loss.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		return fmt.Errorf("fsync dir %s: %w", dir, err)
	}
	return nil
}
