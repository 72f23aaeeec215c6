package loop

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tidwall/gjson"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// Outcomes of one agent's turn.
const (
	TurnOK          = "ok"          // exited 0
	TurnFailed      = "failed"      // exited non-zero, or died of a signal of its own
	TurnTimeout     = "timeout"     // killed at --turn-timeout
	TurnInterrupted = "interrupted" // killed because the run ended (SIGINT, SIGTERM, another worker's error)
	TurnNotStarted  = "not_started" // the agent's command could not start (see notStarted)
)

// notStarted reports whether an agent's exit code says that its command
// never ran: sh exits 127 when the command (or the script it names) is not
// found and 126 when it is not executable. Such a turn is the
// configuration's fault, not the item's: it counts toward giving the agent
// up, and never against the item's round budget.
func notStarted(code *int) bool { return code != nil && (*code == 126 || *code == 127) }

// runCommands are the event commands run writes itself in a turn's name:
// none of them is a call the turn's agent made.
var runCommands = []string{"release", UsageCommand, "run-idle", TurnCommand}

// turnRecord is one turn as the progress reports see it.
type turnRecord struct {
	N      int
	Role   model.Role
	ID     string
	Kind   model.Kind
	Reason string
	Agent  string // the command line
	// AgentName and Model are the agent's name and model label in
	// config.json ("" when it has none); agentsKey its key below agents
	// (judge, panel.judge) and agentIndex its place there.
	AgentName, Model string
	agentsKey        string
	agentIndex       int
	agent            store.Agent // the agent of config.json that takes the turn
	Actor            string
	Log              string // root-relative
	Start            time.Time
	Ended            time.Time // when run began to give the item back: the turn's end

	// Known once it ended.
	Outcome       string
	ExitCode      *int
	Duration      time.Duration
	Before, After *store.Doc // After is nil when the item could not be read back
	Idle          bool
	Usage         *Usage // what the agent reported it cost, if it did
	UsageWarning  string // why the usage it reported was not counted
	Root          string // the item's root problem, known with Usage
	StderrTail    []string
	ErrText       string // what went wrong besides the agent, if anything
	canary        bool   // the turn is on a canary (run_canary.go)
	// AgentError is the error the agent's CLI reported in its output
	// (Codex's turn.failed, Gemini's error object, Claude Code's result),
	// "" when it reported none that run can read.
	AgentError string
	// NoCall says the turn failed (non-zero exit or timeout) before any
	// proofloop call: nothing changed and no event bears its actor. It is
	// the agent's failure, not the item's: never charged to its budget.
	NoCall bool
	seq0   int // the log's last seq when the agent started
}

// newTurn is the record of turn n, which worker w starts on c.
func (r *runner) newTurn(w, n int, c *Claimed) *turnRecord {
	t := &turnRecord{N: n, Role: c.Item.Role, ID: c.Item.ID, Kind: c.Item.Kind, Reason: c.Item.Reason,
		Agent: r.agentOf(c).Command, AgentName: c.Acting.Agent, Model: c.Acting.Model, agentsKey: c.Acting.Key, agentIndex: c.Acting.Index, agent: r.agentOf(c),
		Actor: c.Lease.Actor, Start: time.Now(),
		Outcome: TurnNotStarted} // until the agent ran
	t.Log = fmt.Sprintf("%s/%04d-%s-%s.log", r.dir, n, t.Role, t.ID)
	return t
}

