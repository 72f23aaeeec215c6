package formal

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Limits bound one run of a checker.
type Limits struct {
	Timeout     time.Duration
	MemoryBytes uint64
}

// maxFileBytes bounds any file the checker writes (RLIMIT_FSIZE): its own
// compiled output is a few hundred KB.
const maxFileBytes = 64 << 20

// maxCapture is the most output of a run kept in memory.
const maxCapture = 1 << 20

// ran is how a checker's run ended.
type ran struct {
	output   []byte // stdout and stderr, interleaved, at most maxCapture
	exit     int    // -1 when killed
	timedOut bool
	duration time.Duration
	sandbox  string // what confined it, in words
}

// mode is one way of confining the checker, tried in order until the
// process can be started so (a container may forbid namespaces).
type mode struct {
	attr *syscall.SysProcAttr
	desc string
}

// sandboxModes are the modes tried; a test replaces it to see a refused
// mode degrade loudly.
var sandboxModes = modes

// modes are the confinements the process can ask for, strongest first.
// As root: a new network namespace (no interface but a loopback that is
// down) and the user nobody, then nobody alone. As another user: a user
// namespace that maps the user to itself holding a new network namespace,
// then nothing. Every mode starts the checker in a process group of its
// own, killed when this process dies.
func modes() []mode {
	base := func() *syscall.SysProcAttr {
		return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	}
	if os.Geteuid() == 0 {
		uid, gid := nobody()
		cred := &syscall.Credential{Uid: uid, Gid: gid, NoSetGroups: false}
		a, b := base(), base()
		a.Cloneflags, a.Credential = syscall.CLONE_NEWNET, cred
		b.Credential = cred
		who := fmt.Sprintf("user nobody (uid %d)", uid)
		return []mode{{a, "network namespace (no network), " + who}, {b, "NO network namespace, " + who}}
	}
	uid, gid := os.Getuid(), os.Getgid()
	a := base()
	a.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	who := fmt.Sprintf("user uid %d (not root: it cannot switch to nobody)", uid)
	return []mode{{a, "network namespace (no network) in a user namespace, " + who}, {base(), "NO network namespace, " + who}}
}

// nobody is the user nobody's uid and gid (65534 where it cannot be looked up).
func nobody() (uint32, uint32) {
	uid, gid := uint32(65534), uint32(65534)
	if u, err := user.Lookup("nobody"); err == nil {
		if n, err := strconv.ParseUint(u.Uid, 10, 32); err == nil {
			uid = uint32(n)
		}
		if n, err := strconv.ParseUint(u.Gid, 10, 32); err == nil {
			gid = uint32(n)
		}
	}
	return uid, gid
}

// scratchParent is where the scratch folders are made: the temporary
// folder, unless the checker runs as nobody and nobody cannot reach it (a
// TMPDIR inside root's home, say); then /tmp or /var/tmp.
func scratchParent() string {
	if os.Geteuid() != 0 {
		return os.TempDir()
	}
	for _, dir := range []string{os.TempDir(), "/tmp", "/var/tmp"} {
		if reachable(dir) {
			return dir
		}
	}
	return os.TempDir()
}

// reachable reports whether any user may pass through every folder of dir.
func reachable(dir string) bool {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	for p := abs; ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil || !fi.IsDir() || fi.Mode().Perm()&0o001 == 0 {
			return false
		}
		if p == filepath.Dir(p) {
			return true
		}
	}
}

// prepareDir gives the scratch folder to the user the checker runs as.
func prepareDir(dir string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	uid, gid := nobody()
	return os.Chown(dir, int(uid), int(gid))
}

