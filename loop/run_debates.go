package loop

import (
	"slices"

	"github.com/proofloop/proofloop/model"
)

// DebateEnd is how a debate that a run took turns on stands when the run
// ends: closed with its outcome, or still open with whose turn it is.
type DebateEnd struct {
	ID       string `json:"id"`
	Protocol string `json:"protocol"`
	Status   string `json:"status"`
	// Outcome is the engine's outcome once closed; Reason says why it
	// holds, or, while the debate is open, whose turn it is.
	Outcome string `json:"outcome,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Turns   int    `json:"turns"` // the run's turns on it (joins included)
}

// countDebate notes a turn of the run on a debate. The caller holds r.mu.
func (r *runner) countDebate(t *turnRecord) {
	if t.Kind != model.KindDebate {
		return
	}
	if r.debateTurns == nil {
		r.debateTurns = map[string]int{}
	}
	r.debateTurns[t.ID]++
}

// debatesEnd fills the summary's debates: each debate the run took turns
// on, by id, as it stands now.
func (r *runner) debatesEnd() {
	r.sum.Debates = []DebateEnd{}
	ids := make([]string, 0, len(r.debateTurns))
	for id := range r.debateTurns {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		e := DebateEnd{ID: id, Turns: r.debateTurns[id]}
		d, _, err := ShowDebate(r.s, id)
		switch {
		case err != nil:
			e.Status, e.Reason = "unknown", err.Error()
		case d.Outcome != nil:
			e.Protocol, e.Status, e.Outcome, e.Reason = d.Protocol, string(d.Status), d.Outcome.Outcome, d.Outcome.Reason
		default:
			e.Protocol, e.Status, e.Reason = d.Protocol, string(d.Status), model.DebateTurnOf(d).Reason
		}
		r.sum.Debates = append(r.sum.Debates, e)
	}
}