// turn runs one agent on a claimed item and settles the turn. The lease
// goes back on every path out of it: the agent succeeded, failed, timed
// out, was interrupted, or the turn met a damaged store.
func (r *runner) turn(ctx context.Context, t *turnRecord, c *Claimed) (err error) {
	released := false
	defer func() {
		if !released {
			t.Ended = time.Now()
			if rerr := release(r.s, t.ID, c.Lease.Token, t.Actor); err == nil {
				err = rerr
			}
		}
		if err != nil {
			t.ErrText = err.Error()
		}
		g := r.count(t)
		r.recordTurn(t, g)
		r.rep.turnEnded(t)
		if g != nil {
			r.rep.givenUp(*g)
		}
	}()
	if t.Before, err = r.s.Read(t.ID); err != nil {
		return err
	}
	f, err := r.s.Root().OpenFile(t.Log, os.O_CREATE|os.O_RDWR|os.O_TRUNC, 0o644)
	if err != nil {
		return store.Errorf(store.CodeInternal, "create %s", t.Log).Wrap(err)
	}
	defer f.Close()
	fmt.Fprintf(f, "# turn %d: %s on %s (%s) as %s\n", t.N, t.Role, t.ID, t.Reason, t.Actor)
	if t.seq0, err = r.s.LastSeq(); err != nil {
		return err
	}

	r.runAgent(ctx, t, f, c.Lease.Token)
	fmt.Fprintf(f, "\n# turn %d ended: %s, %s, %s\n", t.N, t.Outcome, exitText(t), t.Duration.Round(time.Millisecond))
	r.turnUsage(t, f, usagePath(r, t))
	if t.UsageWarning != "" {
		fmt.Fprintf(f, "# warning: %s\n", t.UsageWarning)
	}

	released = true
	t.Ended = time.Now() // before the release: another may take the item once it commits
	if err := release(r.s, t.ID, c.Lease.Token, t.Actor); err != nil {
		return err
	}
	if t.After, err = r.s.Read(t.ID); err != nil {
		return err
	}
	unchanged := t.After.Revision() == t.Before.Revision()
	if unchanged && (t.Outcome == TurnFailed || t.Outcome == TurnTimeout) {
		if t.NoCall, err = r.noCall(t); err != nil {
			return err
		}
	}
	// An interrupted turn is the run's doing, not the agent's; a turn
	// whose agent did not start is the configuration's, and one that
	// failed before any proofloop call is the agent's (a broken endpoint,
	// a wrong flag): none is charged to the item's budget. A debate has no
	// round budget (its protocol limits its turns, and its schema has no
	// idle_turns): a debate turn that wrote nothing is a failed or empty
	// turn, not an idle one. Nor has a canary.
	t.Idle = unchanged && t.Outcome != TurnInterrupted && t.Outcome != TurnNotStarted && !t.NoCall && t.Kind != model.KindDebate && !t.canary
	if t.Idle {
		if err := r.idle(t.ID, t.Actor); err != nil {
			return err
		}
	}
	return nil
}

// noCall reports whether no event since the agent started bears the
// turn's actor, besides run's own (the lease's release, the usage): the
// agent made no proofloop call that changed anything.
func (r *runner) noCall(t *turnRecord) (bool, error) {
	called := false
	err := Events(context.Background(), r.s, t.seq0, false, func(_ int, line []byte) error {
		ev := gjson.ParseBytes(line)
		if ev.Get("actor").String() == t.Actor && !slices.Contains(runCommands, ev.Get("command").String()) {
			called = true
			return errStopEvents
		}
		return nil
	})
	if errors.Is(err, errStopEvents) {
		err = nil
	}
	return !called, err
}

// errStopEvents ends a read of the log early.
var errStopEvents = errors.New("stop")

// count adds an ended turn to the summary and gives up on a role whose
// agent failed max_agent_failures times in a row: the agent given up, or
// nil.
func (r *runner) count(t *turnRecord) *GivenUp {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sum.ByRole[string(t.Role)]++
	r.sum.ByOutcome[t.Outcome]++
	r.countDebate(t)
	r.spend(t)
	switch t.Outcome {
	case TurnTimeout:
		r.sum.TimedOut++
	case TurnFailed, TurnNotStarted:
		r.sum.Failed++
	}
	if t.Idle {
		r.sum.Idle++
	}
	key := agentKey(t.agentsKey, t.agentIndex)
	switch t.Outcome {
	case TurnOK:
		r.failures[key] = 0
	case TurnInterrupted:
	default:
		r.failures[key]++
		if r.failures[key] >= r.maxFails && !r.givenUp[key] && r.live[t.agentsKey] {
			r.givenUp[key] = true
			left := false
			for i := range r.agents[t.agentsKey] {
				left = left || !r.givenUp[agentKey(t.agentsKey, i)]
			}
			if !left {
				delete(r.live, t.agentsKey)
				r.liveRoles()
			}
			g := GivenUp{Role: t.Role, Agent: t.Agent, Name: t.AgentName, Failures: r.failures[key], LastOutcome: t.Outcome,
				LastExitCode: t.ExitCode, AgentError: t.AgentError, StderrTail: t.StderrTail}
			if g.StderrTail == nil {
				g.StderrTail = []string{}
			}
			r.sum.GivenUp = append(r.sum.GivenUp, g)
			return &g
		}
	}
	return nil
}

