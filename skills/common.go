package skills

import (
	"fmt"
	"slices"

	"github.com/tidwall/gjson"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// The steps two or more skills share: each is one helper, called from each.

// statementDoc reads a statement and decodes it.
func statementDoc(tx *store.Tx, id string) (*store.Doc, *model.Statement, error) {
	d, err := tx.Get(id)
	if err != nil {
		return nil, nil, err
	}
	if d.Kind != model.KindStatement {
		return nil, nil, store.Errorf(store.CodeInvalidInput, "%s is a %s; this skill acts on a statement", id, d.Kind).
			WithHint("name a statement (stmt_...): `proofloop show " + id + "` lists the statements of its progresses")
	}
	st, err := d.Statement()
	if err != nil {
		return nil, nil, store.Errorf(store.CodeStoreDamaged, "%s", err)
	}
	return d, st, nil
}

// problemDoc reads a problem and decodes it.
func problemDoc(tx *store.Tx, id string) (*store.Doc, *model.Problem, error) {
	d, err := tx.Get(id)
	if err != nil {
		return nil, nil, err
	}
	if d.Kind != model.KindProblem {
		return nil, nil, store.Errorf(store.CodeInvalidInput, "%s is a %s; this skill acts on a problem", id, d.Kind).
			WithHint("name a problem (prob_...): the statement's context leads to it (`proofloop show " + id + " --field context`)")
	}
	p, err := d.Problem()
	if err != nil {
		return nil, nil, store.Errorf(store.CodeStoreDamaged, "%s", err)
	}
	return d, p, nil
}

// subStatuses reads the status of each sub-statement, and which issue a
// gap-filling one fills: the only other documents a statement skill reads.
func subStatuses(tx *store.Tx, st *model.Statement) (map[string]model.Status, []model.Child, error) {
	out := map[string]model.Status{}
	var kids []model.Child
	for _, id := range st.SubStatements {
		d, err := tx.Get(id)
		if err != nil {
			return nil, nil, fmt.Errorf("sub-statement of %s: %w", st.ID, err)
		}
		out[id] = d.Status()
		c := model.Child{ID: id, Status: d.Status()}
		if fi := d.Get("fills_issue"); fi.Exists() && fi.Type != gjson.Null {
			n := int(fi.Int())
			c.FillsIssue = &n
		}
		kids = append(kids, c)
	}
	return out, kids, nil
}

// statementState reads a statement and gathers what the guards of a
// statement skill look at: the step every statement skill starts with.
func statementState(tx *store.Tx, id string) (*store.Doc, *model.Statement, *model.Facts, error) {
	d, st, err := statementDoc(tx, id)
	if err != nil {
		return nil, nil, nil, err
	}
	f, err := statementFacts(tx, st)
	if err != nil {
		return nil, nil, nil, err
	}
	return d, st, f, nil
}

// statementFacts gathers what the guards of a statement skill look at.
func statementFacts(tx *store.Tx, st *model.Statement) (*model.Facts, error) {
	f := &model.Facts{Status: st.Status, OpenIssues: st.OpenIssues(), IssueCount: len(st.Validate.Issues), Statement: st}
	if st.Proof != nil {
		f.Proof = *st.Proof
	}
	cfg, err := tx.Config()
	if err != nil {
		return nil, err
	}
	f.SetPolicy(cfg.Policy())
	if st.Status == model.StatementAwaitingSubstatement {
		if f.SubStatuses, f.Subs, err = subStatuses(tx, st); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// newStatement creates a pending statement under context and returns it.
func newStatement(tx *store.Tx, id, context, claim string, premises []string, purpose *string) (*model.Statement, error) {
	st := &model.Statement{Status: model.StatementPending, Claim: claim, Premises: nonNil(premises),
		Purpose: purpose, Context: context, SubStatements: []string{},
		Validate: model.Validate{Issues: []model.Issue{}, Responses: []model.Response{}, Confirmations: []model.Confirmation{}}}
	if _, err := tx.Create(id, st); err != nil {
		return nil, err
	}
	return st, nil
}

// addSubStatement creates the next child of a statement, numbered by idFor
// (model.SubStatementID or model.FixStatementID) after every child the
// parent lists, and appends it to the parent's sub_statements.
func addSubStatement(tx *store.Tx, parent *store.Doc, idFor func(string, int) string, claim string, premises []string, purpose *string) (*store.Doc, error) {
	ids, err := addSubStatements(tx, parent, idFor, []SubSpec{{Claim: claim, Premises: premises}}, purpose)
	if err != nil {
		return nil, err
	}
	return tx.Get(ids[0])
}

// addSubStatements creates children of a statement, one per spec, and
// appends their ids to the parent's sub_statements. The work is linear in
// the children, old and new: the ids are numbered in one pass
// (childIDs), and the parent's array is written once, not grown one
// sjson append (a copy of the whole document) at a time.
func addSubStatements(tx *store.Tx, parent *store.Doc, idFor func(string, int) string, specs []SubSpec, purpose *string) ([]string, error) {
	var list []string
	for _, c := range parent.Get("sub_statements").Array() {
		list = append(list, c.String())
	}
	ids := childIDs(parent.ID, list, len(specs), idFor)
	for i, sp := range specs {
		if _, err := newStatement(tx, ids[i], parent.ID, sp.Claim, sp.Premises, purpose); err != nil {
			return nil, err
		}
	}
	if err := parent.Set("sub_statements", nonNil(append(list, ids...))); err != nil {
		return nil, err
	}
	return ids, nil
}

// childIDs numbers k new children of parent: the first k numbers n >= 1
// whose id idFor(parent, n) is not in taken, as k calls of
// model.NextNumber would, but with a set instead of a scan of taken for
// every candidate. Numbers are never reused because taken only grows.
func childIDs(parent string, taken []string, k int, idFor func(string, int) string) []string {
	seen := make(map[string]bool, len(taken))
	for _, id := range taken {
		seen[id] = true
	}
	ids := make([]string, 0, k)
	for n := 1; len(ids) < k; n++ {
		if id := idFor(parent, n); !seen[id] {
			ids = append(ids, id)
		}
	}
	return ids
}

// appendResponse numbers a response, appends it to validate.responses and
// returns its number. fields are the type's own fields.
func appendResponse(tx *store.Tx, d *store.Doc, st *model.Statement, typ string, issues []int, fields map[string]any) (int, error) {
	n := len(st.Validate.Responses) + 1
	r := map[string]any{"response_number": n, "issue_addressed": issues[0], "issues_addressed": issues,
		"type": typ, "created_at": tx.Now(), "actor": actor(tx)}
	labelled(tx, r)
	for k, v := range fields {
		r[k] = v
	}
	return n, d.Set("validate.responses.-1", r)
}

// actor is the transaction's actor as recorded: its normal form
// (model.ActorKey), or nil (JSON null) when none was given. The CLI
// normalises the actor once at its edge; normalising here too keeps the
// documents in one form for callers of the Go API.
func actor(tx *store.Tx) *string {
	if a := model.ActorKey(tx.Actor()); a != "" {
		return &a
	}
	return nil
}

// label is the agent of a run the transaction acts for, and its model.
func label(tx *store.Tx) model.AgentLabel {
	name, m := tx.Agent()
	return model.AgentLabel{Agent: name, Model: m}
}

// labelled adds the agent and model to a record written as a map, when the
// transaction acts for an agent of a run.
func labelled(tx *store.Tx, rec map[string]any) map[string]any {
	l := label(tx)
	if l.Agent != "" {
		rec["agent"] = l.Agent
	}
	if l.Model != "" {
		rec["model"] = l.Model
	}
	return rec
}

// setProofAuthor records who wrote the proof text now: actor, agent and
// model (an author without an agent clears the previous author's), and
// the revision's writers (proof_writers): this author alone for a complete
// proof; for a patch, the writers before it and this author, so that the
// self-check rule refuses everyone who wrote any of the text. A statement
// written before writers were recorded starts from its last author.
func setProofAuthor(tx *store.Tx, d *store.Doc, st *model.Statement, patch bool) error {
	w := model.ProofWriter{AgentLabel: label(tx)}
	if a := actor(tx); a != nil {
		w.Actor = *a
	}
	var writers []model.ProofWriter
	if patch {
		writers = slices.Clone(st.Writers())
	}
	if !slices.Contains(writers, w) {
		writers = append(writers, w)
	}
	if err := d.Set("proof_writers", writers); err != nil {
		return err
	}
	if err := d.Set("proof_author", actor(tx)); err != nil {
		return err
	}
	l := label(tx)
	for path, v := range map[string]string{"proof_author_agent": l.Agent, "proof_author_model": l.Model} {
		var err error
		if v == "" {
			err = d.Delete(path)
		} else {
			err = d.Set(path, v)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// set applies field changes in order, stopping at the first error.
func set(d *store.Doc, kv ...any) error {
	for i := 0; i+1 < len(kv); i += 2 {
		if err := d.Set(kv[i].(string), kv[i+1]); err != nil {
			return err
		}
	}
	return nil
}

// created is the Created entry of a new document.
func created(k model.Kind, id string) Created { return Created{id, store.DocPath(k, id)} }

// refParam, textParam... build registry entries briefly.
func ref(name, help string) Param {
	return Param{Name: name, Type: TypeRef, Required: true, Help: help}
}
func text(name, help string) Param {
	return Param{Name: name, Type: TypeText, Required: true, Help: help}
}
func optText(name, help string) Param {
	return Param{Name: name, Type: TypeText, Help: help}
}
func texts(name, help string) Param { return Param{Name: name, Type: TypeTexts, Help: help} }
func enum(name, help string, values []string, required bool) Param {
	return Param{Name: name, Type: TypeEnum, Enum: values, Required: required, Help: help}
}

// checkFacts adds what the check skills' self-check guard needs.
func checkFacts(tx *store.Tx, f *model.Facts, st *model.Statement) (store.Config, error) {
	cfg, err := tx.Config()
	if err != nil {
		return cfg, err
	}
	f.ForbidSelfCheck, f.Actor, f.ProofRevision = cfg.ForbidSelfCheck, tx.Actor(), st.ProofRevision
	if st.ProofAuthor != nil {
		f.ProofAuthor = *st.ProofAuthor
	}
	f.VerifyDistinct, f.CheckerLabel = cfg.VerifyDistinct, label(tx)
	f.ProofAuthorLabel = model.AgentLabel{Agent: st.ProofAuthorAgent, Model: st.ProofAuthorModel}
	return cfg, nil
}

// plural writes "1 sentence", "3 sentences".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
