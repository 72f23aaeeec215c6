package report

import (
	"encoding/json"
	"fmt"

	"github.com/proofloop/proofloop/eval"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// checkerFigures are the measured checkers of the report's events (the
// records the canary-settle and eval events carry, as status --checkers
// tallies them): per agent and model, what it caught and missed of the
// flawed proofs (or false claims), with the interval, and its false
// rejects. A report limited to one problem has none: no canary or eval
// touches a problem's items.
func checkerFigures(events []store.Event) []Value {
	var recs []model.CheckerRecord
	for _, ev := range events {
		raw, ok := ev.Detail["records"]
		if !ok {
			continue
		}
		b, _ := json.Marshal(raw)
		var rs []model.CheckerRecord
		if json.Unmarshal(b, &rs) == nil {
			recs = append(recs, rs...)
		}
	}
	var out []Value
	for _, r := range eval.Checkers(recs, store.Config{}) {
		catch, what := r.All.Rates.Catch, "flawed proofs caught"
		if r.Role == model.RoleProve {
			catch, what = r.All.Rates.Refuted, "false claims shown false or changed"
		}
		text := fmt.Sprintf("%s %s; %d canaries, %d eval items", eval.RateText(catch), what, r.Canary.Counts.Items, r.Eval.Counts.Items)
		if r.Role == model.RoleCheck {
			text += "; false rejects " + eval.RateText(r.All.Rates.FalseReject)
		}
		name := fmt.Sprintf("%s %s", r.Role, r.Label)
		if r.Model != "" {
			name += " (" + r.Model + ")"
		}
		out = append(out, Value{ID: name, Text: text})
	}
	return out
}
