package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/proofloop/proofloop/store"
)

// The documents as these tests read them: only the fields the invariants
// look at, decoded independently of the model package, since the files are
// the contract.

type problemDoc struct {
	ID            string   `json:"id"`
	Status        string   `json:"status"`
	Revision      int      `json:"revision"`
	Objective     string   `json:"objective"`
	Parent        *string  `json:"parent"`
	Preliminaries []string `json:"preliminaries"`
	Progresses    []string `json:"progresses"`
}

type issue struct {
	IssueNumber int     `json:"issue_number"`
	Sentence    int     `json:"sentence"`
	Explanation string  `json:"explanation"`
	Actor       *string `json:"actor"`
}

type response struct {
	ResponseNumber    int     `json:"response_number"`
	IssueAddressed    int     `json:"issue_addressed"`
	IssuesAddressed   []int   `json:"issues_addressed"`
	Type              string  `json:"type"`
	SubStatementID    string  `json:"sub_statement_id"`
	ChangeDescription string  `json:"change_description"`
	Counterexample    string  `json:"counterexample"`
	Purpose           *string `json:"purpose"`
	RejectedAt        *string `json:"rejected_at"`
	Actor             *string `json:"actor"`
}

type confirmation struct {
	Actor               *string `json:"actor"`
	ProofRevision       int     `json:"proof_revision"`
	VerificationSummary *string `json:"verification_summary"`
}

type statementDoc struct {
	ID             string   `json:"id"`
	Status         string   `json:"status"`
	Revision       int      `json:"revision"`
	Claim          string   `json:"claim"`
	Context        string   `json:"context"`
	Proof          *string  `json:"proof"`
	ProofRevision  int      `json:"proof_revision"`
	SubStatements  []string `json:"sub_statements"`
	FillsGapAt     *int     `json:"fills_gap_at"`
	Counterexample *string  `json:"counterexample"`
	Validate       struct {
		Issues        []issue        `json:"issues"`
		Responses     []response     `json:"responses"`
		Confirmations []confirmation `json:"confirmations"`
	} `json:"validate"`
}

// openIssues mirrors DESIGN.md: an issue is open while no patch, false or
// modification response (not rejected) has addressed it. Agents use it only
// to choose what to try; the binary decides.
func (s *statementDoc) openIssues() []int {
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
	var open []int
	for _, is := range s.Validate.Issues {
		if !answered[is.IssueNumber] {
			open = append(open, is.IssueNumber)
		}
	}
	return open
}

type change struct {
	ID       string  `json:"id"`
	Kind     string  `json:"kind"`
	Before   *string `json:"before"`
	After    string  `json:"after"`
	Revision int     `json:"revision"`
}

type event struct {
	Seq     int      `json:"seq"`
	Actor   *string  `json:"actor"`
	Command string   `json:"command"`
	IDs     []string `json:"ids"`
	Changes []change `json:"changes"`
}

// snapshot is a contents root read from disk.
type snapshot struct {
	problems   map[string]*problemDoc
	statements map[string]*statementDoc
	raw        map[string]string // document id -> file content
	events     []event
	configSets int      // config-set events, left out of events
	strays     []string // files other than documents and the root's own
}

// docKey names a revision of a document.
type docKey struct {
	id  string
	rev int
}

