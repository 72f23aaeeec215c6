package loop

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/tidwall/gjson"

	"github.com/proofloop/proofloop/store"
)

// UsageCommand is the event command of a run turn's usage.
const UsageCommand = "run-usage"

// The most run reads of a turn: the end of its log (its agent's result is
// there), and the file $PROOFLOOP_USAGE names. A bigger usage file is
// refused, not read.
const (
	logTailBytes  = 4 << 20
	usageMaxBytes = 64 << 10
)

// readTail is the last n bytes of the turn's log, read from the file run
// opened (the agent may have replaced the path: a FIFO there would block
// a read by name for ever).
func readTail(f *os.File, n int64) []byte {
	fi, err := f.Stat()
	if err != nil {
		return nil
	}
	off := max(0, fi.Size()-n)
	b := make([]byte, fi.Size()-off)
	k, _ := f.ReadAt(b, off)
	return b[:k]
}

// readUsageFile reads the file an agent wrote to $PROOFLOOP_USAGE, and
// removes it: a regular file of at most usageMaxBytes, opened without
// blocking and inside the root (os.Root follows no link out of it; a link
// inside it is read as its target, and only the link is removed). Anything else
// (a FIFO, which would block run for ever with the item's lease held; a
// device; a directory) is refused. nil, nil when there is none.
func readUsageFile(root *os.Root, name string) ([]byte, error) {
	defer root.Remove(name)
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("$PROOFLOOP_USAGE cannot be opened (%v); the turn's usage is not counted", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil:
		return nil, fmt.Errorf("$PROOFLOOP_USAGE cannot be read (%v); the turn's usage is not counted", err)
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("$PROOFLOOP_USAGE is not a regular file (%s); the turn's usage is not counted", fi.Mode().Type())
	case fi.Size() > usageMaxBytes:
		return nil, fmt.Errorf("$PROOFLOOP_USAGE holds %d bytes, more than %d; the turn's usage is not counted", fi.Size(), usageMaxBytes)
	}
	b, err := io.ReadAll(io.LimitReader(f, usageMaxBytes+1))
	if err != nil || len(b) > usageMaxBytes {
		return nil, fmt.Errorf("$PROOFLOOP_USAGE cannot be read whole (%v); the turn's usage is not counted", err)
	}
	return b, nil
}

// turnUsage reads and records the usage of an ended turn: one run-usage
// event with the turn, its item and root problem, role, actor, agent and
// model, tokens, cost and where the cost comes from. A usage that reports
// no cost is priced from config.json's prices. The run adds the cost to
// its budgets. It also keeps the error the agent's CLI reported.
func (r *runner) turnUsage(t *turnRecord, log *os.File, usageFile string) {
	out := readTail(log, logTailBytes)
	harness, _ := AgentIdentity(t.Agent)
	if t.Outcome != TurnOK {
		t.AgentError = agentError(out, harness)
	}
	file, err := readUsageFile(r.s.Root(), usageFile)
	if err != nil {
		t.UsageWarning = err.Error()
		return
	}
	u, err := parseUsage(out, file, harness)
	if err != nil && u == nil && len(file) == 0 && t.AgentError != "" && KnownCLI(harness) {
		return // the CLI failed, said why, and had no usage to print: no warning on top
	}
	if err != nil {
		t.UsageWarning = err.Error() // said on stderr and in turn_ended, never dropped
		return
	}
	if u == nil {
		return
	}
	u.Model = cmpOr(u.Model, t.Model)
	if cfg, err := r.s.Config(); err == nil {
		t.UsageWarning = u.price(cfg.Prices)
	}
	if err := u.check(); err != nil {
		t.UsageWarning = fmt.Sprintf("the turn's usage priced from config.json's prices is absurd (%v); it is not counted", err)
		return
	}
	t.Usage = u
	root := ""
	if snap, err := Load(r.s); err == nil && snap.Items[t.ID] != nil {
		root = snap.Items[t.ID].Root
	}
	t.Root = root
	_, err = r.s.Update(store.TxOptions{Command: UsageCommand, Actor: t.Actor, Agent: t.AgentName, Model: u.Model}, func(tx *store.Tx) error {
		tx.Record()
		d := map[string]any{"run_id": r.sum.RunID, "turn": t.N, "id": t.ID, "root": root, "role": t.Role,
			"input_tokens": u.InputTokens, "output_tokens": u.OutputTokens, "cost_usd": u.CostUSD, "source": u.Source, "cost_from": u.CostFrom}
		if u.CachedTokens > 0 {
			d["cached_input_tokens"] = u.CachedTokens
		}
		tx.Detail("usage", d)
		return nil
	})
	if err != nil {
		t.ErrText = err.Error()
	}
}

// CostLine is one turn's usage as the event log has it.
type CostLine struct {
	Seq          int     `json:"seq"`
	Root         string  `json:"root"`
	ID           string  `json:"id"`
	Role         string  `json:"role"`
	Agent        string  `json:"agent"`
	Model        string  `json:"model"`
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
}

// Costs reads every run-usage event of the log.
func Costs(ctx context.Context, s *store.Store) ([]CostLine, error) {
	var out []CostLine
	err := Events(ctx, s, 0, false, func(seq int, line []byte) error {
		ev := gjson.ParseBytes(line)
		if ev.Get("command").String() != UsageCommand {
			return nil
		}
		u := ev.Get("detail.usage")
		out = append(out, CostLine{Seq: seq, Root: u.Get("root").String(), ID: u.Get("id").String(), Role: u.Get("role").String(),
			Agent: ev.Get("detail.agent").String(), Model: ev.Get("detail.model").String(),
			InputTokens: u.Get("input_tokens").Int(), OutputTokens: u.Get("output_tokens").Int(), CostUSD: u.Get("cost_usd").Float()})
		return nil
	})
	return out, err
}

// usagePath is the file a turn's agent may write its usage to, relative
// to the root.
func usagePath(r *runner, t *turnRecord) string { return fmt.Sprintf("%s/%04d-usage.json", r.dir, t.N) }

// spend adds an ended turn's cost to the run's and its root problem's,
// and stops the run when its --max-cost-usd is spent (the caller holds
// r.mu). A root problem that reached its max_cost_usd stops alone: its
// items are offered no more (capped), and the other roots go on.
func (r *runner) spend(t *turnRecord) {
	if t.Usage == nil {
		return
	}
	r.sum.CostUSD = AddCost(r.sum.CostUSD, t.Usage.CostUSD)
	r.rootCost[t.Root] = AddCost(r.rootCost[t.Root], t.Usage.CostUSD)
	if r.opts.MaxCostUSD > 0 && r.sum.CostUSD >= r.opts.MaxCostUSD {
		r.costStop = fmt.Sprintf("the run spent $%.4f of its --max-cost-usd $%.4f", r.sum.CostUSD, r.opts.MaxCostUSD)
		r.done = cmpOr(r.done, string(CodeBudgetSpent))
		r.changed.Broadcast()
	}
}

// capped says why the items of root problem root are offered no more: it
// has cost its max_cost_usd, over all runs; "" while it may go on. The
// caller holds r.mu, or the workers are done.
func (r *runner) capped(root string) string {
	if r.maxCost <= 0 || root == "" || r.rootCost[root] < r.maxCost {
		return ""
	}
	return fmt.Sprintf("%s has cost $%.4f of its max_cost_usd $%.4f", root, r.rootCost[root], r.maxCost)
}
