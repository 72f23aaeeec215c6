package model

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// The formal track of a statement: a formal statement in a proof
// assistant's language (Coq is the reference), a check by a checker who did
// not write it that it says what the claim says, a formal proof, and the
// verdict of the proof assistant's kernel, which the engine itself runs.
// It is a sub-state of the statement (Formal.Stage) beside its status.

// FormalStage is where a statement's formal track stands.
type FormalStage string

// The stages of the formal track, in the order they are reached.
const (
	// StageFormalized: a formal statement is attached and waits for a
	// checker to confirm that it says what the claim says.
	StageFormalized FormalStage = "formalized"
	// StageConfirmed: a checker confirmed it; a formal proof is awaited.
	StageConfirmed FormalStage = "confirmed"
	// StageRejected: a checker rejected it (an open issue on the formal
	// statement); the fixer formalizes again.
	StageRejected FormalStage = "rejected"
	// StageProofSubmitted: a formal proof waits for the kernel.
	StageProofSubmitted FormalStage = "proof_submitted"
	// StageChecked: the kernel accepted the formal proof.
	StageChecked FormalStage = "checked"
	// StageFailed: the kernel refused it (an open issue on the formal
	// proof, quoting the checker); the fixer submits another.
	StageFailed FormalStage = "failed"
)

// FormalStages lists the stages, in order.
var FormalStages = []FormalStage{StageFormalized, StageConfirmed, StageRejected, StageProofSubmitted, StageChecked, StageFailed}

// FormalPolicy is config.json's formal.policy: what a kernel pass does for
// a statement's truth.
type FormalPolicy string

// The policies.
const (
	// PolicyOff: the verdict is recorded and shown, and truth is the
	// checkers' quorum alone.
	PolicyOff FormalPolicy = "off"
	// PolicyCounts: a kernel pass with a confirmed formalization counts as
	// one confirmation toward verify_quorum of the written proof.
	PolicyCounts FormalPolicy = "counts"
	// PolicyRequired: a statement with a formal statement becomes true only
	// with a kernel pass and a confirmed formalization, besides the quorum.
	PolicyRequired FormalPolicy = "required"
	// PolicySuffices: a kernel pass with a confirmed formalization makes a
	// statement true on its own, a written proof or not.
	PolicySuffices FormalPolicy = "suffices"
)

// FormalPolicies lists the accepted values of formal.policy.
var FormalPolicies = []FormalPolicy{PolicyOff, PolicyCounts, PolicyRequired, PolicySuffices}

// The targets of an issue: the written proof (the default, when absent),
// the formal statement (a checker rejected the formalization) or the formal
// proof (the kernel refused it).
const (
	TargetProof           = "proof"
	TargetFormalStatement = "formal_statement"
	TargetFormalProof     = "formal_proof"
)

// IssueTargets lists the targets an issue may name.
var IssueTargets = []string{TargetProof, TargetFormalStatement, TargetFormalProof}

// The response types that answer the formal track's issues.
const (
	ResponseFormalization = "formalization" // a new formal statement (state-formalize --source fix)
	ResponseFormalProof   = "formal_proof"  // a new formal proof (state-complete-formal-proof --source fix)
)

// KernelPrefix starts the actor of every kernel verdict (kernel:coq-8.16.1):
// the engine's own proof checker. No person or agent may declare it.
const KernelPrefix = "kernel:"

// Formal is a statement's formal track.
type Formal struct {
	// System names the proof assistant (coq); config.json's
	// formal.checkers names the command that checks it.
	System string `json:"system"`
	// Theorem is the name of the theorem the formal statement declares,
	// the one a formal proof must prove.
	Theorem string `json:"theorem"`
	// Statement is the formal statement: definitions and one theorem
	// ended by Admitted.
	Statement    string  `json:"statement"`
	FormalizedBy *string `json:"formalized_by,omitempty"`
	FormalizedAt string  `json:"formalized_at"`
	ConfirmedBy  *string `json:"confirmed_by,omitempty"`
	ConfirmedAt  *string `json:"confirmed_at,omitempty"`
	// Proof is the formal proof, a whole file that proves Theorem.
	Proof   *string     `json:"proof,omitempty"`
	ProofBy *string     `json:"proof_by,omitempty"`
	ProofAt *string     `json:"proof_at,omitempty"`
	Stage   FormalStage `json:"stage"`
	// Verdict is the kernel's latest verdict on Statement and Proof; it
	// is removed when either text changes.
	Verdict *Verdict `json:"verdict,omitempty"`
}

