package loop

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// ReaperCommand is the first argument that makes the proofloop binary a
// turn's reaper (Reap) instead of the CLI. run starts each agent through
// it; it is no command of the CLI's, and cmd/proofloop hands it over
// before cobra sees the line.
const ReaperCommand = "__turn-reaper"

// Reap is the process that stands between run and a turn's agent, so that
// nothing the agent started outlives its turn, not even a process that
// left the agent's process group and session (setsid) or was orphaned: it
// makes itself a child subreaper (PR_SET_CHILD_SUBREAPER), so every
// orphaned descendant of the agent becomes its child rather than init's.
// It runs args (sh -c COMMAND) in a process group of its own, with its
// stdin, stdout and stderr, and waits for it. When the agent ends, or when
// run asks it to stop (SIGTERM, SIGINT, SIGHUP: the turn timed out or the
// run ended), it kills the agent's group, then kills and reaps every child
// it has until it has none, and only then exits, with the agent's exit
// code (or dying of the agent's signal). So when run sees it end, nothing
// of the turn is left: no process to write to the store, and no one
// holding the turn's stderr pipe. An agent that kills its reaper orphans
// the whole turn, which run, a subreaper too, then adopts and kills.
func Reap(args []string) int {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "proofloop: "+ReaperCommand+" needs a command")
		return 2
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fmt.Fprintf(os.Stderr, "proofloop: cannot become the turn's subreaper: %v\n", err)
		return 126
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "proofloop: cannot start the agent: %v\n", err)
		return 127
	}
	pid := cmd.Process.Pid
	exited := exitedUnreaped(pid)
	select {
	case <-exited:
	case <-stop:
	}
	// The agent's group, its background children with it; killed while
	// the agent is still unreaped (WNOWAIT), so that the group's id is
	// still the agent's and no other's.
	syscall.Kill(-pid, syscall.SIGKILL)
	<-exited
	err := cmd.Wait()
	reapAll()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			// Die of the agent's signal, so that run sees how it ended.
			signal.Reset()
			syscall.Kill(os.Getpid(), ws.Signal())
			time.Sleep(time.Second) // a signal it cannot be killed by
		}
		return ee.ExitCode()
	}
	if err != nil {
		return 1
	}
	return 0
}

// reapAll kills every child of this process (the orphans of the agent
// that were handed to it as the subreaper) and reaps them, until it has
// none: a killed child's own children become its children in turn. It
// polls while children remain, since one may become its child after the
// list was read; each pass kills everything it finds.
func reapAll() {
	self := os.Getpid()
	for {
		for _, pid := range childrenOf(self) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		for {
			wpid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
			if errors.Is(err, syscall.ECHILD) {
				return // no child is left, living or dead
			}
			if err != nil && !errors.Is(err, syscall.EINTR) {
				return
			}
			if wpid <= 0 {
				break // children left, none dead yet
			}
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// childrenOf lists the children of process pid: each of its threads'
// /proc/PID/task/TID/children (a child's parent is the thread that forked
// it, or the one the kernel handed an orphan to), else, on a kernel without
// that file, every process of /proc whose parent it is.
func childrenOf(pid int) []int {
	all := func() []int { return procsWhere(func(ppid, _ int) bool { return ppid == pid }) }
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return all()
	}
	var out []int
	for _, tk := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, tk.Name()))
		if errors.Is(err, fs.ErrNotExist) && tk.Name() == strconv.Itoa(pid) {
			return all() // no children file on this kernel
		}
		// A thread that ended since the list was read has no children.
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// procsWhere lists the processes whose parent and process group ids
// match, from /proc.
func procsWhere(match func(ppid, pgrp int) bool) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces and
		// parentheses.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) >= 3 {
			ppid, err1 := strconv.Atoi(f[1])
			pgrp, err2 := strconv.Atoi(f[2])
			if err1 == nil && err2 == nil && match(ppid, pgrp) {
				out = append(out, n)
			}
		}
	}
	return out
}

// exitedUnreaped is closed once process pid has exited, which it leaves
// unreaped (waitid with WNOWAIT): until the caller reaps it, its pid and
// process group id cannot be reused, so killing its group is safe.
func exitedUnreaped(pid int) <-chan struct{} {
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		var info unix.Siginfo
		for {
			err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
			if !errors.Is(err, unix.EINTR) {
				return
			}
		}
	}()
	return exited
}
