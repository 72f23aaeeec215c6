package loop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/tidwall/gjson"

	"github.com/proofloop/proofloop/store"
)

// UsageCommand is the event command of a run turn's usage.
const UsageCommand = "run-usage"

// Usage is what one turn of an agent cost, as the agent reported it:
// Claude Code's `--output-format json` result on its stdout (usage,
// total_cost_usd), or one JSON object written to $PROOFLOOP_USAGE
// ({"input_tokens", "output_tokens", "cost_usd"}), which wins when both
// are there.
type Usage struct {
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
	Source       string  `json:"source"` // "claude-json" or "PROOFLOOP_USAGE"
}

// parseUsage reads a turn's usage from the file the agent wrote to
// $PROOFLOOP_USAGE, else from the last JSON line of its output that
// carries Claude Code's usage or total_cost_usd: the one object of
// `--output-format json`, the result line of `stream-json`, or the result
// element of the one array that `--output-format json --verbose` prints.
// nil when neither says; an error when the file is not that object.
func parseUsage(output, file []byte) (*Usage, error) {
	if t := bytes.TrimSpace(file); len(t) > 0 {
		var u Usage
		dec := json.NewDecoder(bytes.NewReader(t))
		dec.DisallowUnknownFields()
		err := dec.Decode(&u)
		if err == nil && dec.More() {
			err = errors.New("more than one value")
		}
		if err != nil || u.InputTokens < 0 || u.OutputTokens < 0 || u.CostUSD < 0 || math.IsNaN(u.CostUSD) {
			if err == nil {
				err = errors.New("a negative value")
			}
			return nil, fmt.Errorf("$PROOFLOOP_USAGE must hold one object {\"input_tokens\": N, \"output_tokens\": N, \"cost_usd\": X} with no negative value (%v); the turn's usage is not counted", err)
		}
		u.Source = "PROOFLOOP_USAGE"
		return &u, nil
	}
	lines := bytes.Split(output, []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		l := bytes.TrimSpace(lines[i])
		if len(l) == 0 || (l[0] != '{' && l[0] != '[') || !gjson.ValidBytes(l) {
			continue
		}
		if r, ok := claudeResult(gjson.ParseBytes(l)); ok {
			u := r.Get("usage")
			return &Usage{
				InputTokens:  u.Get("input_tokens").Int() + u.Get("cache_creation_input_tokens").Int() + u.Get("cache_read_input_tokens").Int(),
				OutputTokens: u.Get("output_tokens").Int(),
				CostUSD:      r.Get("total_cost_usd").Float(),
				Source:       "claude-json",
			}, nil
		}
	}
	return nil, nil
}

// claudeResult finds Claude Code's result in one JSON value: the object
// itself, or an array's last element, when it has usage or total_cost_usd
// at its top (a stream's assistant messages have theirs under message).
func claudeResult(v gjson.Result) (gjson.Result, bool) {
	has := func(r gjson.Result) bool {
		return r.IsObject() && (r.Get("usage").Exists() || r.Get("total_cost_usd").Exists())
	}
	if !v.IsArray() {
		return v, has(v)
	}
	arr := v.Array()
	for j := len(arr) - 1; j >= 0; j-- {
		if has(arr[j]) {
			return arr[j], true
		}
	}
	return gjson.Result{}, false
}

// turnUsage reads and records the usage of an ended turn: one run-usage
// event with the turn, its item and root problem, role, actor, agent and
// model, tokens and cost. The run adds the cost to its budgets.
func (r *runner) turnUsage(t *turnRecord, usageFile string) {
	out, _ := r.s.Root().ReadFile(t.Log)
	file, _ := r.s.Root().ReadFile(usageFile)
	r.s.Root().Remove(usageFile)
	u, err := parseUsage(out, file)
	if err != nil {
		t.UsageWarning = err.Error() // said on stderr and in turn_ended, never dropped
		return
	}
	if u == nil {
		return
	}
	t.Usage = u
	root := ""
	if snap, err := Load(r.s); err == nil && snap.Items[t.ID] != nil {
		root = snap.Items[t.ID].Root
	}
	t.Root = root
	_, err = r.s.Update(store.TxOptions{Command: UsageCommand, Actor: t.Actor, Agent: t.AgentName, Model: t.Model}, func(tx *store.Tx) error {
		tx.Record()
		tx.Detail("usage", map[string]any{"run_id": r.sum.RunID, "turn": t.N, "id": t.ID, "root": root, "role": t.Role,
			"input_tokens": u.InputTokens, "output_tokens": u.OutputTokens, "cost_usd": u.CostUSD, "source": u.Source})
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
	r.sum.CostUSD += t.Usage.CostUSD
	r.rootCost[t.Root] += t.Usage.CostUSD
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
