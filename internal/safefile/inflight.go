package safefile

import (
	"os"
	"sync"
)

// In-flight work that a forced exit must undo: temp files not yet renamed and held locks.
// main calls Abort when a second interrupt (or the first one's grace period) ends the run
// before the code that owns them could clean up.
var inflight = struct {
	sync.Mutex
	next    int
	undo    map[int]func()
	journal []string
}{undo: map[int]func(){}}

// Track registers undo, to be run by Abort if the process must exit before the caller is
// done; the returned func unregisters it (call it when the work finished or was undone).
func Track(undo func()) (untrack func()) {
	inflight.Lock()
	defer inflight.Unlock()
	id := inflight.next
	inflight.next++
	inflight.undo[id] = undo
	return func() {
		inflight.Lock()
		delete(inflight.undo, id)
		inflight.Unlock()
	}
}

// Abort runs every registered undo (removes temp files, releases locks) and returns what was
// already changed in this process, for the message of an interrupted run. It is safe to call
// more than once.
func Abort() (done []string) {
	inflight.Lock()
	undo := inflight.undo
	inflight.undo = map[int]func(){}
	done = append([]string(nil), inflight.journal...)
	inflight.Unlock()
	for _, f := range undo {
		f()
	}
	return done
}

// record notes a finished change for Abort's message.
func record(what string) {
	inflight.Lock()
	inflight.journal = append(inflight.journal, what)
	inflight.Unlock()
}

func removeQuietly(path string) func() {
	return func() { os.Remove(path) }
}