// runAgent runs the role's agent for one turn and fills in how it ended.
// The agent runs under a reaper (Reap: the proofloop binary itself, a
// child subreaper), in a process group of its own; whatever is left of the
// turn when it ends (background children, and orphans that left the
// group or the session) is killed before the reaper exits, so that nothing
// of the turn writes to the store after it.
func (r *runner) runAgent(ctx context.Context, t *turnRecord, log *os.File, token string) {
	root, _ := filepath.Abs(r.s.Dir)
	cmd := exec.Command("sh", "-c", t.Agent)
	if r.opts.Self != "" {
		cmd = exec.Command(r.opts.Self, ReaperCommand, "--", "sh", "-c", t.Agent)
		cmd.Args[0] = "proofloop" // a test binary dispatches on it
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Env = append(os.Environ(), "PROOFLOOP_ROOT="+root, "PROOFLOOP_ROLE="+string(t.Role), "PROOFLOOP_ID="+t.ID,
		"PROOFLOOP_KIND="+string(t.Kind), "PROOFLOOP_LEASE="+token, "PROOFLOOP_ACTOR="+t.Actor,
		"PROOFLOOP_RUN_ID="+r.sum.RunID, "PROOFLOOP_USAGE="+filepath.Join(root, usagePath(r, t)))
	cmd.Env = append(cmd.Env, r.opts.Env...)
	if t.Kind == model.KindDebate {
		cmd.Env = append(cmd.Env, DebateAgentEnv(r.s, t.ID, t.agent)...)
	}
	// What run knows of the agent (AgentLabels: config.json's name and
	// model, else what its command names), and its name.
	harness, modelID := AgentLabels(t.agent)
	for k, v := range map[string]string{"PROOFLOOP_HARNESS": harness, "PROOFLOOP_MODEL_ID": modelID, "PROOFLOOP_AGENT": t.AgentName} {
		if v != "" {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	if r.opts.Self != "" {
		cmd.Env = append(cmd.Env, "PATH="+filepath.Dir(r.opts.Self)+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	// Stdout goes to the log directly. Stderr goes through a pipe of ours
	// into the log and a tail buffer, for the give-up message. The pipe's
	// write end is an *os.File, so cmd.Wait does not wait on the copying.
	cmd.Stdout = log
	tail := &tailWriter{}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Outcome, t.StderrTail = TurnNotStarted, []string{err.Error()}
		return
	}
	copied := make(chan struct{})
	go func() {
		io.Copy(io.MultiWriter(log, tail), pr)
		close(copied)
	}()
	cmd.Stderr = pw
	if r.opts.Self != "" {
		err = turnReapers.start(cmd)
	} else {
		err = cmd.Start()
	}
	pw.Close()
	if err != nil {
		fmt.Fprintf(tail, "cannot start the agent: %v\n", err)
		t.Outcome = TurnNotStarted
	} else {
		t.Outcome, t.ExitCode = r.wait(ctx, cmd)
		if t.Outcome == TurnFailed && notStarted(t.ExitCode) {
			t.Outcome = TurnNotStarted
		}
		if r.opts.Self != "" {
			turnReapers.ended(cmd.Process.Pid)
		}
	}
	t.Duration = time.Since(t.Start)
	// Every process of the turn is dead now (the reaper ends last), and a
	// dead process holds no pipe: the copy ends. Without the reaper, one
	// that left the group on purpose (setsid) may hold it longer; the turn
	// does not wait on it for ever.
	select {
	case <-copied:
	case <-time.After(10 * time.Second):
		pr.Close()
		<-copied
	}
	pr.Close()
	t.StderrTail = tail.lines(5)
}

// wait waits for the agent to end, or for the turn timeout or the run's
// end. Under the reaper it asks the reaper to end the turn (SIGTERM) and
// waits for it to have killed and reaped everything; without one it kills
// the agent's process group in every case. The group is killed while its
// leader is still unreaped (waitid with WNOWAIT), so its process group id
// cannot have been reused by then.
func (r *runner) wait(ctx context.Context, cmd *exec.Cmd) (string, *int) {
	pid := cmd.Process.Pid
	exited := exitedUnreaped(pid)
	killGroup := func() { syscall.Kill(-pid, syscall.SIGKILL) }
	timer := time.NewTimer(r.opts.TurnTimeout)
	defer timer.Stop()
	outcome := ""
	select {
	case <-exited:
	case <-timer.C:
		outcome = TurnTimeout
	case <-ctx.Done():
		outcome = TurnInterrupted
	}
	if outcome != "" && r.opts.Self != "" {
		syscall.Kill(pid, syscall.SIGTERM) // the reaper kills the turn and reaps it
		select {
		case <-exited:
		case <-time.After(reaperGrace):
		}
	}
	killGroup()
	<-exited
	err := cmd.Wait()
	if outcome != "" {
		return outcome, nil
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
		code := 0
		return TurnOK, &code
	case errors.As(err, &ee) && ee.Exited():
		code := ee.ExitCode()
		return TurnFailed, &code
	}
	return TurnFailed, nil // killed by a signal it did not get from us
}

// reaperGrace is how long run waits for a reaper told to end its turn
// before it kills the reaper itself: the reaper only kills and reaps.
const reaperGrace = 30 * time.Second

// exitText says how the agent's process ended, for logs and progress.
func exitText(t *turnRecord) string {
	switch {
	case t.Outcome == TurnNotStarted && t.ExitCode != nil && *t.ExitCode == 126:
		return "exit 126: the command is not executable"
	case t.Outcome == TurnNotStarted && t.ExitCode != nil:
		return fmt.Sprintf("exit %d: the command was not found", *t.ExitCode)
	case t.ExitCode != nil:
		return fmt.Sprintf("exit %d", *t.ExitCode)
	case t.Outcome == TurnNotStarted:
		return "not started"
	case t.Outcome == TurnFailed:
		return "killed by a signal"
	}
	return "killed"
}

// release ends the turn's lease. It reads the lease file only, never the
// item: a turn whose agent damaged the item must still give its lease
// back. A lease that a skill already released, that expired, or that
// another holder took since is not ours to end.
func release(s *store.Store, id, token, actor string) error {
	for try := 1; ; try++ {
		_, err := s.Update(store.TxOptions{Command: "release", Actor: actor, Target: id}, func(tx *store.Tx) error {
			l, err := tx.Lease(id)
			if err != nil || !l.Live(s.Now()) || l.Token != token {
				return err
			}
			at := store.Timestamp(s.Now())
			l.ReleasedAt = &at
			tx.PutLease(l)
			tx.Detail("release", map[string]any{"holder": l.Holder})
			return nil
		})
		if store.CodeOf(err) == store.CodeLockTimeout && try < 3 {
			continue // the store is busy, and a lease left behind blocks the item until it expires
		}
		return err
	}
}

// idle charges a turn that changed nothing to the item's budget.
func (r *runner) idle(id, actor string) error {
	_, err := r.s.Update(store.TxOptions{Command: "run-idle", Actor: actor, Target: id}, func(tx *store.Tx) error {
		d, err := tx.Get(id)
		if err != nil {
			return err
		}
		if err := d.Set("idle_turns", d.Get("idle_turns").Int()+1); err != nil {
			return err
		}
		// An idle turn that spends a level's last round climbs the ladder
		// as a rejection that does.
		_, err = Escalate(tx, d)
		return err
	})
	return err
}

// tailWriter keeps the last few KiB written to it.
type tailWriter struct {
	mu  sync.Mutex
	buf []byte
	cut bool // bytes were dropped from the front
}

const tailBytes = 4096

func (w *tailWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	if over := len(w.buf) - tailBytes; over > 0 {
		w.buf, w.cut = append(w.buf[:0], w.buf[over:]...), true
	}
	return len(p), nil
}

// lines returns the last n non-empty lines, each cut to 200 bytes.
func (w *tailWriter) lines(n int) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	all := strings.Split(string(w.buf), "\n")
	if w.cut && len(all) > 0 {
		all = all[1:] // a partial line
	}
	out := []string{}
	for _, l := range all {
		if l = strings.TrimRight(l, "\r "); l != "" {
			if len(l) > 200 {
				l = l[:200] + "..."
			}
			out = append(out, l)
		}
	}
	return out[max(0, len(out)-n):]
}
