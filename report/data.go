package report

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
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
}

// Load reads everything a report of s shows; problem ("" for all) limits it
// to one problem's subtree.
func Load(ctx context.Context, s *store.Store, problem string) (*Data, error) {
	d := &Data{Root: s.Dir, Problem: problem, Generated: store.Timestamp(s.Now()),
		Problems: map[string]*model.Problem{}, Statements: map[string]*StatementData{}}
	var snap *loop.Snapshot
	var err error
	if problem != "" {
		if k, kerr := model.KindOf(problem); kerr != nil || k != model.KindProblem {
			return nil, store.Errorf(store.CodeUsage, "--problem %q is not a problem id (prob_<name>)", problem)
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
	err = loop.Events(ctx, s, 0, false, func(seq int, line []byte) error {
		d.LastSeq = seq
		var ev store.Event
		if err := json.Unmarshal(line, &ev); err != nil {
			return store.Errorf(store.CodeStoreDamaged, "%s: seq %d does not parse", store.EventsFile, seq).Wrap(err)
		}
		if problem == "" || slices.ContainsFunc(ev.IDs, func(id string) bool { return d.Items[id] != nil }) {
			ev.Changes = slices.Clone(ev.Changes)
			for i := range ev.Changes {
				ev.Changes[i].Patch = nil // the timeline shows statuses; the patches are history's
			}
			d.Events = append(d.Events, ev)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// statementData finds a statement's proof revisions: the texts the store
// keeps (proofs/<id>.jsonl), else, for a store from before it kept them,
// the proof of each step of its history whose proof_revision changed
// (rebuilt from the events' patches); a revision neither has (a document
// written by hand) is shown as the current proof.
func statementData(s *store.Store, st *model.Statement) (*StatementData, error) {
	sd := &StatementData{Statement: st}
	kept, err := s.ProofRevisions(st.ID)
	if err != nil {
		return nil, err
	}
	last := 0
	for _, r := range kept {
		sd.Revisions = append(sd.Revisions, loop.ProofRevisionView{Revision: r.Revision, Text: r.Text,
			Strategy: deref(r.Strategy), Author: deref(r.Actor), At: r.At})
		sd.Causes = append(sd.Causes, r.Cause)
		last = r.Revision
	}
	sd.Source = "kept"
	if len(kept) == 0 {
		sd.Source = "log"
		steps, err := s.History(st.ID)
		if err != nil {
			return nil, fmt.Errorf("history of %s: %w", st.ID, err)
		}
		for _, step := range steps {
			if step.After == nil {
				continue
			}
			rev := int(gjson.GetBytes(step.After, "proof_revision").Int())
			proof := gjson.GetBytes(step.After, "proof")
			if rev <= last || proof.Type != gjson.String {
				continue
			}
			last = rev
			sd.Revisions = append(sd.Revisions, loop.ProofRevisionView{
				Revision: rev, Text: proof.String(), Strategy: gjson.GetBytes(step.After, "proof_strategy").String(),
				Author: deref(step.Event.Actor), At: step.Event.Time,
			})
			sd.Causes = append(sd.Causes, step.Event.Command)
		}
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
	return sd, nil
}

// loadDebates reads debate/<id>.json, if the store has any; a report limited
// to a problem keeps the debates about its statements.
func loadDebates(s *store.Store, d *Data) ([]*model.Debate, error) {
	if _, err := s.Root().Stat(model.KindDebate.Dir()); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
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
