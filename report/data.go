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
	// RevisionsRebuilt says the revisions came from the event log's
	// patches; when false, only the current proof is known.
	RevisionsRebuilt bool
	FirstProofAt     string
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

// statementData rebuilds a statement's proof revisions from its history:
// the proof of each step whose proof_revision changed. A store whose early
// events carry no patches (or a document written by hand) still shows its
// current proof.
func statementData(s *store.Store, st *model.Statement) (*StatementData, error) {
	sd := &StatementData{Statement: st}
	steps, err := s.History(st.ID)
	if err != nil {
		return nil, fmt.Errorf("history of %s: %w", st.ID, err)
	}
	last := 0
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
	}
	sd.RevisionsRebuilt = len(sd.Revisions) > 0
	if st.Proof != nil && last < st.ProofRevision {
		sd.Revisions = append(sd.Revisions, loop.ProofRevisionView{Revision: st.ProofRevision, Text: *st.Proof,
			Strategy: deref(st.ProofStrategy), Author: deref(st.ProofAuthor)})
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
