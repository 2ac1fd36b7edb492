package audit

import (
	"context"
	"errors"
	"hash/maphash"

	"github.com/clawdoctor/clawdoctor/internal/agentdb"
)

// identKeys records, for a session read from a database, the idKey of the id and of the
// parentId of the entry on each line, so that the session's transcript_event_identities rows
// can be checked against the ids the scan read anyway. agentdb.IdentityMismatches, which
// parses every event's JSON again inside SQLite, then runs only when some row differs: on a
// database of the real 2026.9.6 import it was half the audit's CPU time (2.2 of 4.1 CPU-s,
// the 512 MiB limits sessions); reading the identity rows cost 0.3 CPU-s through SQL, and
// agentdb.Identities now reads them from the file.
//
// Two keys a line, 16 bytes; a session of more than maxIdentLines lines is not recorded and
// SQL decides: 16 MiB of keys a session at most (32 MiB of capacity while the slice doubles).
type identKeys struct {
	keys []uint64 // line n at keys[2n-2:2n]: the id's key (noIDKey: no id), the parentId's; 0 0 not seen
	over bool     // a line past maxIdentLines: nothing is recorded
}

const (
	maxIdentLines = 1 << 20
	// noIDKey and doubtKey are never idKeys (idKey gives 0, below 1<<63, or 1<<63 | a 32-bit
	// value): an entry without an id, and a line read twice (objects glued on one line).
	noIDKey  = ^uint64(1)
	doubtKey = ^uint64(0)
)

// note records the keys of the entry (or header) read at line.
func (k *identKeys) note(line int64, key, pkey uint64) {
	if k == nil || k.over || line < 1 {
		return
	}
	if line > maxIdentLines {
		k.over, k.keys = true, nil
		return
	}
	i := 2 * int(line-1)
	if i >= len(k.keys) {
		k.keys = append(k.keys, make([]uint64, i+2-len(k.keys))...)
	}
	if k.keys[i] != 0 { // a second value on the line: which one is the event's is not known
		k.keys[i], k.keys[i+1] = doubtKey, doubtKey
		return
	}
	if key == 0 {
		key = noIDKey
	}
	k.keys[i], k.keys[i+1] = key, pkey
}

// errIdentityDiffers stops the reading of identity rows at the first that differs.
var errIdentityDiffers = errors.New("an identity row differs from its line")

// identitiesAgree reports whether every identity row of session names the id and parentId of
// the entry on line seq+1, as the scan read them (by their idKeys). That is exactly
// IdentityMismatches finding nothing when the seqs follow each other from 0 (gap < 0: line n
// holds seq n-1): it compares only rows whose event is valid JSON, and any such row that
// differs, or whose line held no entry, makes this false. False is no verdict: the caller
// asks SQL. Rows of events the scan could not read, zstd events (SQL does not look into them)
// and a hash collision (2^-63) are the only ways the two could part, and the first two only
// ever send a session to SQL.
func identitiesAgree(ctx context.Context, db *agentdb.DB, session string, gap int64, k *identKeys, seed maphash.Seed) bool {
	if k == nil || k.over || gap >= 0 {
		return false
	}
	err := db.Identities(ctx, session, func(seq int64, eventID, parentID []byte) error {
		if seq < 0 || 2*seq+1 >= int64(len(k.keys)) {
			return errIdentityDiffers
		}
		if id := k.keys[2*seq]; id == 0 || id != idKey(seed, eventID) || k.keys[2*seq+1] != idKey(seed, parentID) {
			return errIdentityDiffers
		}
		return nil
	})
	return err == nil
}
