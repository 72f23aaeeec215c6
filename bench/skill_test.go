package bench

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/proofloop/proofloop/bench/storegen"
	"github.com/proofloop/proofloop/bench/table"
)

const (
	claim     = storegen.Claim
	proofText = storegen.ProofText
)

// skillCase is one skill (or decide) run on a fresh reserved item of shape
// fx (see storegen.Shapes); in args, $P and $S stand for the item's problem
// and wrap-up statement.
type skillCase struct {
	name, fx, want string // want: the status in the --json result
	args           []string
}

var skillCases = []skillCase{
	{"prob-wrapup-statement", fxProblem, "pending", []string{"--actor", "solver", "prob-wrapup-statement", "--problem-path", "$P",
		"--claim", claim, "--premises", "n is a positive integer", "--purpose", "This is the objective itself."}},
	{"prob-setup-subgoal", fxProblem, "pending", []string{"--actor", "solver", "prob-setup-subgoal", "--parent-problem-path", "$P",
		"--subproblem-objective", "Show n^2 + 2n + 1 = (n+1)^2.", "--subproblem-hypothesis", "n is an integer", "--rationale", "It is the inductive step."}},
	{"prob-finish-up", fxTrue, "solved", []string{"--actor", "solver", "prob-finish-up", "--problem-path", "$P", "--key-statement-id", "$S",
		"--resolution", "The wrap-up statement is the objective."}},
	{"state-complete-proof", fxPending, "awaiting_verification", []string{"--actor", "prover", "state-complete-proof", "--statement-path", "$S",
		"--strategy", "induction", "--proof-text", proofText}},
	{"state-setup-substatement", fxPending, "awaiting_substatements", []string{"--actor", "prover", "state-setup-substatement",
		"--parent-statement-path", "$S", "--rationale", "Base case and inductive step.",
		"--sub-statements", `[{"claim": "1 = 1^2.", "premises": []}, {"claim": "n^2 + 2n + 1 = (n+1)^2.", "premises": ["n is an integer"]}]`}},
	{"state-mark-false", fxPending, "false", []string{"--actor", "prover", "state-mark-false", "--statement-path", "$S", "--source", "prove",
		"--counterexample", "For n = 0 the sum is empty."}},
	{"state-propose-modification", fxPending, "needs_modification", []string{"--actor", "prover", "state-propose-modification",
		"--statement-path", "$S", "--source", "prove", "--modification-type", "strengthen_premises",
		"--suggested-premises", "n is an integer with n >= 1", "--rationale", "The claim needs n to be an integer."}},
	{"check-confirm-proof", fxAwaiting, "true", []string{"--actor", "checker", "check-confirm-proof", "--statement-path", "$S",
		"--verification-summary", "Checked both steps."}},
	// The transaction of BenchmarkTransaction, StoreSize and Concurrency:
	// on a has_gap statement it records one more issue and leaves it has_gap.
	// Its explanation is not issue 1's (storegen's), which not_a_repeat
	// refuses word for word while that issue is open.
	{"check-reject-proof", fxGap, "has_gap", []string{"--actor", "checker", "check-reject-proof", "--statement-path", "$S",
		"--sentence-number", "2", "--sentence-text", storegen.Quote, "--error-type", "unjustified_leap",
		"--explanation", "Step 2 takes n^2 + 2n + 1 = (n+1)^2 without expanding the square.", "--suggested-fix", "Expand (n+1)^2."}},
	{"fix-patch-proof", fxGap, "awaiting_verification", []string{"--actor", "fixer", "fix-patch-proof", "--statement-path", "$S",
		"--issue-number", "1", "--sentence-range", "2", "--change-description", "Justify the identity.",
		"--replacement-text", "Step 2: If the sum up to 2n-1 is n^2, adding 2n+1 gives n^2 + 2n + 1, which is (n+1)^2 by expanding the square."}},
	{"fix-create-substatement", fxGap, "awaiting_substatements", []string{"--actor", "fixer", "fix-create-substatement", "--statement-path", "$S",
		"--issue-number", "1", "--sub-claim", "For every integer n, n^2 + 2n + 1 = (n+1)^2.", "--gap-location", "2", "--purpose", "Justifies step 2."}},
	{"decide", fxModify, "pending", []string{"--actor", "human", "decide", "$S", "--accept", "--reason", "The integer premise is intended."}},
}

// The reserved shapes the skills act on.
const (
	fxProblem  = "problem"  // a pending problem without statements
	fxPending  = "pending"  // pending
	fxAwaiting = "awaiting" // awaiting_verification, proof by "prover"
	fxGap      = "gap"      // has_gap, issue 1 open at sentence 2
	fxTrue     = "true"     // true, in its problem's progresses
	fxModify   = "modify"   // needs_modification
)

func skillNamed(name string) skillCase {
	i := slices.IndexFunc(skillCases, func(c skillCase) bool { return c.name == name })
	return skillCases[i]
}

// argv is the command line of c on the copy whose problem is p and whose
// wrap-up statement is s, in root, with --json.
func (c skillCase) argv(root, p, s string) []string {
	out := []string{"--root", root, "--json"}
	for _, a := range c.args {
		out = append(out, strings.NewReplacer("$P", p, "$S", s).Replace(a))
	}
	return out
}

// BenchmarkSkill is the latency of each skill and of decide, each on a
// fresh reserved item in a state the skill acts on.
func BenchmarkSkill(b *testing.B) {
	for _, c := range skillCases {
		b.Run(c.name, func(b *testing.B) {
			e := setup(b)
			n := runs()
			root := genStore(b, 0, map[string]int{c.fx: n})
			ds := make([]time.Duration, 0, n)
			for i := 0; b.Loop(); i++ {
				reserved(b, i, n)
				ds = append(ds, e.exec(b, c.want, c.on(root, c.fx, i)...))
			}
			b.ReportMetric(ms(median(ds)), "ms/median")
			table.Record("skill "+c.name, fmt.Sprintf("%.2f ms", ms(median(ds))), "", "")
		})
	}
}

// on is the command line of c on the i-th reserved item of shape in root.
func (c skillCase) on(root, shape string, i int) []string {
	p, s := storegen.Reserved(shape, i)
	return c.argv(root, p, s)
}