// Verdict is what the engine's run of a proof checker found.
type Verdict struct {
	OK bool `json:"ok"`
	// Actor is the checker as an actor: kernel:SYSTEM-VERSION.
	Actor   string `json:"actor"`
	Checker string `json:"checker"`
	Version string `json:"version"`
	// Command is the configured command that ran (formal.checkers).
	Command         string   `json:"command"`
	StatementSHA256 string   `json:"statement_sha256"`
	ProofSHA256     string   `json:"proof_sha256"`
	Axioms          []string `json:"axioms"`
	PermittedAxioms []string `json:"permitted_axioms"`
	DurationMS      int64    `json:"duration_ms"`
	// Reason says in one line why the proof was refused ("" when OK).
	Reason string `json:"reason,omitempty"`
	// Output is the checker's output, cut to MaxVerdictOutput bytes.
	Output string `json:"output"`
	// Sandbox says what confined the run.
	Sandbox     string  `json:"sandbox"`
	RequestedBy *string `json:"requested_by,omitempty"`
	At          string  `json:"at"`
}

// MaxVerdictOutput is the most bytes of a checker's output a verdict keeps.
const MaxVerdictOutput = 4000

// SHA256Hex is the hex SHA-256 of s, as a verdict records its texts.
func SHA256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// VerdictCurrent reports whether a verdict was given on the formal texts
// as they stand: its hashes are theirs.
func (f *Formal) VerdictCurrent() bool {
	return f != nil && f.Verdict != nil && f.Proof != nil &&
		f.Verdict.StatementSHA256 == SHA256Hex(f.Statement) && f.Verdict.ProofSHA256 == SHA256Hex(*f.Proof)
}

// KernelChecked reports whether the statement's formal track is complete:
// a formal statement confirmed by a checker, and a formal proof the kernel
// accepted, with a verdict on the texts as they stand.
func (st *Statement) KernelChecked() bool {
	f := st.Formal
	return f != nil && f.Stage == StageChecked && f.ConfirmedBy != nil && f.VerdictCurrent() && f.Verdict.OK && f.VerdictProblem() == ""
}

// VerdictProblem says what is wrong with a recorded verdict, for doctor: a
// verdict whose hashes are not those of the texts, or whose outcome the
// stage contradicts, was edited by hand ("" when it is consistent).
func (f *Formal) VerdictProblem() string {
	if f == nil || f.Verdict == nil {
		if f != nil && (f.Stage == StageChecked || f.Stage == StageFailed) {
			return fmt.Sprintf("formal.stage is %s but no verdict is recorded", f.Stage)
		}
		return ""
	}
	v := f.Verdict
	switch {
	case v.StatementSHA256 != SHA256Hex(f.Statement):
		return "the verdict's statement_sha256 is not the SHA-256 of formal.statement"
	case f.Proof == nil:
		return "a verdict is recorded but formal.proof is absent"
	case v.ProofSHA256 != SHA256Hex(*f.Proof):
		return "the verdict's proof_sha256 is not the SHA-256 of formal.proof"
	case v.OK && f.Stage != StageChecked:
		return fmt.Sprintf("the verdict is a pass but formal.stage is %s", f.Stage)
	case !v.OK && f.Stage == StageChecked:
		return "formal.stage is checked but the verdict is a refusal"
	case !strings.HasPrefix(v.Actor, KernelPrefix):
		return fmt.Sprintf("the verdict's actor %q is not a kernel's", v.Actor)
	}
	return ""
}

// IssueTarget is what an issue is about: TargetProof when it names none.
func (is *Issue) IssueTarget() string {
	if is.Target == "" {
		return TargetProof
	}
	return is.Target
}

// OpenFormalIssues lists the open issues on target (TargetFormalStatement
// or TargetFormalProof), in order.
func (s *Statement) OpenFormalIssues(target string) []int {
	var out []int
	for _, n := range s.OpenIssues() {
		if s.Validate.Issues[n-1].IssueTarget() == target {
			out = append(out, n)
		}
	}
	return out
}

// StatusWithoutIssues is the status a statement with a gap goes back to
// once no issue is open: awaiting_verification when it has a proof for the
// checkers, pending when it has none (a formal track's issue may be
// recorded before any written proof).
func StatusWithoutIssues(st *Statement) Status {
	if st.Proof == nil || strings.TrimSpace(*st.Proof) == "" {
		return StatementPending
	}
	return StatementAwaitingVerification
}

// ReservedActor refuses an actor that only the engine may be: a kernel's.
func ReservedActor(a string) error {
	if strings.HasPrefix(ActorKey(a), KernelPrefix) {
		return &ActorError{a, "the prefix " + KernelPrefix + " is reserved for the engine's proof checker"}
	}
	return nil
}

// KernelActor is the actor of a checker's verdict: kernel:coq-8.16.1.
func KernelActor(system, version string) string {
	a := KernelPrefix + system
	if version != "" {
		a += "-" + version
	}
	return a
}
