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
	kind, err := model.KindOf(id)
	if err != nil {
		return nil, store.Errorf(store.CodeInvalidInput, "%v", err).
			WithHint("give the id of a problem or statement, as `proofloop next --role " + string(role) + "` prints it")
	}
	if kind == model.KindDebate {
		return nil, store.Errorf(store.CodeInvalidInput, "%s is a debate; prime --id takes a problem or statement", id).
			WithHint("read a debate with `proofloop debate show " + id + "`")
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
	now := s.Now()
	b := &Brief{Item: itemOf(row, now), Role: role, Revision: doc.Revision(), Allowed: []Allowed{}}
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
		for i := range model.Table {
			r := &model.Table[i]
			if r.Kind != kind || !slices.Contains(r.Roles, role) {
				continue
			}
			for _, f := range r.From {
				// A rule with sources names the role's own source.
				if slices.Contains(f.Statuses, b.Item.Status) && (f.Source == "" || string(f.Source) == string(role)) {
					b.Allowed = append(b.Allowed, Allowed{Skill: r.Skill, Source: f.Source})
					break
				}
			}
		}
	}
	if kind == model.KindProblem {
		p, err := doc.Problem()
		if err != nil {
			return nil, err
		}
		b.Objective, b.Hypothesis = p.Objective, p.Hypothesis
		if b.Preliminaries, err = refs(s, p.Preliminaries); err != nil {
			return nil, err
		}
		b.Progresses, err = refs(s, p.Progresses)
		return b, err
	}
	st, err := doc.Statement()
	if err != nil {
		return nil, err
	}
	b.Claim, b.Premises, b.ProofRevision, b.Proposed = st.Claim, st.Premises, st.ProofRevision, st.ProposedModification
	if st.ProofStrategy != nil {
		b.Strategy = *st.ProofStrategy
	}
	if st.Context != "" {
		ctx, err := refs(s, []string{st.Context})
		if err != nil {
			return nil, err
		}
		b.Context = &ctx[0]
	}
	if b.Subs, err = refs(s, st.SubStatements); err != nil {
		return nil, err
	}
	if b.DeadEnds, b.EarlierDeadEnds, err = briefDeadEnds(s, st); err != nil {
		return nil, err
	}
	b.Review, b.Abandoned = st.CurrentReview(), abandonedProof(st)
	open := st.OpenIssues()
	var sentences []string
	if st.Proof != nil && !b.Abandoned {
		sentences = model.Sentences(*st.Proof)
	}
	for i, text := range sentences {
		b.Sentences = append(b.Sentences, BriefSentence{N: i + 1, Text: text})
	}
	for _, is := range st.Validate.Issues {
		if !slices.Contains(open, is.IssueNumber) {
			b.Answered++
			continue
		}
		is.Severity = model.IssueSeverity(&is)
		if is.ProofRevision == st.ProofRevision && is.Sentence >= 1 && is.Sentence <= len(b.Sentences) {
			b.Sentences[is.Sentence-1].Issues = append(b.Sentences[is.Sentence-1].Issues, is)
		} else {
			b.OtherIssues = append(b.OtherIssues, is)
		}
	}
	return b, nil
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
