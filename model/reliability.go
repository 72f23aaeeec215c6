package model

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// What an agent did with one labelled item (an eval item in a scratch
// store, or a canary in a live run), read from the statement after its
// turn (ItemVerdict).
const (
	VerdictAccepted       = "accepted"        // a checker confirmed the proof
	VerdictRejected       = "rejected"        // a checker recorded an issue on it
	VerdictProved         = "proved"          // a prover submitted a proof of the claim
	VerdictShownFalse     = "shown_false"     // a prover marked the claim false
	VerdictProposedChange = "proposed_change" // a prover proposed a changed claim
	VerdictNone           = "none"            // nothing the item measures (no act, a failure, a decomposition)
)

// ItemVerdicts lists the verdicts (the schema's enum).
var ItemVerdicts = []string{VerdictAccepted, VerdictRejected, VerdictProved, VerdictShownFalse, VerdictProposedChange, VerdictNone}

// Judged is one party's act on a labelled item.
type Judged struct {
	Verdict string
	// Located: a rejection cites one of the item's flawed sentences.
	Located bool
	// Actor, AgentLabel: who acted, as the statement records it.
	Actor string
	AgentLabel
}

// ItemVerdict reads what was done to an item put up as statement st with
// its proof at proof revision rev (0 for a false claim put up without a
// proof): for a proof, the first confirmation or issue on that revision;
// for a false claim, whether it now has a proof, is false or waits on a
// proposed change.
func ItemVerdict(it *EvalItem, st *Statement, rev int) Judged {
	if it.Label == LabelFalse {
		return proverVerdict(st)
	}
	var j Judged
	for _, is := range st.Validate.Issues {
		if is.ProofRevision != rev {
			continue
		}
		if j.Verdict == "" {
			j = Judged{Verdict: VerdictRejected, Actor: deref(is.Actor), AgentLabel: is.AgentLabel}
		}
		if slices.Contains(it.FlawedSentences, is.Sentence) {
			j.Located = true
		}
	}
	if j.Verdict != "" {
		return j
	}
	for _, c := range st.Validate.Confirmations {
		if c.ProofRevision == rev {
			return Judged{Verdict: VerdictAccepted, Actor: deref(c.Actor), AgentLabel: c.AgentLabel}
		}
	}
	return Judged{Verdict: VerdictNone}
}

