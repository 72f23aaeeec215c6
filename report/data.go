package report

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"time"

	"github.com/tidwall/gjson"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// Data is what a report shows, read from the store in one pass: the tree
// from the index, each document, each statement's history (for the proof
// revisions), the debates and the event log.
type Data struct {
	Root       string // the store's folder
	Problem    string // the --problem the report is limited to, "" for all
	Generated  string
	Roots      []string
	Items      map[string]*loop.Item
	Problems   map[string]*model.Problem
	Statements map[string]*StatementData
	Debates    []*model.Debate
	Events     []store.Event // in seq order; only those touching the report's items when Problem is set
	LastSeq    int           // the last seq of the whole log
}

// StatementData is one statement with its proof at every revision.
type StatementData struct {
	*model.Statement
	Revisions []loop.ProofRevisionView // oldest first
	Causes    []string                 // each revision's cause (complete, patch, ...), "" when unknown
	// Source says where the revisions came from: "kept" (the store's
	// proofs/<id>.jsonl), "log" (rebuilt from the events' patches) or
	// "current" (neither: only the current proof is known).
	Source       string
	FirstProofAt string
	// Killed says what killed each of its dead ends, in their order.
	Killed []string
}

// Load reads everything a report of s shows; problem ("" for all) limits it
// to one problem's subtree.
func Load(ctx context.Context, s *store.Store, problem string) (*Data, error) {
	d := &Data{Root: s.Dir, Problem: problem, Generated: store.Timestamp(s.Now()),
		Problems: map[string]*model.Problem{}, Statements: map[string]*StatementData{}}
	var snap *loop.Snapshot
	var err error
	if problem != "" {
		if err := CheckProblem(s, problem); err != nil {
			return nil, err
		}
		snap, err = loop.Subtree(s, problem)
	} else {
		snap, err = loop.Load(s)
	}
	if err != nil {
		return nil, err
	}
	d.Roots, d.Items = snap.Roots, snap.Items
	if err := loop.Proved(s, slices.Collect(maps.Values(d.Items))); err != nil {
		return nil, err
	}
	for _, id := range slices.Sorted(maps.Keys(d.Items)) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if k := d.Items[id].Kind; k != model.KindProblem && k != model.KindStatement {
			continue // debates are read below, by loadDebates
		}
		doc, err := s.Read(id)
		if err != nil {
			return nil, err
		}
		switch d.Items[id].Kind {
		case model.KindProblem:
			p, err := doc.Problem()
			if err != nil {
				return nil, err
			}
			d.Problems[id] = p
		case model.KindStatement:
			st, err := doc.Statement()
			if err != nil {
				return nil, err
			}
			sd, err := statementData(s, st)
			if err != nil {
				return nil, err
			}
			d.Statements[id] = sd
		}
	}
	if d.Debates, err = loadDebates(s, d); err != nil {
		return nil, err
	}
	logRevs := map[string][]logRevision{}
	err = loop.Events(ctx, s, 0, false, func(seq int, line []byte) error {
		d.LastSeq = seq
		var ev store.Event
		if err := json.Unmarshal(line, &ev); err != nil {
			return store.Errorf(store.CodeStoreDamaged, "%s: seq %d does not parse", store.EventsFile, seq).Wrap(err)
		}
		if problem != "" && !slices.ContainsFunc(ev.IDs, func(id string) bool { return d.Items[id] != nil }) && !usageOf(&ev, problem) {
			return nil
		}
		for i := range ev.Changes {
			c := &ev.Changes[i]
			if sd := d.Statements[c.ID]; sd != nil && sd.Source == "kept" && len(sd.Revisions) == 0 {
				if r, ok := proofSet(&ev, c); ok {
					logRevs[c.ID] = append(logRevs[c.ID], r)
				}
			}
			c.Patch = nil // the timeline shows statuses; the patches are history's
		}
		d.Events = append(d.Events, ev)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for id, sd := range d.Statements {
		sd.fromLog(logRevs[id])
	}
	return d, nil
}

// CheckProblem checks that problem names a problem of s: a usage error
// when it is no problem id, not_found when there is no such problem.
func CheckProblem(s *store.Store, problem string) error {
	if k, err := model.KindOf(problem); err != nil || k != model.KindProblem {
		return store.Errorf(store.CodeUsage, "--problem %q is not a problem id (prob_<name>)", problem)
	}
	_, err := s.Read(problem)
	return err
}

// statementData reads the proof revisions the store keeps
// (proofs/<id>.jsonl). A store from before it kept them gets its revisions
// from the log afterwards (fromLog).
func statementData(s *store.Store, st *model.Statement) (*StatementData, error) {
	sd := &StatementData{Statement: st, Source: "kept"}
	kept, err := s.ProofRevisions(st.ID)
	if err != nil {
		return nil, err
	}
	for i := range st.DeadEnds {
		k, err := loop.KilledBy(s, st, &st.DeadEnds[i], 0, 0)
		if err != nil {
			return nil, err
		}
		sd.Killed = append(sd.Killed, k)
	}
	for _, r := range kept {
		sd.Revisions = append(sd.Revisions, loop.ProofRevisionView{Revision: r.Revision, Text: r.Text,
			Strategy: deref(r.Strategy), Author: deref(r.Actor), At: r.At})
		sd.Causes = append(sd.Causes, r.Cause)
	}
	return sd, nil
}

// logRevision is a proof revision as an event's patch set it.
type logRevision struct {
	loop.ProofRevisionView
	Command string
}

// proofSet reads from one change's patch the proof revision it wrote, if
// it wrote one: the patch replaces /proof and /proof_revision (or, for a
// created document, adds every field). Reading the patch's operations,
// rather than replaying every document (store.History), keeps a report of
// a large old store at one pass over the log: History would open the index
// once per statement.
func proofSet(ev *store.Event, c *store.Change) (logRevision, bool) {
	r := logRevision{Command: ev.Command}
	r.Author, r.At = deref(ev.Actor), ev.Time
	text := false
	for _, op := range gjson.ParseBytes(c.Patch).Array() {
		if o := op.Get("op").String(); o != "add" && o != "replace" {
			continue
		}
		v := op.Get("value")
		switch op.Get("path").String() {
		case "":
			v = v.Get("proof")
			if v.Type == gjson.String {
				r.Text, text = v.String(), true
			}
			r.Revision = int(op.Get("value.proof_revision").Int())
			r.Strategy = op.Get("value.proof_strategy").String()
		case "/proof":
			if v.Type == gjson.String {
				r.Text, text = v.String(), true
			}
		case "/proof_revision":
			r.Revision = int(v.Int())
		case "/proof_strategy":
			r.Strategy = v.String()
		}
	}
	return r, text && r.Revision > 0
}

// fromLog gives a statement the store kept no revisions of the proof
// revisions its events wrote; a revision neither has (a document written
// by hand) is shown as the current proof.
func (sd *StatementData) fromLog(revs []logRevision) {
	st := sd.Statement
	last := 0
	if len(sd.Revisions) == 0 {
		sd.Source = "log"
		for _, r := range revs {
			if r.Revision > last {
				last = r.Revision
				sd.Revisions = append(sd.Revisions, r.ProofRevisionView)
				sd.Causes = append(sd.Causes, r.Command)
			}
		}
	} else {
		last = sd.Revisions[len(sd.Revisions)-1].Revision
	}
	if st.Proof != nil && last < st.ProofRevision {
		if len(sd.Revisions) == 0 {
			sd.Source = "current"
		}
		sd.Revisions = append(sd.Revisions, loop.ProofRevisionView{Revision: st.ProofRevision, Text: *st.Proof,
			Strategy: deref(st.ProofStrategy), Author: deref(st.ProofAuthor)})
		sd.Causes = append(sd.Causes, "")
	}
	if len(sd.Revisions) > 0 {
		sd.FirstProofAt = sd.Revisions[0].At
	}
}

// loadDebates reads debate/<id>.json, if the store has any; a report limited
// to a problem keeps the debates about its statements.
func loadDebates(s *store.Store, d *Data) ([]*model.Debate, error) {
	ids, err := s.List(model.KindDebate)
	if err != nil {
		return nil, err
	}
	var out []*model.Debate
	for _, id := range ids {
		doc, err := s.Read(id)
		if err != nil {
			return nil, err
		}
		var db model.Debate
		if err := json.Unmarshal(doc.Raw, &db); err != nil {
			return nil, store.Errorf(store.CodeStoreDamaged, "debate %s does not parse", id).Wrap(err)
		}
		if d.Problem != "" && (db.About == nil || d.Items[db.About.Statement] == nil) {
			continue
		}
		out = append(out, &db)
	}
	return out, nil
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// instant parses an ISO 8601 time; the zero time when it does not parse.
func instant(ts string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, ts)
	return t
}

// usageOf reports whether ev is a run turn's usage on problem's tree.
func usageOf(ev *store.Event, problem string) bool {
	u, ok := ev.Detail["usage"].(map[string]any)
	return ev.Command == loop.UsageCommand && ok && u["root"] == problem
}
