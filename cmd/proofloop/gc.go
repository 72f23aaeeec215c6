package main

import (
	"runtime/debug"
	"sync"
)

// The soft memory limits under which the collector does not run
// (pauseGC): a skill call's, and status's, which at 100,000 statements
// allocates about 190 MB, all of it live until its output is written
// (the bound on its peak is 300 MB).
const (
	skillHeap  = 64 << 20
	statusHeap = 256 << 20
)

var gcPause struct {
	sync.Mutex
	n       int   // calls in progress in this process
	percent int   // the settings they replaced
	limit   int64 // (restored when the last one ends)
}

// pauseGC turns the garbage collector off for one skill call (or one
// status), under the soft memory limit heap, and returns what turns it
// back on. A skill call is one
// process that reads a few documents, writes them and exits: on a
// statement with a 100 KB proof and 300 issues it allocates about 7 MB and
// collected three times, a quarter of its CPU, for memory the exit gives
// back anyway. The limit keeps a call that allocates more than expected
// collecting as usual past 64 MB. Only a process run for the one command
// pauses (app.oneShot): the MCP server runs skill calls in its own
// long-lived process, whose heap may be past the limit. The settings are
// the process's, so a count keeps calls that run in one process at once
// (the tests run the CLI in process, in parallel) from restoring them
// under one another; the first of them sets the limit.
func pauseGC(heap int64) (resume func()) {
	gcPause.Lock()
	defer gcPause.Unlock()
	if gcPause.n == 0 {
		gcPause.limit = debug.SetMemoryLimit(-1) // a GOMEMLIMIT lower than ours stays
		debug.SetMemoryLimit(min(gcPause.limit, heap))
		gcPause.percent = debug.SetGCPercent(-1)
	}
	gcPause.n++
	return func() {
		gcPause.Lock()
		defer gcPause.Unlock()
		if gcPause.n--; gcPause.n == 0 {
			debug.SetGCPercent(gcPause.percent)
			debug.SetMemoryLimit(gcPause.limit)
		}
	}
}
