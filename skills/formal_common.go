package skills

import (
	"fmt"
	"slices"
	"strings"

	"github.com/proofloop/proofloop/formal"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// The steps the formal track's skills share.

// formalParams are the parameters a prover and a fixer give alike.
var (
	sourceParam      = enum("source", "which role calls it: prove, or fix answering an open issue", model.Sources, true)
	formalIssueParam = Param{Name: "issue_number", Type: TypeInt, Help: "source fix only: the open issue on the formal track this answers"}
)

// checkerOf is config.json's checker of a system; a system with none is
// refused, naming the ones there are.
func checkerOf(cfg store.Config, system string) (store.Checker, error) {
	c, ok := cfg.Formal.Checkers[system]
	if ok {
		return c, nil
	}
	var names []string
	for n := range cfg.Formal.Checkers {
		names = append(names, n)
	}
	slices.Sort(names)
	return c, store.Errorf(store.CodeInvalidInput, "no checker is configured for the system %q (formal.checkers has %s)", system, strings.Join(names, ", ")).
		WithHint("formalize in a system config.json has a checker for; a person adds one with `proofloop config set formal.checkers.NAME COMMAND`")
}

// refusedText is a formal text refused before it is recorded, quoting the
// line and the words that refuse it.
func refusedText(what string, err error) error {
	return store.Errorf(store.CodeInvalidInput, "the %s is refused: %v", what, err).
		WithHint("correct the " + what + " at the line the message names and call again; nothing was written")
}

// answerFormal records the fixer's answer (a response of type typ) to the
// open issues on the formal track the call names, and returns the status
// the statement leaves: has_gap while another issue is open, else
// awaiting_verification with a written proof, pending without one.
func answerFormal(tx *store.Tx, d *store.Doc, st *model.Statement, f *model.Facts, typ string) (model.Status, int, error) {
	n, err := appendResponse(tx, d, st, typ, f.Named, nil)
	if err != nil {
		return "", 0, err
	}
	for _, o := range st.OpenIssues() {
		if !slices.Contains(f.Named, o) {
			return model.StatementHasGap, n, nil
		}
	}
	return model.StatusWithoutIssues(st), n, nil
}

// formalIssue is an issue on the formal track: a checker's rejection of
// the formalization, or the kernel's refusal of the proof.
type formalIssue struct {
	target      string
	line        int
	text        string // the text the line is of
	explanation string
	errorType   string
	suggested   *string
	actor       *string // the checker, or the kernel
}

// recordFormalIssue appends the issue, opening a round unless the
// statement has a gap already (as check-reject-proof does), and leaves the
// statement has_gap with its formal stage at stage. It returns the issue's
// number and round.
func recordFormalIssue(tx *store.Tx, d *store.Doc, st *model.Statement, is formalIssue, stage model.FormalStage) (int, int, error) {
	n, round := len(st.Validate.Issues)+1, st.Round
	if st.Status != model.StatementHasGap {
		round++
	}
	line, quote := quoteLine(is.text, is.line)
	rec := map[string]any{"issue_number": n, "sentence": line, "sentence_text": quote, "target": is.target,
		"error_type": is.errorType, "explanation": is.explanation, "suggested_fix": is.suggested, "severity": model.SeverityCritical,
		"created_at": tx.Now(), "actor": is.actor, "round": round, "proof_revision": st.ProofRevision}
	if is.actor == nil || !strings.HasPrefix(*is.actor, model.KernelPrefix) {
		labelled(tx, rec)
	}
	err := set(d, "validate.issues.-1", rec, "round", round, "status", model.StatementHasGap, "formal.stage", stage)
	return n, round, err
}

// quoteLine is line n of text (its first non-blank line when n is out of
// range), trimmed, and its number: what a formal issue cites.
func quoteLine(text string, n int) (int, string) {
	lines := strings.Split(text, "\n")
	if n < 1 || n > len(lines) || strings.TrimSpace(lines[n-1]) == "" {
		n = 1
		for i, l := range lines {
			if strings.TrimSpace(l) != "" {
				n = i + 1
				break
			}
		}
	}
	q := strings.TrimSpace(lines[min(n, len(lines))-1])
	if q == "" {
		q = fmt.Sprintf("(line %d)", n)
	}
	return n, formal.Bound(q, 500)
}

// theoremLine is the first line of a formal statement that names its
// theorem: what a rejection of the formalization cites.
func theoremLine(fm *model.Formal) int {
	for i, l := range strings.Split(fm.Statement, "\n") {
		if strings.Contains(l, fm.Theorem) {
			return i + 1
		}
	}
	return 1
}
