package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// outcome is the one JSON object a command prints with --json. It holds the
// fields of every command these tests run; absent fields stay zero.
type outcome struct {
	OK       bool   `json:"ok"`
	Command  string `json:"command"`
	ID       string `json:"id"`
	Status   string `json:"status"`
	Revision int    `json:"revision"`
	Created  []struct {
		ID   string `json:"id"`
		Path string `json:"path"`
	} `json:"created"`
	IssueNumber    int      `json:"issue_number"`
	ResponseNumber int      `json:"response_number"`
	SubStatementID string   `json:"sub_statement_id"`
	SubStatements  []string `json:"sub_statements"`
	ProofRevision  int      `json:"proof_revision"`
	Error          *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	// show
	Document json.RawMessage `json:"document"`
	// show --sentences gives [{number, text}], state-complete-proof a count.
	Sentences json.RawMessage `json:"sentences"`
	// doctor
	Report *struct {
		Journal  string   `json:"journal"`
		Swept    []string `json:"swept"`
		Events   int      `json:"events"`
		Findings []struct {
			Path    string `json:"path"`
			Message string `json:"message"`
		} `json:"findings"`
	} `json:"report"`
}

// call is one execution of the binary and what came of it.
type call struct {
	Agent   string
	Actor   string
	Skill   string        // the subcommand
	Target  string        // the document the skill acts on ("" for none)
	Token   string        // unique text the call writes into every document it touches
	Args    []string      // the subcommand's own arguments
	Expect  int           // --expect-revision, or -1
	Hook    string        // PROOFLOOP_TEST_CRASH, or ""
	Delay   time.Duration // when runKill sent SIGKILL; -1 for none
	Elapsed time.Duration // from start to exit

	Code   int  // exit code; -1 when killed by a signal
	Killed bool // died of SIGKILL (ours or the crash hook's)
	Out    outcome
	Stdout string
	Stderr string
}

// ok reports whether the call ran to the end and succeeded.
func (c *call) ok() bool { return !c.Killed && c.Code == 0 }

func (c *call) String() string {
	return fmt.Sprintf("%s %s (actor %s, token %s): exit %d killed=%v\nstdout: %s\nstderr: %s",
		c.Skill, strings.Join(c.Args, " "), c.Actor, c.Token, c.Code, c.Killed, c.Stdout, c.Stderr)
}

// mutating is whether a successful run of the command writes one event.
func mutating(skill string) bool {
	switch skill {
	case "init", "show", "doctor", "transitions":
		return false
	}
	return true
}

// cli runs the binary against one contents root.
type cli struct {
	root     string
	store    string // a PostgreSQL DSN, or "" for the file store under root
	smallWAL bool   // checkpoint every few calls (killWALLimit)
	tokens   atomic.Int64

	mu    sync.Mutex
	calls []*call // every call, in the order it finished
}

func newCLI(root string) *cli { return &cli{root: root} }

// newPostgres returns a fresh, migrated PostgreSQL database of the shared
// cluster (skipping the test, loudly, when there is none).
func newPostgres(t *testing.T) string {
	return cluster.NewMigratedDB(t)
}

// oneProblem is a new store (on PostgreSQL when dsn is one) holding one
// problem, prob_NAME.
func oneProblem(t *testing.T, dsn, name string) *cli {
	t.Helper()
	c := &cli{root: filepath.Join(t.TempDir(), "contents"), store: dsn}
	for _, k := range []*call{{Skill: "init", Expect: -1}, {Skill: "new-problem", Expect: -1, Args: []string{"--name", name, "--objective", "Show it."}}} {
		if c.run(k); !k.ok() {
			t.Fatalf("setup: %v", k)
		}
	}
	return c
}

// snapshotDir is a folder holding the files of the cli's store: its root,
// or for PostgreSQL a fresh export of it.
func (c *cli) snapshotDir(t *testing.T) string {
	if c.store == "" {
		return c.root
	}
	dir := filepath.Join(t.TempDir(), "export")
	cmd := c.command(&call{Skill: "export", Expect: -1, Args: []string{"--to", dir}})
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("export of the PostgreSQL store: %v\n%s", err, out)
	}
	return dir
}

// token returns a new unique token. Fixed width and a final letter keep one
// token from being a substring of another.
func (c *cli) token() string { return fmt.Sprintf("tk%07dq", c.tokens.Add(1)) }

