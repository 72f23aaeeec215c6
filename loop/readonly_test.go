package loop_test

import (
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A read-only or permission-denied store is its own refusal (issue 35,
// item 3): exit 9 store_unwritable, naming the contents root and a sandbox
// as a likely cause, nothing written; never store_damaged (exit 6), which
// sent agents in Codex's read-only sandbox to ask a person for doctor.

// wantUnwritable checks a refused skill call and that the store is as it was.
func wantUnwritable(t *testing.T, r result, root, before string, wantMsg string) {
	t.Helper()
	var out struct {
		OK    bool `json:"ok"`
		Error struct{ Code, Message, Hint string }
	}
	r.decode(t, &out)
	why := "a sandbox may be the cause"
	if testStore != "" {
		why = "may not write proofloop's tables"
	}
	if r.code != 9 || out.Error.Code != "store_unwritable" || !strings.Contains(out.Error.Message, wantMsg) || !strings.Contains(out.Error.Hint, why) {
		t.Errorf("%v\nwant exit 9 store_unwritable, a message with %q and a hint with %q", r, wantMsg, why)
	}
	if testStore == "" && !strings.Contains(out.Error.Message, "(the contents root is "+root+")") {
		t.Errorf("message %q does not name the contents root %s", out.Error.Message, root)
	}
	if got := pl(t, root, nil, "events", "--json").stdout; got != before {
		t.Errorf("the events changed after a refused call:\n%s\nwant\n%s", got, before)
	}
}

// wrapup is a skill call that writes.
var wrapup = []string{"prob-wrapup-statement", "--problem-path", "prob_odd", "--claim", "It holds for every n.", "--purpose", "It is the objective.", "--json"}

// output runs cmd, a skill call, to its end.
func output(t *testing.T, cmd *exec.Cmd) result {
	t.Helper()
	out, err := cmd.Output()
	r := result{args: wrapup, stdout: string(out)}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code, r.stderr = ee.ExitCode(), string(ee.Stderr)
	} else if err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	return r
}

// TestReadOnlyFileSystemStore: the contents root on a read-only mount (as
// Codex's read-only sandbox makes it), in a user and mount namespace of
// the test's own.
func TestReadOnlyFileSystemStore(t *testing.T) {
	if err := exec.Command("unshare", "-rm", "true").Run(); err != nil {
		t.Skipf("no user and mount namespaces here (unshare -rm: %v): the read-only mount cannot be made", err)
	}
	root := newRoot(t, nil)
	must(t, root, "new-problem", "--name", "odd", "--objective", "The sum of the first n odd numbers is n^2.")
	before := pl(t, root, nil, "events", "--json").stdout
	args := append([]string{bin, "--root", root}, wrapup...)
	script := `mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"`
	cmd := exec.Command("unshare", append([]string{"-rm", "sh", "-c", script, "sh", root}, args...)...)
	cmd.Env = cleanEnv()
	wantUnwritable(t, output(t, cmd), root, before, "a read-only file system")
}

// TestPermissionDeniedStore: the store's files belong to another user.
func TestPermissionDeniedStore(t *testing.T) {
	root := newRoot(t, nil)
	must(t, root, "new-problem", "--name", "odd", "--objective", "The sum of the first n odd numbers is n^2.")
	before := pl(t, root, nil, "events", "--json").stdout
	cmd := command(root, nil, wrapup...)
	if os.Getuid() == 0 {
		// root may write anything: run the call as nobody, on a store
		// nobody may read and not write.
		for _, start := range []string{filepath.Dir(root), filepath.Dir(bin)} {
			for p := start; p != "/"; p = filepath.Dir(p) {
				os.Chmod(p, 0o755) // t.TempDir's folders are 0700
			}
		}
		filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
			if err == nil {
				os.Chmod(p, fi.Mode().Perm()|0o044|map[bool]os.FileMode{true: 0o011}[fi.IsDir()])
			}
			return nil
		})
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	} else {
		filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
			if err == nil {
				os.Chmod(p, fi.Mode().Perm()&^0o222)
			}
			return nil
		})
		t.Cleanup(func() {
			filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
				if err == nil {
					os.Chmod(p, fi.Mode().Perm()|0o200)
				}
				return nil
			})
		})
	}
	wantUnwritable(t, output(t, cmd), root, before, "permission denied")
}

// TestReadOnlyPostgresStore: a session whose transactions are read-only
// (a replica, default_transaction_read_only) is refused the same way.
func TestReadOnlyPostgresStore(t *testing.T) {
	onPostgres(t)
	root := newRoot(t, nil)
	must(t, root, "new-problem", "--name", "odd", "--objective", "The sum of the first n odd numbers is n^2.")
	before := pl(t, root, nil, "events", "--json").stdout
	u, err := url.Parse(testStore)
	if err != nil {
		t.Fatal(err)
	}
	u.RawQuery += "&options=-c%20default_transaction_read_only%3Don"
	if !strings.Contains(testStore, "?") {
		u.RawQuery = strings.TrimPrefix(u.RawQuery, "&")
	}
	cmd := command(root, nil, wrapup...)
	cmd.Env = append(cmd.Env, "PROOFLOOP_STORE="+u.String())
	wantUnwritable(t, output(t, cmd), root, before, "read-only transaction")
}