func proverVerdict(st *Statement) Judged {
	switch {
	case st.Status == StatementFalse && st.Refutation != nil:
		return Judged{Verdict: VerdictShownFalse, Actor: deref(st.Refutation.Actor)}
	case st.Status == StatementNeedsModification && st.ProposedModification != nil:
		return Judged{Verdict: VerdictProposedChange, Actor: deref(st.ProposedModification.Actor)}
	case st.Proof != nil && st.ProofRevision > 0:
		return Judged{Verdict: VerdictProved, Actor: deref(st.ProofAuthor),
			AgentLabel: AgentLabel{Agent: st.ProofAuthorAgent, Model: st.ProofAuthorModel}}
	}
	return Judged{Verdict: VerdictNone}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Counts are one party's figures on labelled items.
type Counts struct {
	Items           int `json:"items"`
	AcceptedCorrect int `json:"accepted_correct"`
	RejectedCorrect int `json:"rejected_correct"` // false rejects
	CaughtFlawed    int `json:"caught_flawed"`
	MissedFlawed    int `json:"missed_flawed"` // false accepts
	Located         int `json:"located"`       // rejections of a flawed proof that cite a flawed sentence
	ProvedFalse     int `json:"proved_false"`  // proofs submitted of a false claim
	ShownFalse      int `json:"shown_false"`
	ProposedChange  int `json:"proposed_change"`
	NoVerdict       int `json:"no_verdict"`
}

// Add counts one item of label judged j.
func (c *Counts) Add(label string, j Judged) {
	c.Items++
	switch {
	case j.Verdict == VerdictAccepted && label == LabelCorrect:
		c.AcceptedCorrect++
	case j.Verdict == VerdictRejected && label == LabelCorrect:
		c.RejectedCorrect++
	case j.Verdict == VerdictAccepted && label == LabelFlawed:
		c.MissedFlawed++
	case j.Verdict == VerdictRejected && label == LabelFlawed:
		c.CaughtFlawed++
		if j.Located {
			c.Located++
		}
	case j.Verdict == VerdictProved && label == LabelFalse:
		c.ProvedFalse++
	case j.Verdict == VerdictShownFalse && label == LabelFalse:
		c.ShownFalse++
	case j.Verdict == VerdictProposedChange && label == LabelFalse:
		c.ProposedChange++
	default:
		c.NoVerdict++
	}
}

// Plus is the sum of two parties' counts, or of two records of one.
func (c Counts) Plus(o Counts) Counts {
	return Counts{Items: c.Items + o.Items, AcceptedCorrect: c.AcceptedCorrect + o.AcceptedCorrect,
		RejectedCorrect: c.RejectedCorrect + o.RejectedCorrect, CaughtFlawed: c.CaughtFlawed + o.CaughtFlawed,
		MissedFlawed: c.MissedFlawed + o.MissedFlawed, Located: c.Located + o.Located, ProvedFalse: c.ProvedFalse + o.ProvedFalse,
		ShownFalse: c.ShownFalse + o.ShownFalse, ProposedChange: c.ProposedChange + o.ProposedChange, NoVerdict: c.NoVerdict + o.NoVerdict}
}

// Rate is k of n with its 95% Wilson score interval; Rate, Low and High
// are nil when n is 0 (nothing measured).
type Rate struct {
	K    int      `json:"k"`
	N    int      `json:"n"`
	Rate *float64 `json:"rate"`
	Low  *float64 `json:"low"`
	High *float64 `json:"high"`
}

// z95 is the standard normal quantile at 0.975: a 95% two-sided interval.
// TestZ95 compares it with gonum's quantile function.
const z95 = 1.959963984540054

// NewRate is k of n with its interval.
func NewRate(k, n int) Rate {
	r := Rate{K: k, N: n}
	if n > 0 {
		p := float64(k) / float64(n)
		lo, hi := Wilson(k, n)
		r.Rate, r.Low, r.High = &p, &lo, &hi
	}
	return r
}

// Wilson is the 95% Wilson score interval of a proportion of k successes
// in n trials (Wilson 1927; Agresti and Coull 1998 recommend it over the
// normal approximation for small n and for k near 0 or n, where that one
// leaves [0, 1] or shrinks to a point). n must be positive.
func Wilson(k, n int) (low, high float64) {
	p, nn, z2 := float64(k)/float64(n), float64(n), z95*z95
	centre := (p + z2/(2*nn)) / (1 + z2/nn)
	half := z95 / (1 + z2/nn) * math.Sqrt(p*(1-p)/nn+z2/(4*nn*nn))
	return math.Max(0, centre-half), math.Min(1, centre+half)
}

// Rates are the figures of Counts that a rate says something of.
type Rates struct {
	Catch       Rate `json:"catch"`        // caught of the flawed proofs judged
	FalseReject Rate `json:"false_reject"` // rejected of the correct proofs judged
	Located     Rate `json:"located"`      // located of the flawed proofs judged
	ProvedFalse Rate `json:"proved_false"` // proofs submitted of the false claims judged
	Refuted     Rate `json:"refuted"`      // shown false or changed, of the false claims judged
}

// Rates computes the rates of c.
func (c Counts) Rates() Rates {
	flawed, correct, falseN := c.CaughtFlawed+c.MissedFlawed, c.AcceptedCorrect+c.RejectedCorrect, c.ProvedFalse+c.ShownFalse+c.ProposedChange
	return Rates{Catch: NewRate(c.CaughtFlawed, flawed), FalseReject: NewRate(c.RejectedCorrect, correct),
		Located: NewRate(c.Located, flawed), ProvedFalse: NewRate(c.ProvedFalse, falseN), Refuted: NewRate(c.ShownFalse+c.ProposedChange, falseN)}
}

// MinReliability is config.json's verify_min_reliability: a checker whose
// catch rate on flawed proofs is measured on at least MinSample of them
// counts toward verify_quorum only while the lower end of its 95% interval
// is at least CatchRate.
type MinReliability struct {
	CatchRate float64 `json:"catch_rate"`
	MinSample int     `json:"min_sample"`
}

// Below says why a checker with counts c falls short of m, "" when it does
// not: it is unmeasured (fewer than MinSample flawed proofs judged) or its
// interval's lower end reaches the floor.
func (m *MinReliability) Below(c Counts) string {
	r := c.Rates().Catch
	if m == nil || r.N < m.MinSample || *r.Low >= m.CatchRate {
		return ""
	}
	return fmt.Sprintf("caught %d of %d flawed proofs (95%% interval %.2f-%.2f), below verify_min_reliability %.2f",
		r.K, r.N, *r.Low, *r.High, m.CatchRate)
}

// Measured tallies records of a role by the party they measure (agent and
// model label, as a run's lease records them). Records that name neither
// measure nobody the quorum rule can name, and are left out.
func Measured(recs []CheckerRecord, role Role) map[AgentLabel]Counts {
	out := map[AgentLabel]Counts{}
	for _, r := range recs {
		if r.Role == role && (r.Agent != "" || r.Model != "") {
			out[r.AgentLabel] = out[r.AgentLabel].Plus(r.Counts)
		}
	}
	return out
}

// Uncounted says why a confirmation by the checker l does not count toward
// verify_quorum, given the measured figures: l names an agent or a model
// and is Below the floor; "" when it counts (no floor, a checker named
// neither way, or one not below).
func (m *MinReliability) Uncounted(measured map[AgentLabel]Counts, l AgentLabel) string {
	if m == nil || l.Agent == "" && l.Model == "" {
		return ""
	}
	if why := m.Below(measured[l]); why != "" {
		return PartyName(l) + " " + why
	}
	return ""
}

// PartyName names an agent and model for a person: "agent yes (model m)".
func PartyName(l AgentLabel) string {
	switch {
	case l.Agent != "" && l.Model != "":
		return fmt.Sprintf("agent %s (model %s)", l.Agent, l.Model)
	case l.Agent != "":
		return "agent " + l.Agent
	}
	return "model " + l.Model
}

// uncountedNote says, in a check turn's reason, which confirmations of the
// current proof revision do not count toward the quorum, and why.
func uncountedNote(st *Statement) string {
	if st == nil {
		return ""
	}
	var why []string
	for _, c := range st.Validate.Confirmations {
		if c.ProofRevision == st.ProofRevision && c.Uncounted != "" {
			why = append(why, c.Uncounted)
		}
	}
	if len(why) == 0 {
		return ""
	}
	return fmt.Sprintf("; %s not counted: %s", Count(len(why), "confirmation"), strings.Join(why, "; "))
}

// MeasuredTrue says whether a statement's acceptance rests on measured
// checkers: it is true and every confirmation that counted toward its
// quorum, on the proof revision it was confirmed at, is by a checker named
// in config.json (agent or model) whose catch rate is measured on at least
// MinSample flawed proofs with its 95% interval's lower end at CatchRate
// or above. It is the "measured checkers" level of a statement's grade
// (DESIGN.md, Evidence): one input of the grade that is derived over the
// graph, where a statement is no better than its weakest premise. With no
// floor (m nil) nothing is measured.
func (m *MinReliability) MeasuredTrue(st *Statement, measured map[AgentLabel]Counts) bool {
	if m == nil || st.Status != StatementTrue {
		return false
	}
	n := 0
	for _, c := range st.Validate.Confirmations {
		if c.ProofRevision != st.ProofRevision || c.Uncounted != "" {
			continue
		}
		r := measured[c.AgentLabel].Rates().Catch
		if c.Agent == "" && c.Model == "" || r.N < m.MinSample || *r.Low < m.CatchRate {
			return false
		}
		n++
	}
	return n > 0
}
