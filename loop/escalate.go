package loop

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/tidwall/sjson"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// Escalate is the step of the ladder every call that spends a statement's
// round budget takes last, in its own transaction: a rejection and a
// reopen (skills) and run's charge of an idle turn. When the call spent the
// last round of the statement's level and the table's escalate rule of the
// next level allows it (model.Climb), the statement climbs: the approach
// of its level becomes a dead end, its open issues are superseded, and it
// enters the new level's status (pending: the prover's turn). It returns
// the level climbed to, or nil when the statement stays where it is (budget
// left, or the last level: decide's turn, exhausted).
func Escalate(tx *store.Tx, d *store.Doc) (*model.Level, error) {
	if d.Kind != model.KindStatement {
		return nil, nil
	}
	cfg, err := tx.Config()
	if err != nil {
		return nil, err
	}
	st, err := d.Statement()
	if err != nil {
		return nil, err
	}
	f := model.StatementFacts(st, nil)
	f.SetPolicy(cfg.Policy())
	lv, ok := model.Climb(f)
	if !ok {
		return nil, nil
	}
	step := cfg.Policy().StepOf(st)
	var n int
	if lv.Abandons {
		de, err := levelDeadEnd(tx, st, step)
		if err != nil {
			return nil, err
		}
		if len(de.ProofRevisions) > 0 {
			n = de.Number
			if err := d.Set("dead_ends.-1", de); err != nil {
				return nil, err
			}
		}
		if err := Supersede(tx, d, st); err != nil {
			return nil, err
		}
	}
	if err := d.Delete("extra_rounds"); err != nil {
		return nil, err
	}
	if err := setAll(d, "level", lv.Name, "level_from", model.Spent(st), "status", lv.Enters); err != nil {
		return nil, err
	}
	detail := map[string]any{"rule": model.EscalateSkill(lv.Name), "from": step.Level, "to": lv.Name, "spent": step.Spent}
	if n > 0 {
		detail["dead_end"] = n
	}
	tx.Detail("escalated", detail)
	return &lv, nil
}

// levelDeadEnd is the dead end of the level a statement leaves: every
// proof revision written since its last dead end, with the SHA-256 of each
// one's normal text (from the kept revisions; the current text alone when
// the store kept none), and the issues recorded against them that were not
// withdrawn. It has no proof revision when the level wrote none (its rounds
// went in idle turns): nothing was tried, and Escalate records nothing.
func levelDeadEnd(tx *store.Tx, st *model.Statement, step model.Step) (model.DeadEnd, error) {
	de := model.DeadEnd{Number: len(st.DeadEnds) + 1, Level: step.Level, Cause: model.DeadEndLevelSpent,
		Strategy: st.ProofStrategy, Rounds: step.Spent, At: tx.Now()}
	after := 0 // the last proof revision an earlier dead end holds
	for _, o := range st.DeadEnds {
		if k := len(o.ProofRevisions); k > 0 {
			after = max(after, o.ProofRevisions[k-1])
		}
	}
	if st.Proof == nil || st.ProofRevision <= after {
		return de, nil
	}
	kept, err := tx.ProofRevisions(st.ID)
	if err != nil {
		return de, err
	}
	for rev := after + 1; rev <= st.ProofRevision; rev++ {
		text := ""
		if k := model.KeptRevision(kept, rev); k != nil {
			text = k.Text
		} else if rev == st.ProofRevision {
			text = *st.Proof
		} else {
			continue // not kept: a store from before revisions were kept
		}
		de.ProofRevisions = append(de.ProofRevisions, rev)
		if sum := model.TextSum(text); !slices.Contains(de.ProofSHA256, sum) {
			de.ProofSHA256 = append(de.ProofSHA256, sum)
		}
	}
	for _, is := range st.Validate.Issues {
		if is.ProofRevision > after && is.WithdrawnAt == nil {
			de.Issues = append(de.Issues, is.IssueNumber)
		}
	}
	return de, nil
}

// Supersede marks every open issue of st superseded: the text it was about
// is gone (a new proof, an accepted modification, a climb that made the
// proof a dead end).
func Supersede(tx *store.Tx, d *store.Doc, st *model.Statement) error {
	open := st.OpenIssues()
	if len(open) == 0 {
		return nil
	}
	// One rewrite of the list, not one Set per issue: each Set copies the
	// whole document, and a proof with 300 open issues made that 300
	// copies of 230 KB. The store re-indents what it writes, so the list
	// is written compact here.
	at, err := store.Marshal(tx.Now())
	if err != nil {
		return err
	}
	issues := d.Get("validate.issues").Array()
	var b bytes.Buffer
	b.WriteByte('[')
	for i, is := range issues {
		if i > 0 {
			b.WriteByte(',')
		}
		raw := is.Raw
		if i < len(st.Validate.Issues) && slices.Contains(open, st.Validate.Issues[i].IssueNumber) {
			if raw, err = sjson.SetRaw(raw, "superseded_at", string(at)); err != nil {
				return fmt.Errorf("supersede issue %d of %s: %w", st.Validate.Issues[i].IssueNumber, d.ID, err)
			}
		}
		b.WriteString(raw)
	}
	b.WriteByte(']')
	return d.SetRaw("validate.issues", b.Bytes())
}

// setAll applies field changes in order, stopping at the first error.
func setAll(d *store.Doc, kv ...any) error {
	for i := 0; i+1 < len(kv); i += 2 {
		if err := d.Set(kv[i].(string), kv[i+1]); err != nil {
			return err
		}
	}
	return nil
}
