package formal

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/proofloop/proofloop/model"
)

// script writes a checker of the result contract into a folder any user
// may read (the sandbox runs it as nobody when the test runs as root).
func script(t *testing.T, body string) []string {
	t.Helper()
	dir, err := os.MkdirTemp("", "proofloop-sandbox-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "check.sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return []string{"sh", p}
}

func contractJob(argv []string, timeout time.Duration) Job {
	return Job{System: "toy", Theorem: "t", Statement: "theorem t : True", Proof: "theorem t : True := trivial",
		Argv: argv, Ext: "toy", Limits: Limits{Timeout: timeout, MemoryBytes: 256 << 20}}
}

// TestSandboxContains: what a checker (and so a proof) can reach from the
// sandbox: no network but a loopback that is down, a clean environment,
// its scratch folder as working folder; as root, the user nobody, who can
// neither read a private file nor write in a folder of root's.
func TestSandboxContains(t *testing.T) {
	t.Setenv("PROOFLOOP_SECRET", "hunter2")
	private := filepath.Join(t.TempDir(), "private")
	if err := os.WriteFile(private, []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	project := t.TempDir()
	os.Chmod(project, 0o755)
	argv := script(t, fmt.Sprintf(`echo "uid $(id -u)"
echo "cwd $(pwd)"
env | sort | sed 's/^/env /'
cat /proc/net/dev | sed -n '3,$p' | sed 's/^ *\([^:]*\):.*/iface \1/'
cat %s >/dev/null 2>&1 && echo "read private" || echo "no read private"
touch %s/escaped 2>/dev/null && echo "wrote project" || echo "no write project"
touch inside && echo "wrote scratch"
echo '{"ok": true, "axioms": []}'
`, private, project))
	var warned []string
	job := contractJob(argv, 30*time.Second)
	job.Warn = func(w string) { warned = append(warned, w) }
	o, err := Check(job)
	if err != nil {
		t.Fatal(err)
	}
	out := o.Output
	t.Logf("sandbox: %s\n%s", o.Sandbox, out)
	if !o.OK {
		t.Fatalf("the probe's outcome = %+v; want a pass", o)
	}
	// The environment: PATH, HOME, TMPDIR and LC_ALL of ours, and what sh
	// sets itself; nothing of the caller's.
	for _, l := range strings.Split(out, "\n") {
		k, _, _ := strings.Cut(strings.TrimPrefix(l, "env "), "=")
		if strings.HasPrefix(l, "env ") && !slices.Contains([]string{"PATH", "HOME", "TMPDIR", "LC_ALL", "PWD", "OLDPWD", "SHLVL", "_"}, k) {
			t.Errorf("the checker's environment has %s", l)
		}
	}
	if strings.Contains(out, "hunter2") || !strings.Contains(out, "env PATH=") {
		t.Errorf("the checker's environment is not clean:\n%s", out)
	}
	if !strings.Contains(out, "cwd "+os.TempDir()) && !strings.Contains(out, "cwd /tmp/proofloop-formal-") {
		t.Errorf("the checker does not run in its scratch folder:\n%s", out)
	}
	if !strings.Contains(out, "wrote scratch") {
		t.Errorf("the checker cannot write its scratch folder:\n%s", out)
	}
	if strings.Contains(o.Sandbox, "NO network namespace") {
		t.Logf("LOUDLY: this machine refused the network namespace: %v", warned)
	} else if ifaces := strings.Count(out, "iface "); ifaces != 1 || !strings.Contains(out, "iface lo") {
		t.Errorf("the checker sees %d network interfaces; want the loopback alone:\n%s", ifaces, out)
	}
	if os.Geteuid() != 0 {
		t.Logf("not root: the checker runs as this user, who may read and write what it may (docs/formal.md)")
		return
	}
	if !strings.Contains(out, "uid 65534") || !strings.Contains(out, "no read private") || !strings.Contains(out, "no write project") {
		t.Errorf("as root the checker must run as nobody, unable to read a private file or write a folder of root's:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(project, "escaped")); err == nil {
		t.Error("the checker wrote a file in a folder of root's")
	}
}

// TestSandboxKillsTheGroup: at the time limit the checker's whole process
// group is killed, a child it started included, and the outcome says the
// proof was refused as looping.
func TestSandboxKillsTheGroup(t *testing.T) {
	argv := script(t, "sleep 300 &\necho \"child $!\"\nwhile :; do :; done\n")
	o, err := Check(contractJob(argv, time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if o.OK || !strings.Contains(o.Reason, "did not finish within formal.timeout (1s)") {
		t.Fatalf("a looping checker's outcome = %+v; want a refusal at the timeout", o)
	}
	_, pidText, ok := strings.Cut(o.Output, "child ")
	pid, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(pidText, "\n", 2)[0]))
	if !ok || err != nil {
		t.Fatalf("no child pid in the output %q", o.Output)
	}
	// Dead, or a zombie its new parent has not reaped yet.
	if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil && !strings.Contains(string(stat), ") Z ") {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the checker's child %d outlived the timeout: %s", pid, stat)
	}
}

// TestSandboxMemoryLimit: a checker that allocates past formal.memory_mb
// fails instead of taking the machine's memory.
func TestSandboxMemoryLimit(t *testing.T) {
	// A shell variable doubled until it passes 512 MB, under a 256 MB
	// limit: the shell dies of it.
	argv := script(t, "x=aaaaaaaaaaaaaaaa\nwhile :; do x=\"$x$x\"; done\n")
	o, err := Check(contractJob(argv, 30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if o.OK || strings.Contains(o.Reason, "did not finish") {
		t.Errorf("an allocating checker's outcome = %+v; want it to fail at the memory limit, not run on", o)
	}
	if !strings.Contains(o.Sandbox, "256 MB") {
		t.Errorf("the sandbox %q does not name the memory limit", o.Sandbox)
	}
}

func TestBound(t *testing.T) {
	s := strings.Repeat("é", 3000) + "THE ERROR"
	b := Bound(s, 4000)
	if len(b) > 4000 || !strings.HasSuffix(b, "THE ERROR") || !strings.Contains(b, "bytes cut") {
		t.Errorf("Bound = %d bytes, ends %q; want at most 4000 keeping the end", len(b), b[max(0, len(b)-20):])
	}
	if Bound("short", 4000) != "short" {
		t.Error("Bound changed a short text")
	}
}

// TestContract: a checker of another system answers by its last line;
// anything else is a refusal, never a pass.
func TestContract(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		ok         bool
		reason     string
		target     string
		line       int
	}{
		{"a pass", `echo '{"ok": true, "axioms": []}'`, true, "", "", 0},
		{"a refusal with its error", `echo '{"ok": false, "reason": "type mismatch", "errors": [{"file": "Proof.toy", "line": 3, "message": "bad"}]}'; exit 1`, false, "type mismatch", "formal_proof", 3},
		{"an error in the statement", `echo '{"ok": false, "errors": [{"file": "Statement.toy", "line": 1, "message": "bad"}]}'; exit 1`, false, "the checker refused the proof (exit 1)", "formal_statement", 1},
		{"a pass that exits 1", `echo '{"ok": true, "axioms": []}'; exit 1`, false, "the checker refused the proof (exit 1)", "formal_proof", 0},
		{"no JSON", `echo 'all good'`, false, "did not end with the contract's JSON line", "formal_proof", 0},
		{"data after the JSON", `echo '{"ok": true, "axioms": []} trailing'`, false, "did not end with the contract's JSON line", "formal_proof", 0},
		{"an unknown key", `echo '{"ok": true, "axioms": [], "trust_me": true}'`, false, "did not end with the contract's JSON line", "formal_proof", 0},
		{"the arguments", `[ "$1" = Statement.toy ] && [ "$2" = Proof.toy ] && [ "$3" = t ] && grep -q trivial Proof.toy && echo '{"ok": true, "axioms": []}'`, true, "", "", 0},
	} {
		o, err := Check(contractJob(script(t, tc.body+"\n"), 30*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if o.OK != tc.ok || !strings.Contains(o.Reason, tc.reason) || (!tc.ok && (o.Target != tc.target || o.Line != tc.line)) {
			t.Errorf("%s: %+v; want ok %v, reason %q, target %q, line %d", tc.name, o, tc.ok, tc.reason, tc.target, tc.line)
		}
	}
	// A pass resting on an axiom not permitted is a refusal.
	job := contractJob(script(t, `echo '{"ok": true, "axioms": ["propext", "Classical.choice"]}'`+"\n"), 30*time.Second)
	job.Permitted = []string{"propext"}
	if o, err := Check(job); err != nil || o.OK || !strings.Contains(o.Reason, "does not permit: Classical.choice") {
		t.Errorf("a pass on an axiom not permitted = %+v, %v; want a refusal naming it", o, err)
	}
	if err := ValidTheorem("--output=/etc/x"); err == nil {
		t.Error("ValidTheorem accepted an option as a theorem's name")
	}
}

// TestSandboxDegradesLoudly: where the system refuses a mode (a container
// that forbids namespaces), the checker runs in the next, and the warning
// and the verdict's sandbox say so.
func TestSandboxDegradesLoudly(t *testing.T) {
	saved := sandboxModes
	t.Cleanup(func() { sandboxModes = saved })
	sandboxModes = func() []mode {
		ms := saved()
		// A clone the kernel refuses (EINVAL): a thread without its
		// parent's signal handlers.
		refused := &syscall.SysProcAttr{Setpgid: true, Cloneflags: syscall.CLONE_THREAD}
		return []mode{{refused, "a mode this kernel refuses"}, ms[len(ms)-1]}
	}
	var warned []string
	job := contractJob(script(t, `echo '{"ok": true, "axioms": []}'`+"\n"), 30*time.Second)
	job.Warn = func(w string) { warned = append(warned, w) }
	o, err := Check(job)
	if err != nil {
		t.Fatal(err)
	}
	if !o.OK || !strings.Contains(o.Sandbox, "NO network namespace") || len(warned) != 1 ||
		!strings.Contains(warned[0], "weaker sandbox") || !strings.Contains(warned[0], "a mode this kernel refuses") {
		t.Errorf("outcome %+v, warnings %q; want a pass in the weaker mode, said in the sandbox and a warning", o, warned)
	}
}

// TestUncitedFailure: a coqc that ran out of memory, or was killed, says
// so rather than "failed (exit -1)".
func TestUncitedFailure(t *testing.T) {
	f := &coqFile{}
	for _, c := range []struct {
		out  string
		exit int
		want string
	}{
		{"Fatal error: out of memory.\n", -1, "the checker ran out of memory (exit -1): formal.memory_mb bounds it"},
		{"", -1, "the checker was killed by a signal (exit -1)"},
		{"something else\n", 3, "the checker failed (exit 3)"},
	} {
		o := &Outcome{}
		f.failure(o, c.out, c.exit, "t", "")
		if o.Reason != c.want || o.Target != model.TargetFormalProof {
			t.Errorf("failure(%q, exit %d) = %q on %s; want %q", c.out, c.exit, o.Reason, o.Target, c.want)
		}
	}
}
