package loop

import (
	"context"
	"slices"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// Brief is one item as a role needs it for a turn, read in one call
// (`prime --role R --id ID`): the claim and what it rests on, the proof
// numbered as checkers cite it with each open issue under its sentence, the
// revision to pass as --expect-revision, the lease, and the role's skills
// that the item's status allows now. A check or fix turn needs no other
// read.
type Brief struct {
	Item     *Item       `json:"item"` // whose turn, why, round, open issues
	Role     model.Role  `json:"role"` // the role asking
	YourTurn bool        `json:"your_turn"`
	Revision int         `json:"revision"`
	Lease    *BriefLease `json:"lease"` // nil when no lease is live

	// A statement's.
	Claim         string          `json:"claim,omitempty"`
	Premises      []string        `json:"premises,omitempty"`
	Context       *BriefRef       `json:"context,omitempty"`
	ProofRevision int             `json:"proof_revision,omitempty"`
	Strategy      string          `json:"strategy,omitempty"`
	Sentences     []BriefSentence `json:"sentences,omitempty"`
	// ProofSentences counts the sentences of a written proof left out of
	// Sentences on a turn of the formal track (0 otherwise).
	ProofSentences int `json:"proof_sentences_not_shown,omitempty"`
	// OtherIssues are open issues that cite a sentence the current proof
	// revision does not have at that number (they cite an earlier one).
	OtherIssues []model.Issue `json:"other_issues,omitempty"`
	// Answered counts the issues of earlier rounds that are answered,
	// superseded or withdrawn.
	Answered int        `json:"answered_issues"`
	Subs     []BriefRef `json:"sub_statements,omitempty"`
	// Proposed is the modification a decider settles.
	Proposed *model.Modification `json:"proposed_modification,omitempty"`
	// DeadEnds are its latest abandoned approaches, the latest first
	// (BriefDeadEnds of them), and EarlierDeadEnds how many it leaves out;
	// Abandoned says that the proof it holds is a dead end's, not shown.
	DeadEnds        []BriefDeadEnd `json:"dead_ends,omitempty"`
	EarlierDeadEnds int            `json:"earlier_dead_ends,omitempty"`
	Abandoned       bool           `json:"abandoned_proof,omitempty"`
	// Review is the review of its current claim, when it had one
	// (review_statements).
	Review *model.StatementReview `json:"review,omitempty"`
	// Formal is the statement's formal track, with the texts the role
	// needs at its stage (nil when it has none).
	Formal *BriefFormal `json:"formal,omitempty"`

	// A problem's.
	Objective     string     `json:"objective,omitempty"`
	Hypothesis    []string   `json:"hypothesis,omitempty"`
	Preliminaries []BriefRef `json:"preliminaries,omitempty"`
	Progresses    []BriefRef `json:"progresses,omitempty"`

	// Guidance is a person's guidance in force for the role on the item
	// (proofloop guide): hints for provers and fixers, extra rules for
	// checkers.
	Guidance []Guidance `json:"guidance,omitempty"`

	// Allowed are the role's skills that the item's status allows now, in
	// the transition table's order (none when it is not the role's turn).
	Allowed []Allowed `json:"allowed"`
}

// Allowed is a skill the role may call on the item now; Source is the
// --source the call must give ("" when the skill takes none).
type Allowed struct {
	Skill  string       `json:"skill"`
	Source model.Source `json:"source,omitempty"`
}

// BriefLease is the live lease on an item; Yours says whether the token
// the caller holds is its token. The token itself is never shown.
type BriefLease struct {
	Holder    string `json:"holder"`
	Role      string `json:"role"`
	ExpiresAt string `json:"expires_at"`
	Yours     bool   `json:"yours"`
}

// BriefRef is another document the item names: its id, status and the
// claim (a statement) or objective (a problem).
type BriefRef struct {
	ID     string       `json:"id"`
	Kind   model.Kind   `json:"kind"`
	Status model.Status `json:"status"`
	Text   string       `json:"text"`
}

// BriefFormal is a statement's formal track as a role needs it: the
// formal statement for the checker who judges it, the prover who proves it
// and the fixer who answers its rejection; the formal proof and the
// checker's last output for the fixer who answers the kernel's refusal;
// and the open issues on the formal track (their sentence is a line of
// the text they target).
type BriefFormal struct {
	System    string            `json:"system"`
	Theorem   string            `json:"theorem"`
	Stage     model.FormalStage `json:"stage"`
	Statement string            `json:"statement,omitempty"`
	Proof     string            `json:"proof,omitempty"`
	// Verdict says what the kernel last said: "accepted by ACTOR" or
	// "refused by ACTOR" (its issue says why; "" when it has not run on
	// these texts).
	Verdict    string        `json:"verdict,omitempty"`
	LastOutput string        `json:"last_output,omitempty"`
	Issues     []model.Issue `json:"issues,omitempty"`
}

// formalTurn reports whether role's turn on st is the formal track's: the
// table gives it at the formal track's priority.
func formalTurn(st *model.Statement, role model.Role, maxRounds int) bool {
	f := model.StatementFacts(st, nil)
	f.MaxRounds = maxRounds
	g := model.Route(model.KindStatement, f)
	return len(g) > 0 && g[0].Role == role && slices.ContainsFunc(g, func(x model.Grant) bool { return slices.Contains(model.FormalSkills(), x.Skill) })
}

// formalBrief is st's formal track as role needs it.
func formalBrief(st *model.Statement, role model.Role) *BriefFormal {
	fm := st.Formal
	if fm == nil {
		return nil
	}
	b := &BriefFormal{System: fm.System, Theorem: fm.Theorem, Stage: fm.Stage}
	needStatement := map[model.Role][]model.FormalStage{model.RoleCheck: {model.StageFormalized},
		model.RoleProve: {model.StageConfirmed}, model.RoleFix: {model.StageRejected, model.StageFailed}}
	if slices.Contains(needStatement[role], fm.Stage) {
		b.Statement = fm.Statement
	}
	if v := fm.Verdict; v != nil {
		b.Verdict = "accepted by " + v.Actor
		if !v.OK {
			b.Verdict = "refused by " + v.Actor
		}
	}
	if role == model.RoleFix && fm.Stage == model.StageFailed {
		if fm.Proof != nil {
			b.Proof = *fm.Proof
		}
		if v := fm.Verdict; v != nil {
			b.LastOutput = v.Output
		}
	}
	return b
}

// BriefSentence is one numbered sentence of the proof, with the open
// issues that cite it in this proof revision.
type BriefSentence struct {
	N      int           `json:"n"`
	Text   string        `json:"text"`
	Issues []model.Issue `json:"issues,omitempty"`
}

// ReadBrief reads the item id as role needs it. token is the caller's lease
// token ("" for none). A debate is not an item of this brief: its roles
// read the debate with `debate show`.
func ReadBrief(s *store.Store, role model.Role, id, token string) (*Brief, error) {
	kind, err := briefKind(role, id)
	if err != nil {
		return nil, err
	}
	doc, err := s.Read(id)
	if err != nil {
		return nil, err
	}
	var row *store.Row
	if err := s.View(func(v *store.IndexView) error {
		row, err = v.Row(id)
		return err
	}); err != nil {
		return nil, err
	}
	b := &Brief{Item: itemOf(row, s.Now()), Role: role, Revision: doc.Revision(), Allowed: []Allowed{}}
	b.YourTurn = b.Item.Role == role
	if b.Guidance, err = GuidanceFor(context.Background(), s, role, id, row.Round); err != nil {
		return nil, err
	}
	if b.Item.leased {
		l, err := s.ReadLease(id)
		if err != nil {
			return nil, err
		}
		b.Lease = &BriefLease{Holder: b.Item.Holder, Role: row.Lease.Role, ExpiresAt: b.Item.Expires,
			Yours: l != nil && token != "" && l.Token == token}
	}
	if b.YourTurn {
		b.Allowed = append(b.Allowed, allowed(kind, role, b.Item.Status)...)
	}
	if kind == model.KindProblem {
		return b, b.problem(s, doc)
	}
	return b, b.statement(s, doc)
}

// briefKind is the kind of the item a brief is asked for: a problem or a
// statement, never a debate.
func briefKind(role model.Role, id string) (model.Kind, error) {
	kind, err := model.KindOf(id)
	if err != nil {
		return "", store.Errorf(store.CodeInvalidInput, "%v", err).
			WithHint("give the id of a problem or statement, as `proofloop next --role " + string(role) + "` prints it")
	}
	if kind == model.KindDebate {
		return "", store.Errorf(store.CodeInvalidInput, "%s is a debate; prime --id takes a problem or statement", id).
			WithHint("read a debate with `proofloop debate show " + id + "`")
	}
	return kind, nil
}

// allowed lists the skills of the transition table that role may run on
// an item of kind in status: a rule with sources names the role's own.
func allowed(kind model.Kind, role model.Role, status model.Status) []Allowed {
	var out []Allowed
	for i := range model.Table {
		r := &model.Table[i]
		if r.Kind != kind || !slices.Contains(r.Roles, role) {
			continue
		}
		for _, f := range r.From {
			if slices.Contains(f.Statuses, status) && (f.Source == "" || string(f.Source) == string(role)) {
				out = append(out, Allowed{Skill: r.Skill, Source: f.Source})
				break
			}
		}
	}
	return out
}

// problem fills in a problem's brief: its objective and hypothesis and the
// statements it relies on and has made.
func (b *Brief) problem(s *store.Store, doc *store.Doc) error {
	p, err := doc.Problem()
	if err != nil {
		return err
	}
	b.Objective, b.Hypothesis = p.Objective, p.Hypothesis
	if b.Preliminaries, err = refs(s, p.Preliminaries); err != nil {
		return err
	}
	b.Progresses, err = refs(s, p.Progresses)
	return err
}

// statement fills in a statement's brief: its claim and the items around
// it, its proof in numbered sentences, its formal track and its open
// issues, each beside what it cites.
func (b *Brief) statement(s *store.Store, doc *store.Doc) error {
	st, err := doc.Statement()
	if err != nil {
		return err
	}
	b.Claim, b.Premises, b.ProofRevision, b.Proposed = st.Claim, st.Premises, st.ProofRevision, st.ProposedModification
	if st.ProofStrategy != nil {
		b.Strategy = *st.ProofStrategy
	}
	if err := b.around(s, st); err != nil {
		return err
	}
	b.Review, b.Abandoned = st.CurrentReview(), abandonedProof(st)
	if err := b.proof(s, st); err != nil {
		return err
	}
	b.Formal = formalBrief(st, b.Role)
	if st.Status == model.StatementTrue {
		// What stands behind it, derived over what it relies on.
		if err := Proved(s, []*Item{b.Item}); err != nil {
			return err
		}
	}
	b.issues(st)
	return nil
}

// around reads the statement's context, sub-statements and dead ends.
func (b *Brief) around(s *store.Store, st *model.Statement) error {
	if st.Context != "" {
		ctx, err := refs(s, []string{st.Context})
		if err != nil {
			return err
		}
		b.Context = &ctx[0]
	}
	var err error
	if b.Subs, err = refs(s, st.SubStatements); err != nil {
		return err
	}
	b.DeadEnds, b.EarlierDeadEnds, err = briefDeadEnds(s, st)
	return err
}

// proof numbers the sentences of the statement's proof. A turn of the
// formal track needs the formal texts, not the written proof: it is left
// out, and counted (agents pay for every byte).
func (b *Brief) proof(s *store.Store, st *model.Statement) error {
	var sentences []string
	if st.Proof != nil && !b.Abandoned {
		sentences = model.Sentences(*st.Proof)
	}
	cfg, err := s.Config()
	if err != nil {
		return err
	}
	if b.YourTurn && formalTurn(st, b.Role, cfg.MaxRounds) {
		b.ProofSentences, sentences = len(sentences), nil
	}
	for i, text := range sentences {
		b.Sentences = append(b.Sentences, BriefSentence{N: i + 1, Text: text})
	}
	return nil
}

// issues puts each open issue beside the sentence it cites, with the
// formal texts it is about, or with the other issues, and counts the
// answered ones.
func (b *Brief) issues(st *model.Statement) {
	open := st.OpenIssues()
	for _, is := range st.Validate.Issues {
		if !slices.Contains(open, is.IssueNumber) {
			b.Answered++
			continue
		}
		is.Severity = model.IssueSeverity(&is)
		if is.IssueTarget() != model.TargetProof && b.Formal != nil {
			b.Formal.Issues = append(b.Formal.Issues, is)
			continue
		}
		if is.ProofRevision == st.ProofRevision && is.Sentence >= 1 && is.Sentence <= len(b.Sentences) {
			b.Sentences[is.Sentence-1].Issues = append(b.Sentences[is.Sentence-1].Issues, is)
		} else {
			b.OtherIssues = append(b.OtherIssues, is)
		}
	}
}

// refs reads the documents ids name, each as a BriefRef.
func refs(s *store.Store, ids []string) ([]BriefRef, error) {
	out := make([]BriefRef, 0, len(ids))
	for _, id := range ids {
		d, err := s.Read(id)
		if err != nil {
			return nil, err
		}
		r := BriefRef{ID: id, Kind: d.Kind, Status: d.Status()}
		if d.Kind == model.KindProblem {
			r.Text = d.Get("objective").String()
		} else {
			r.Text = d.Get("claim").String()
		}
		out = append(out, r)
	}
	return out, nil
}
