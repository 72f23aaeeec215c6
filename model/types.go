package model

// Problem is a problem document, problem/<id>.json. Field names are the
// seed's; the JSON Schema in schemas/ is the authority on the file format.
type Problem struct {
	ID            string   `json:"id"`
	Status        Status   `json:"status"`
	CreatedAt     string   `json:"created_at"`
	UpdatedAt     string   `json:"updated_at"`
	Revision      int      `json:"revision"`
	Objective     string   `json:"objective"`
	Hypothesis    []string `json:"hypothesis"`
	Parent        *string  `json:"parent"`
	Preliminaries []string `json:"preliminaries"`
	Progresses    []string `json:"progresses"`
	Rationale     *string  `json:"rationale,omitempty"`
	Resolution    *string  `json:"resolution,omitempty"`
	ResolvedBy    *string  `json:"resolved_by,omitempty"`
	SolvedAt      *string  `json:"solved_at,omitempty"`
	SolvedBy      *string  `json:"solved_by,omitempty"`
	IdleTurns     int      `json:"idle_turns,omitempty"`
	ExtraRounds   int      `json:"extra_rounds,omitempty"`
}

// Statement is a statement document, statement/<id>.json.
type Statement struct {
	ID            string   `json:"id"`
	Status        Status   `json:"status"`
	CreatedAt     string   `json:"created_at"`
	UpdatedAt     string   `json:"updated_at"`
	Revision      int      `json:"revision"`
	Claim         string   `json:"claim"`
	Premises      []string `json:"premises"`
	Purpose       *string  `json:"purpose,omitempty"`
	Rationale     *string  `json:"rationale,omitempty"`
	Context       string   `json:"context"`
	Proof         *string  `json:"proof"`
	ProofStrategy *string  `json:"proof_strategy"`
	ProofRevision int      `json:"proof_revision"`
	ProofAuthor   *string  `json:"proof_author,omitempty"`
	// ProofAuthorAgent and ProofAuthorModel name the agent of a run who
	// last wrote the proof, and its model (verify_distinct).
	ProofAuthorAgent string `json:"proof_author_agent,omitempty"`
	ProofAuthorModel string `json:"proof_author_model,omitempty"`
	// ProofWriters are everyone who wrote the current proof revision's
	// text: the author of its last complete proof and of every patch since
	// (Writers; the self-check rule refuses each of them).
	ProofWriters []ProofWriter `json:"proof_writers,omitempty"`
	// RevisionsKeptFrom is the first proof revision kept in
	// proofs/<id>.jsonl; 0 (absent) while none is, as for a statement
	// written before revisions were kept.
	RevisionsKeptFrom    int                  `json:"revisions_kept_from,omitempty"`
	Round                int                  `json:"round,omitempty"`
	ExtraRounds          int                  `json:"extra_rounds,omitempty"`
	IdleTurns            int                  `json:"idle_turns,omitempty"`
	SubStatements        []string             `json:"sub_statements"`
	FillsGapAt           *int                 `json:"fills_gap_at,omitempty"`
	FillsIssue           *int                 `json:"fills_issue,omitempty"`
	Counterexample       *string              `json:"counterexample,omitempty"`
	Refutation           *Refutation          `json:"refutation,omitempty"`
	ProposedModification *Modification        `json:"proposed_modification,omitempty"`
	ModificationHistory  []ModificationRecord `json:"modification_history,omitempty"`
	VerifiedAt           *string              `json:"verified_at,omitempty"`
	VerificationSummary  *string              `json:"verification_summary,omitempty"`
	Validate             Validate             `json:"validate"`
	// Level is the level of escalation the statement is at (Levels),
	// absent until it first climbs (revise); LevelFrom is what it had
	// spent of its budget (Spent) when it entered that level.
	Level     string `json:"level,omitempty"`
	LevelFrom int    `json:"level_from,omitempty"`
	// DeadEnds are its abandoned approaches, oldest first.
	DeadEnds []DeadEnd `json:"dead_ends,omitempty"`
	// Reviews are the checkers' reviews of its claim before any proof
	// (review_statements), oldest first.
	Reviews []StatementReview `json:"reviews,omitempty"`
}

// Validate is the check/fix history of a statement.
type Validate struct {
	Issues        []Issue        `json:"issues"`
	Responses     []Response     `json:"responses"`
	Confirmations []Confirmation `json:"confirmations"`
}

// Issue is a gap recorded by a checker.
type Issue struct {
	IssueNumber  int     `json:"issue_number"`
	Sentence     int     `json:"sentence"`
	SentenceText string  `json:"sentence_text"`
	ErrorType    string  `json:"error_type"`
	Explanation  string  `json:"explanation"`
	SuggestedFix *string `json:"suggested_fix,omitempty"`
	// Severity is critical or gap; absent on issues recorded before it
	// existed, when it defaults from the error type (see IssueSeverity).
	Severity  string  `json:"severity,omitempty"`
	CreatedAt string  `json:"created_at"`
	Actor     *string `json:"actor,omitempty"`
	AgentLabel
	Round         int `json:"round"`
	ProofRevision int `json:"proof_revision"`
	// SupersededAt is set when an accepted modification replaced the claim
	// the issue was about; such an issue is no longer open.
	SupersededAt *string `json:"superseded_at,omitempty"`
	// Dispute is the socratic debate a fixer opened on the issue (debate
	// start --about); while it is open the statement waits for it.
	Dispute *IssueDispute `json:"dispute,omitempty"`
	// WithdrawnAt is set when the issue was withdrawn, by a dispute's
	// consensus or by its own checker: it is no longer open, and stays in
	// the history, with who withdrew it (absent for a dispute) and why.
	WithdrawnAt     *string `json:"withdrawn_at,omitempty"`
	WithdrawnBy     *string `json:"withdrawn_by,omitempty"`
	WithdrawnReason *string `json:"withdrawn_reason,omitempty"`
}