func readSnapshot(root string) (*snapshot, error) {
	s := &snapshot{problems: map[string]*problemDoc{}, statements: map[string]*statementDoc{}, raw: map[string]string{}}
	top, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	for _, e := range top {
		// A dotfile other than the lock, the write-ahead log and doctor's
		// verified point is a leftover journal or temp file.
		// Other names (leases/, ...) belong to features these tests do not use.
		if n := e.Name(); strings.HasPrefix(n, ".") && n != ".lock" && n != store.WALFile && n != store.PointFile {
			s.strays = append(s.strays, n)
		}
		if n := e.Name(); e.IsDir() && n != "problem" && n != "statement" && !strings.HasPrefix(n, ".") {
			sub, err := os.ReadDir(filepath.Join(root, n))
			if err != nil {
				return nil, err
			}
			for _, f := range sub {
				if strings.HasPrefix(f.Name(), ".") {
					s.strays = append(s.strays, n+"/"+f.Name())
				}
			}
		}
	}
	for _, dir := range []string{"problem", "statement"} {
		entries, err := os.ReadDir(filepath.Join(root, dir))
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			id, ok := strings.CutSuffix(e.Name(), ".json")
			if !ok || strings.HasPrefix(e.Name(), ".") {
				s.strays = append(s.strays, dir+"/"+e.Name())
				continue
			}
			b, err := os.ReadFile(filepath.Join(root, dir, e.Name()))
			if err != nil {
				return nil, err
			}
			s.raw[id] = string(b)
			if dir == "problem" {
				var p problemDoc
				if err := json.Unmarshal(b, &p); err != nil {
					return nil, fmt.Errorf("%s/%s: %w", dir, e.Name(), err)
				}
				s.problems[id] = &p
			} else {
				var st statementDoc
				if err := json.Unmarshal(b, &st); err != nil {
					return nil, fmt.Errorf("%s/%s: %w", dir, e.Name(), err)
				}
				s.statements[id] = &st
			}
		}
	}
	b, err := os.ReadFile(filepath.Join(root, "events.jsonl"))
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var ev event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return nil, fmt.Errorf("events.jsonl line %d: %w", len(s.events)+1, err)
		}
		if ev.Command == "config-set" {
			s.configSets++ // world.configure's, which no audited call made
			continue
		}
		s.events = append(s.events, ev)
	}
	return s, nil
}

// revision returns a document's revision and whether it exists.
func (s *snapshot) revision(id string) (int, bool) {
	if p, ok := s.problems[id]; ok {
		return p.Revision, true
	}
	if st, ok := s.statements[id]; ok {
		return st.Revision, true
	}
	return 0, false
}

