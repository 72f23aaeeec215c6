package main

import (
	"runtime/debug"
	"testing"
)

func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestPauseGC: the collector stays off until the last of overlapping
// skill calls returns, and then the process's own settings come back; a
// memory limit lower than the call's stays.
func TestPauseGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(77))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(1 << 40))
	first := pauseGC(skillHeap)
	second := pauseGC(skillHeap)
	if p, l := gcPercent(), debug.SetMemoryLimit(-1); p != -1 || l != skillHeap {
		t.Errorf("during two calls: GC percent %d, memory limit %d; want -1, %d", p, l, skillHeap)
	}
	first()
	if p := gcPercent(); p != -1 {
		t.Errorf("after the first of two calls returned: GC percent %d; want -1 until the second returns", p)
	}
	second()
	if p, l := gcPercent(), debug.SetMemoryLimit(-1); p != 77 || l != 1<<40 {
		t.Errorf("after both: GC percent %d, memory limit %d; want 77, %d", p, l, int64(1<<40))
	}
	debug.SetMemoryLimit(16 << 20)
	resume := pauseGC(skillHeap)
	if l := debug.SetMemoryLimit(-1); l != 16<<20 {
		t.Errorf("under GOMEMLIMIT=16MiB: memory limit %d during a call; want it kept", l)
	}
	resume()
}
