package loop

import (
	"os"
	"os/exec"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// run's own part in reaping a turn: each agent runs under a reaper of its
// own (Reap), and run itself is a child subreaper too, as a second wall:
// should an agent kill its reaper, the agent's orphans come to run, which
// kills and reaps them when the turn ends. Its children are then its
// reapers, which it tracks, and such orphans, which it does not.

// reapers are the reapers this process started and has not seen end. One
// registry per process, not per run: eval runs several runs at once in
// one process, and one run's reapers are no orphans to another.
type reapers struct {
	mu   sync.Mutex
	pids map[int]bool
}

// turnReapers is the process's registry.
var turnReapers reapers

// becomeSubreaper makes this process a child subreaper; false when the
// kernel refuses (then the reapers alone stand).
func becomeSubreaper() bool {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == nil
}

// start starts cmd, a reaper, and tracks it: under the lock, so that
// orphans never sees a reaper it does not know.
func (rp *reapers) start(cmd *exec.Cmd) error {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	if rp.pids == nil {
		rp.pids = map[int]bool{}
	}
	rp.pids[cmd.Process.Pid] = true
	return nil
}

// ended forgets a reaper that ended, then kills and reaps every child of
// run that is no reaper: the orphans of a turn whose reaper was killed,
// and theirs, which come to run as each is killed, until none is left.
func (rp *reapers) ended(pid int) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	delete(rp.pids, pid)
	for {
		var orphans []int
		for _, c := range childrenOf(os.Getpid()) {
			if !rp.pids[c] {
				syscall.Kill(c, syscall.SIGKILL)
				orphans = append(orphans, c)
			}
		}
		if len(orphans) == 0 {
			return
		}
		for _, c := range orphans {
			var ws syscall.WaitStatus
			for {
				_, err := syscall.Wait4(c, &ws, 0, nil)
				if err != syscall.EINTR {
					break
				}
			}
		}
	}
}