// containing returns the ids of the documents whose file contains text.
func (s *snapshot) containing(text string) []string {
	var ids []string
	for id, raw := range s.raw {
		if strings.Contains(raw, text) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// eventIndex maps each (document, revision) that an event wrote to that
// event.
func (s *snapshot) eventIndex() map[docKey]*event {
	idx := map[docKey]*event{}
	for i := range s.events {
		for _, ch := range s.events[i].Changes {
			idx[docKey{ch.ID, ch.Revision}] = &s.events[i]
		}
	}
	return idx
}

// check returns every way the snapshot breaks the store's invariants, by
// reading the files themselves (not trusting doctor):
//   - no leftover journal or temp file;
//   - every parent lists each child once, and every listed child names the
//     parent (problems: parent/preliminaries; problem/statement:
//     progresses/context; statements: sub_statements/context);
//   - issue numbers and response numbers of each statement are 1..N in
//     order;
//   - events have seq 1..N, each (document, revision) is written by exactly
//     one event, each document's revisions 1..R (R its revision now) all
//     appear, revision 1 is a creation (before null), and the change that
//     wrote revision R left the status the document has.
func (s *snapshot) check() []string {
	var bad []string
	badf := func(format string, args ...any) { bad = append(bad, fmt.Sprintf(format, args...)) }
	for _, f := range s.strays {
		badf("stray file %s", f)
	}
	for _, id := range sortedKeys(s.problems) {
		p := s.problems[id]
		if p.ID != id {
			badf("problem file %s has id %s", id, p.ID)
		}
		if p.Parent != nil {
			if par, ok := s.problems[*p.Parent]; !ok {
				badf("problem %s: parent %s does not exist", id, *p.Parent)
			} else if count(par.Preliminaries, id) != 1 {
				badf("problem %s: parent %s lists it %d times in preliminaries", id, *p.Parent, count(par.Preliminaries, id))
			}
		}
		for _, c := range p.Preliminaries {
			if ch, ok := s.problems[c]; !ok || ch.Parent == nil || *ch.Parent != id {
				badf("problem %s: preliminary %s does not exist or does not name it as parent", id, c)
			}
		}
		for _, c := range p.Progresses {
			if st, ok := s.statements[c]; !ok || st.Context != id {
				badf("problem %s: progress %s does not exist or has another context", id, c)
			}
		}
	}
	for _, id := range sortedKeys(s.statements) {
		st := s.statements[id]
		if st.ID != id {
			badf("statement file %s has id %s", id, st.ID)
		}
		if p, ok := s.problems[st.Context]; ok {
			if count(p.Progresses, id) != 1 {
				badf("statement %s: problem %s lists it %d times in progresses", id, st.Context, count(p.Progresses, id))
			}
		} else if par, ok := s.statements[st.Context]; ok {
			if count(par.SubStatements, id) != 1 {
				badf("statement %s: parent %s lists it %d times in sub_statements", id, st.Context, count(par.SubStatements, id))
			}
		} else {
			badf("statement %s: context %s does not exist", id, st.Context)
		}
		for _, c := range st.SubStatements {
			if ch, ok := s.statements[c]; !ok || ch.Context != id {
				badf("statement %s: sub-statement %s does not exist or has another context", id, c)
			}
		}
		for i, is := range st.Validate.Issues {
			if is.IssueNumber != i+1 {
				badf("statement %s: issue %d of %d has issue_number %d", id, i+1, len(st.Validate.Issues), is.IssueNumber)
			}
		}
		for i, r := range st.Validate.Responses {
			if r.ResponseNumber != i+1 {
				badf("statement %s: response %d of %d has response_number %d", id, i+1, len(st.Validate.Responses), r.ResponseNumber)
			}
			if r.IssueAddressed < 1 || r.IssueAddressed > len(st.Validate.Issues) {
				badf("statement %s: response %d addresses issue %d, which does not exist", id, r.ResponseNumber, r.IssueAddressed)
			}
		}
	}
	seen := map[docKey]int{}
	for i, ev := range s.events {
		if ev.Seq != s.configSets+i+1 { // the config-set events come first
			badf("events.jsonl line %d has seq %d", s.configSets+i+1, ev.Seq)
		}
		for _, ch := range ev.Changes {
			k := docKey{ch.ID, ch.Revision}
			if prev, dup := seen[k]; dup {
				badf("events %d and %d both wrote revision %d of %s", prev, ev.Seq, ch.Revision, ch.ID)
			}
			seen[k] = ev.Seq
			if (ch.Revision == 1) != (ch.Before == nil) {
				badf("event %d: revision %d of %s has before %v", ev.Seq, ch.Revision, ch.ID, ch.Before)
			}
		}
	}
	idx := s.eventIndex()
	for _, id := range sortedKeys(s.raw) {
		rev, _ := s.revision(id)
		for r := 1; r <= rev; r++ {
			if _, ok := idx[docKey{id, r}]; !ok {
				badf("%s is at revision %d but no event wrote its revision %d", id, rev, r)
			}
		}
		if _, ok := idx[docKey{id, rev + 1}]; ok {
			badf("%s is at revision %d but an event wrote revision %d", id, rev, rev+1)
		}
		if ev, ok := idx[docKey{id, rev}]; ok {
			for _, ch := range ev.Changes {
				status := ""
				if p, ok := s.problems[id]; ok {
					status = p.Status
				} else {
					status = s.statements[id].Status
				}
				if ch.ID == id && ch.Revision == rev && ch.After != status {
					badf("%s is %s, but event %d, which wrote its revision %d, left it %s", id, status, ev.Seq, rev, ch.After)
				}
			}
		}
	}
	for k := range seen {
		if _, ok := s.raw[k.id]; !ok {
			badf("event %d wrote %s, which does not exist", seen[k], k.id)
		}
	}
	return bad
}

func count(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
