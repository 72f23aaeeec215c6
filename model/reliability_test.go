package model

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// TestZ95: the constant is the normal quantile a 95% two-sided interval
// takes.
func TestZ95(t *testing.T) {
	if got := distuv.UnitNormal.Quantile(0.975); math.Abs(got-z95) > 1e-12 {
		t.Errorf("z95 = %v; the quantile at 0.975 is %v", z95, got)
	}
}

// TestWilson holds the interval against values computed apart (Python,
// from the formula), at the edges where the normal approximation fails.
func TestWilson(t *testing.T) {
	for _, c := range []struct {
		k, n      int
		low, high float64
	}{
		{0, 16, 0, 0.19361},
		{16, 16, 0.80639, 1},
		{6, 16, 0.18481, 0.61359},
		{1, 16, 0.01112, 0.28329},
		{5, 10, 0.23659, 0.76341},
		{1, 1, 0.20655, 1},
	} {
		lo, hi := Wilson(c.k, c.n)
		if math.Abs(lo-c.low) > 5e-5 || math.Abs(hi-c.high) > 5e-5 {
			t.Errorf("Wilson(%d, %d) = [%.5f, %.5f]; want [%.5f, %.5f]", c.k, c.n, lo, hi, c.low, c.high)
		}
	}
	if r := NewRate(0, 0); r.Rate != nil || r.Low != nil || r.High != nil {
		t.Errorf("NewRate(0, 0) = %+v; want no rate and no interval", r)
	}
}

func TestCountsAdd(t *testing.T) {
	var c Counts
	for _, x := range []struct {
		label string
		j     Judged
	}{
		{LabelCorrect, Judged{Verdict: VerdictAccepted}},
		{LabelCorrect, Judged{Verdict: VerdictRejected}},
		{LabelFlawed, Judged{Verdict: VerdictRejected, Located: true}},
		{LabelFlawed, Judged{Verdict: VerdictRejected}},
		{LabelFlawed, Judged{Verdict: VerdictAccepted}},
		{LabelFlawed, Judged{Verdict: VerdictNone}},
		{LabelFalse, Judged{Verdict: VerdictProved}},
		{LabelFalse, Judged{Verdict: VerdictShownFalse}},
		{LabelFalse, Judged{Verdict: VerdictProposedChange}},
		{LabelFalse, Judged{Verdict: VerdictAccepted}}, // nothing a false claim measures
	} {
		c.Add(x.label, x.j)
	}
	want := Counts{Items: 10, AcceptedCorrect: 1, RejectedCorrect: 1, CaughtFlawed: 2, MissedFlawed: 1, Located: 1,
		ProvedFalse: 1, ShownFalse: 1, ProposedChange: 1, NoVerdict: 2}
	if c != want {
		t.Errorf("counts = %+v; want %+v", c, want)
	}
	if got := c.Plus(c); got.Items != 20 || got.Located != 2 || got.NoVerdict != 4 {
		t.Errorf("Plus doubled = %+v", got)
	}
	r := c.Rates()
	if r.Catch.K != 2 || r.Catch.N != 3 || r.FalseReject.K != 1 || r.FalseReject.N != 2 || r.Located.K != 1 || r.ProvedFalse.N != 3 || r.Refuted.K != 2 {
		t.Errorf("rates = %+v", r)
	}
}

// TestBelow: a checker is below the floor only once measured on
// min_sample flawed proofs, by its interval's lower end, not its rate.
func TestBelow(t *testing.T) {
	m := &MinReliability{CatchRate: 0.5, MinSample: 3}
	for _, c := range []struct {
		caught, missed int
		below          bool
	}{
		{0, 2, false}, // unmeasured
		{0, 3, true},
		{3, 0, true}, // 3/3, but the lower end is 0.44
		{10, 0, false},
		{7, 3, true}, // 0.70, but the lower end is 0.40
	} {
		if got := m.Below(Counts{CaughtFlawed: c.caught, MissedFlawed: c.missed}) != ""; got != c.below {
			t.Errorf("Below(%d caught, %d missed) = %v; want %v", c.caught, c.missed, got, c.below)
		}
	}
	var none *MinReliability
	if none.Below(Counts{MissedFlawed: 100}) != "" {
		t.Error("no verify_min_reliability judges nobody")
	}
}

// TestMeasuredTrue: a true statement is measured when every counted
// confirmation of its proof revision is by a checker measured at the floor
// or above; an unnamed checker, an unmeasured one, one below, or no floor
// at all leaves it at the agents' word.
func TestMeasuredTrue(t *testing.T) {
	good, bad, few := AgentLabel{Agent: "good", Model: "m1"}, AgentLabel{Agent: "bad", Model: "m2"}, AgentLabel{Agent: "few"}
	measured := map[AgentLabel]Counts{good: {CaughtFlawed: 20}, bad: {CaughtFlawed: 5, MissedFlawed: 15}, few: {CaughtFlawed: 2}}
	m := &MinReliability{CatchRate: 0.7, MinSample: 10}
	conf := func(l AgentLabel, rev int, uncounted string) Confirmation {
		return Confirmation{AgentLabel: l, ProofRevision: rev, Uncounted: uncounted}
	}
	for _, c := range []struct {
		name  string
		m     *MinReliability
		st    Statement
		wants bool
	}{
		{"measured", m, Statement{Status: StatementTrue, ProofRevision: 2, Validate: Validate{Confirmations: []Confirmation{conf(good, 2, "")}}}, true},
		{"an old revision's confirmation does not matter", m, Statement{Status: StatementTrue, ProofRevision: 2,
			Validate: Validate{Confirmations: []Confirmation{conf(bad, 1, ""), conf(good, 2, "")}}}, true},
		{"an uncounted one does not matter", m, Statement{Status: StatementTrue, ProofRevision: 2,
			Validate: Validate{Confirmations: []Confirmation{conf(bad, 2, "below"), conf(good, 2, "")}}}, true},
		{"one below", m, Statement{Status: StatementTrue, ProofRevision: 2, Validate: Validate{Confirmations: []Confirmation{conf(good, 2, ""), conf(bad, 2, "")}}}, false},
		{"one unmeasured", m, Statement{Status: StatementTrue, ProofRevision: 2, Validate: Validate{Confirmations: []Confirmation{conf(few, 2, "")}}}, false},
		{"a person", m, Statement{Status: StatementTrue, ProofRevision: 2, Validate: Validate{Confirmations: []Confirmation{conf(AgentLabel{}, 2, "")}}}, false},
		{"not true", m, Statement{Status: StatementAwaitingVerification, ProofRevision: 2, Validate: Validate{Confirmations: []Confirmation{conf(good, 2, "")}}}, false},
		{"no floor", nil, Statement{Status: StatementTrue, ProofRevision: 2, Validate: Validate{Confirmations: []Confirmation{conf(good, 2, "")}}}, false},
	} {
		if got := c.m.MeasuredTrue(&c.st, measured); got != c.wants {
			t.Errorf("%s: MeasuredTrue = %v; want %v", c.name, got, c.wants)
		}
	}
}
