package store

import (
	"os"
	"syscall"
)

// CrashStep is a step of the file store's write path at which the test
// hook PROOFLOOP_TEST_CRASH kills the process with SIGKILL, so the crash
// tests hit every step, not only the ones random kills happen to land on.
// CrashSteps is the one list of them: the store's crash tests and the
// end-to-end kill suites aim at what it names.
type CrashStep struct {
	Name string
	// Committed: the transaction killed here is in the store once the
	// next command has recovered. A kill at after-marker leaves a mark
	// whose record never reached the write-ahead log: recovery discards
	// it. The recovery of a leftover journal of the earlier protocol (the
	// whole record in .journal) reaches wal-written (when it logs the
	// journal) and after-journal too, before its own transaction.
	Committed bool
	// Journal: the kill leaves .journal for the next command to finish.
	Journal bool
	// Checkpoint: reached only when the commit checkpoints the log
	// (PROOFLOOP_TEST_WAL_LIMIT=1 checkpoints after every commit), and by
	// the replay after a machine crash.
	Checkpoint bool
	// Replay: reached only while a log written in another boot is
	// replayed (after a machine crash), before any transaction runs.
	Replay bool
}

// CrashSteps are the steps of the write path, in the order a commit (then
// a replay) reaches them.
var CrashSteps = []CrashStep{
	{Name: "before-journal"},
	{Name: "after-marker", Journal: true},
	{Name: "wal-written", Committed: true, Journal: true},
	{Name: "after-journal", Committed: true, Journal: true},
	{Name: "after-first-write", Committed: true, Journal: true},
	{Name: "after-writes", Committed: true, Journal: true},
	{Name: "after-event", Committed: true, Journal: true},
	{Name: "checkpoint", Committed: true, Checkpoint: true},
	{Name: "checkpoint-synced", Committed: true, Checkpoint: true},
	{Name: "replay-first", Replay: true},
	{Name: "replay-done", Replay: true},
}

var crashAt = os.Getenv("PROOFLOOP_TEST_CRASH")

// crashPoint kills the process when the test hook names this step: one of
// CrashSteps, or a step of export (export-mid-copy, export-before-rename),
// which writes no transaction. The store's crash tests kill at every step
// of CrashSteps and fail when one is never reached.
func crashPoint(name string) {
	if crashAt == name {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
}
