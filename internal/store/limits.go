package store

import (
	"context"

	"github.com/clawdoctor/clawdoctor/internal/safefile"
)

// MaxStoreBytes caps a sessions.json, which is read whole: a larger file is refused before a
// byte of it is read, with an error naming the file and the flag that raises the cap
// (--max-store-bytes). 256 MiB is several times the largest real store seen (tens of MB).
var MaxStoreBytes int64 = DefaultMaxStoreBytes

// DefaultMaxStoreBytes is the default of MaxStoreBytes.
const DefaultMaxStoreBytes = 256 << 20

// MaxStoreFlag is the command-line flag that sets MaxStoreBytes, for messages.
const MaxStoreFlag = "--max-store-bytes"

// ReadStoreFile reads the sessions.json at path whole, within MaxStoreBytes (a regular file
// only: a FIFO or device under its name is refused without blocking).
func ReadStoreFile(ctx context.Context, path string) ([]byte, error) {
	return safefile.ReadFile(ctx, path, MaxStoreBytes, MaxStoreFlag)
}