// IssueDispute links an issue to the debate that disputes it.
type IssueDispute struct {
	Debate   string  `json:"debate"`
	OpenedAt string  `json:"opened_at"`
	ClosedAt *string `json:"closed_at,omitempty"`
	Outcome  *string `json:"outcome,omitempty"`
}

// DisputeOpen reports whether an issue's dispute is still running.
func (is *Issue) DisputeOpen() bool { return is.Dispute != nil && is.Dispute.ClosedAt == nil }

// Response is a fixer's answer to one or more issues.
type Response struct {
	ResponseNumber  int     `json:"response_number"`
	IssueAddressed  int     `json:"issue_addressed"`
	IssuesAddressed []int   `json:"issues_addressed"`
	Type            string  `json:"type"`
	CreatedAt       string  `json:"created_at"`
	Actor           *string `json:"actor,omitempty"`
	AgentLabel
	SubStatementID string `json:"sub_statement_id,omitempty"`
	// RejectedAt is set on a modification response whose proposal was
	// rejected: it no longer answers its issue.
	RejectedAt *string `json:"rejected_at,omitempty"`
	// The fields of each type: patch, substatement, false, modification.
	SentenceRange     *SentenceRange    `json:"sentence_range,omitempty"`
	ChangeDescription string            `json:"change_description,omitempty"`
	ReplacementText   string            `json:"replacement_text,omitempty"`
	ProofRevision     int               `json:"proof_revision,omitempty"`
	Purpose           *string           `json:"purpose,omitempty"`
	GapLocation       int               `json:"gap_location,omitempty"`
	Counterexample    string            `json:"counterexample,omitempty"`
	Proposal          *ResponseProposal `json:"proposal,omitempty"`
}

// SentenceRange is a patch's span of sentences, numbered in the proof as
// it was before the patch.
type SentenceRange struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// ResponseProposal is a modification response's proposed change.
type ResponseProposal struct {
	Type      string   `json:"type"`
	Claim     *string  `json:"claim"`
	Premises  []string `json:"premises"`
	Rationale string   `json:"rationale"`
}

// Confirmation is one checker's approval of one proof revision.
type Confirmation struct {
	Actor *string `json:"actor,omitempty"`
	AgentLabel
	ProofRevision       int     `json:"proof_revision"`
	VerificationSummary *string `json:"verification_summary,omitempty"`
	CreatedAt           string  `json:"created_at"`
	// Uncounted says why the confirmation does not count toward
	// verify_quorum (its checker was measured below
	// verify_min_reliability); "" for one that counts.
	Uncounted string `json:"uncounted,omitempty"`
}

// Refutation records who marked a statement false, and from which issue.
type Refutation struct {
	Source         Source  `json:"source"`
	IssueNumber    *int    `json:"issue_number,omitempty"`
	ResponseNumber *int    `json:"response_number,omitempty"`
	Actor          *string `json:"actor,omitempty"`
	At             string  `json:"at"`
}

// Modification is a proposed change of a statement's claim or premises.
type Modification struct {
	Type           string   `json:"type"`
	Claim          *string  `json:"claim"`
	Premises       []string `json:"premises"`
	Rationale      string   `json:"rationale"`
	Source         Source   `json:"source"`
	IssueNumber    *int     `json:"issue_number,omitempty"`
	ResponseNumber *int     `json:"response_number,omitempty"`
	PreviousStatus Status   `json:"previous_status"`
	Actor          *string  `json:"actor,omitempty"`
	ProposedAt     string   `json:"proposed_at"`
}

// ModificationRecord keeps the claim and premises a decision replaced or kept.
type ModificationRecord struct {
	Decision       string   `json:"decision"`
	Type           string   `json:"type"`
	ClaimBefore    string   `json:"claim_before"`
	PremisesBefore []string `json:"premises_before"`
	ClaimAfter     *string  `json:"claim_after"`
	PremisesAfter  []string `json:"premises_after"`
	Rationale      string   `json:"rationale"`
	Reason         *string  `json:"reason"`
	DecidedAt      string   `json:"decided_at"`
	Actor          *string  `json:"actor"`
}

// OpenIssues returns the numbers of the issues no patch, false or
// modification response has answered, in order. A gap-filling sub-statement
// does not answer an issue by itself: the issue stays open until a patch that
// uses the sub-statement (or a refutation or modification) cites it, which is
// what lets fix-patch-proof name it once the sub-statement is resolved. A
// rejected modification answers nothing; a superseded issue is not open.
func (s *Statement) OpenIssues() []int {
	answered := map[int]bool{}
	for _, r := range s.Validate.Responses {
		if r.Type == "substatement" || r.RejectedAt != nil {
			continue
		}
		answered[r.IssueAddressed] = true
		for _, n := range r.IssuesAddressed {
			answered[n] = true
		}
	}
	open := []int{}
	for _, is := range s.Validate.Issues {
		if !answered[is.IssueNumber] && is.SupersededAt == nil && is.WithdrawnAt == nil {
			open = append(open, is.IssueNumber)
		}
	}
	return open
}

// AgentLabel names the agent of a run (config.json) that wrote a record,
// and its model label; both are empty for a record written by hand.
// ProofWriter is one writer of a proof revision's text: its actor, and
// its agent and model when a run's agent wrote it.
type ProofWriter struct {
	Actor string `json:"actor"`
	AgentLabel
}

type AgentLabel struct {
	Agent string `json:"agent,omitempty"`
	Model string `json:"model,omitempty"`
}