// env is the environment of a child: ours without any PROOFLOOP_ variable,
// plus the root, a lock timeout long enough that 32 agents do not time out
// on a slow machine, and the crash hook when asked.
func (c *cli) env(hook string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PROOFLOOP_") {
			env = append(env, kv)
		}
	}
	env = append(env, "PROOFLOOP_ROOT="+c.root, "PROOFLOOP_LOCK_TIMEOUT=120s")
	if c.store != "" {
		env = append(env, "PROOFLOOP_STORE="+c.store)
	}
	if c.smallWAL {
		env = append(env, killWALLimit)
	}
	if hook != "" {
		env = append(env, "PROOFLOOP_TEST_CRASH="+hook)
		if step, _ := crashStep(hook); step.Checkpoint {
			// The step is reached only by a commit that checkpoints.
			env = append(env, "PROOFLOOP_TEST_WAL_LIMIT=1")
		}
	}
	return env
}

// killWALLimit makes a commit checkpoint once the write-ahead log has
// passed a few calls' worth (the default is 1 MB, hundreds of calls), so
// that the random kills of the crash suites land in checkpoints too.
const killWALLimit = "PROOFLOOP_TEST_WAL_LIMIT=30000"

func (c *cli) command(k *call) *exec.Cmd {
	args := []string{k.Skill, "--json", "--root", c.root}
	if k.Actor != "" {
		args = append(args, "--actor", k.Actor)
	}
	if k.Expect >= 0 {
		args = append(args, "--expect-revision", fmt.Sprint(k.Expect))
	}
	cmd := exec.Command(bin, append(args, k.Args...)...)
	cmd.Env = c.env(k.Hook)
	return cmd
}

// run executes k to its end, records it and returns it.
func (c *cli) run(k *call) *call {
	return c.runKill(k, -1)
}

// runKill executes k and, when delay >= 0, sends it SIGKILL after delay
// (unless it has finished by then). It records the call and returns it.
func (c *cli) runKill(k *call, delay time.Duration) *call {
	cmd := c.command(k)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	k.Delay = delay
	start := time.Now()
	err := cmd.Start()
	if err == nil {
		if delay >= 0 {
			time.Sleep(delay)
			cmd.Process.Kill() // fails harmlessly when it has already exited
		}
		err = cmd.Wait()
	}
	k.Elapsed = time.Since(start)
	k.Stdout, k.Stderr = stdout.String(), stderr.String()
	var ee *exec.ExitError
	switch {
	case err == nil:
		k.Code = 0
	case errors.As(err, &ee):
		k.Code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			k.Killed = ws.Signal() == syscall.SIGKILL
		}
	default:
		k.Code = -2
		k.Stderr += "\n(test: " + err.Error() + ")"
	}
	if !k.Killed {
		// With --json stdout is exactly one JSON object, success or not.
		if err := json.Unmarshal(stdout.Bytes(), &k.Out); err != nil {
			k.Stderr += "\n(test: stdout is not one JSON object: " + err.Error() + ")"
			k.Code = -3
		}
	}
	c.mu.Lock()
	c.calls = append(c.calls, k)
	c.mu.Unlock()
	return k
}

// all returns every call recorded so far.
func (c *cli) all() []*call {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*call(nil), c.calls...)
}

// contractError returns why a finished call's output breaks the CLI
// contract, or "" when it keeps it: ok matches the exit code, the command is
// named, and the error code matches the exit code.
func contractError(k *call) string {
	if k.Killed {
		return ""
	}
	o := k.Out
	switch {
	case k.Code < 0:
		return "the test could not run it or parse its output"
	case o.OK != (k.Code == 0):
		return fmt.Sprintf("ok is %v with exit %d", o.OK, k.Code)
	case o.Command != k.Skill:
		return fmt.Sprintf("command is %q, want %q", o.Command, k.Skill)
	case k.Code == 0:
		return ""
	case o.Error == nil:
		return "a failure without an error object"
	}
	want := map[int][]string{1: {"internal"}, 2: {"usage", "invalid_input"}, 3: {"not_found"},
		4: {"invalid_transition", "guard_failed"}, 5: {"conflict", "lease_held", "lock_timeout"}, 6: {"store_damaged"}}[k.Code]
	for _, w := range want {
		if o.Error.Code == w {
			return ""
		}
	}
	return fmt.Sprintf("error code %q with exit %d (want one of %v)", o.Error.Code, k.Code, want)
}