// runSandboxed runs argv in dir, confined: the strongest mode that starts
// (a weaker one is reported through warn, loudly, and in the sandbox
// text), a clean environment (PATH, and HOME and TMPDIR in dir), the
// address space, CPU time, file size and core dumps limited, and the whole
// process group killed at lim.Timeout. The limits are set on the process as
// soon as it started (prlimit), before it reads the text it checks.
func runSandboxed(dir string, argv []string, lim Limits, warn func(string)) (*ran, error) {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, &NotInstalled{Command: argv[0], Err: err}
	}
	args := argv[1:]
	// prlimit(1) sets the limits on itself and then runs the checker, so
	// they hold from its first instruction, whatever user it runs as; a
	// process of another user could not be limited from here without
	// CAP_SYS_RESOURCE, which a container often lacks.
	wrapped := false
	if pl, err := exec.LookPath("prlimit"); err == nil {
		args = append(limitArgs(lim), append([]string{"--", path}, args...)...)
		path, wrapped = pl, true
	}
	out := &capped{}
	var cmd *exec.Cmd
	var used mode
	var tried []string
	for _, m := range sandboxModes() {
		cmd = exec.Command(path, args...)
		cmd.Dir, cmd.Stdout, cmd.Stderr, cmd.SysProcAttr = dir, out, out, m.attr
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TMPDIR=" + dir, "LC_ALL=C"}
		cmd.WaitDelay = 5 * time.Second
		if err = cmd.Start(); err == nil {
			used = m
			break
		}
		if !errors.Is(err, syscall.EPERM) && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOSPC) && !errors.Is(err, syscall.EUSERS) {
			return nil, fmt.Errorf("start %s: %w", argv[0], err)
		}
		tried = append(tried, fmt.Sprintf("%s: %v", m.desc, err))
	}
	if err != nil {
		return nil, fmt.Errorf("start %s in any sandbox: %s", argv[0], strings.Join(tried, "; "))
	}
	start := time.Now()
	desc := used.desc
	if len(tried) > 0 {
		warn(fmt.Sprintf("the checker runs in a weaker sandbox: %s (refused: %s)", used.desc, strings.Join(tried, "; ")))
	}
	var lerr error
	if !wrapped {
		lerr = limit(cmd.Process.Pid, lim)
	}
	switch err := lerr; {
	case wrapped:
		desc += fmt.Sprintf(", limits (prlimit): %s, %d MB", lim.Timeout, lim.MemoryBytes>>20)
	case err != nil:
		desc += ", NO resource limits (no prlimit command, and " + err.Error() + ")"
		warn("the checker runs without its memory and CPU limits: install util-linux's prlimit (" + err.Error() + ")")
	default:
		desc += fmt.Sprintf(", limits: %s, %d MB", lim.Timeout, lim.MemoryBytes>>20)
	}
	r := &ran{sandbox: desc}
	r.exit, r.timedOut = waitGroup(cmd, lim.Timeout)
	r.duration, r.output = time.Since(start), out.Bytes()
	return r, nil
}

// limitArgs are prlimit(1)'s options for lim.
func limitArgs(lim Limits) []string {
	return []string{fmt.Sprintf("--as=%d", lim.MemoryBytes), fmt.Sprintf("--cpu=%d", cpuSeconds(lim)),
		fmt.Sprintf("--fsize=%d", maxFileBytes), "--core=0"}
}

// cpuSeconds bounds the checker's CPU time a little past its wall time: a
// backstop for the timeout, should the process escape its group.
func cpuSeconds(lim Limits) uint64 { return uint64(lim.Timeout/time.Second) + 2 }

// limit sets the resource limits of a started process: where no prlimit
// command wrapped it, as soon as it started, before it read the text it
// checks (possible for a process of one's own user).
func limit(pid int, lim Limits) error {
	cpu := cpuSeconds(lim)
	for _, l := range []struct {
		res int
		max uint64
	}{{unix.RLIMIT_AS, lim.MemoryBytes}, {unix.RLIMIT_CPU, cpu}, {unix.RLIMIT_FSIZE, maxFileBytes}, {unix.RLIMIT_CORE, 0}} {
		if err := unix.Prlimit(pid, l.res, &unix.Rlimit{Cur: l.max, Max: l.max}, nil); err != nil {
			return fmt.Errorf("prlimit: %w", err)
		}
	}
	return nil
}

// waitGroup waits for the process to end or for timeout, then kills its
// process group whatever happened (the group is killed while its leader is
// unreaped, so its id cannot have been reused), and returns the exit code
// (-1 when a signal ended it) and whether the time ran out.
func waitGroup(cmd *exec.Cmd, timeout time.Duration) (int, bool) {
	pid := cmd.Process.Pid
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		var info unix.Siginfo
		for {
			if err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil); !errors.Is(err, unix.EINTR) {
				return
			}
		}
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	timedOut := false
	select {
	case <-exited:
	case <-timer.C:
		timedOut = true
	}
	syscall.Kill(-pid, syscall.SIGKILL)
	<-exited
	err := cmd.Wait()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, timedOut
	case errors.As(err, &ee) && ee.Exited():
		return ee.ExitCode(), timedOut
	}
	return -1, timedOut
}

// capped keeps the first maxCapture bytes written to it and counts the
// rest.
type capped struct {
	bytes.Buffer
	dropped int
}

func (c *capped) Write(p []byte) (int, error) {
	n := len(p)
	if room := max(maxCapture-c.Len(), 0); room < n {
		c.dropped += n - room
		p = p[:room]
	}
	c.Buffer.Write(p)
	return n, nil
}

// NotInstalled is a checker whose command is not found.
type NotInstalled struct {
	Command string
	Err     error
}

func (e *NotInstalled) Error() string {
	return fmt.Sprintf("the checker %s is not installed or not on the PATH: %v", e.Command, e.Err)
}
