package store

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/schemas"
)

// Finding is one thing doctor found wrong, at a root-relative path.
type Finding struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// Report is what doctor did and found.
type Report struct {
	Recovery   Recovery  `json:"-"`
	Journal    string    `json:"journal"` // none, finished or discarded
	Swept      []string  `json:"swept"`
	Problems   int       `json:"problems"`
	Statements int       `json:"statements"`
	Events     int       `json:"events"`
	Findings   []Finding `json:"findings"`
}

// tempRe matches renameio's temp names for the store's own files: "." +
// target name + a random number, where the target is a document, a lease,
// config.json or the journal. Other dotfiles are left alone.
var tempRe = regexp.MustCompile(`^\.(\.journal|[a-z0-9_]+\.json)[0-9]+$`)

// Doctor checks the whole store under the lock: it finishes or discards a
// leftover journal, removes stale temp files (under the lock no transaction
// is writing, so every temp file is stale), schema-checks every file and
// checks every cross-reference. Findings mean the store is damaged.
func (s *Store) Doctor() (*Report, error) {
	unlock, err := lock(s.root, s.Dir, s.LockTimeout)
	if err != nil {
		return nil, err
	}
	defer unlock()
	rec, err := s.recover()
	if err != nil {
		return nil, err
	}
	r := &Report{Recovery: rec, Journal: "none", Swept: []string{}, Findings: []Finding{}}
	switch {
	case rec.Finished:
		r.Journal = fmt.Sprintf("finished transaction %d", rec.Seq)
	case rec.Found:
		r.Journal = "discarded: " + rec.Discarded
	}
	bad := func(p, format string, args ...any) {
		r.Findings = append(r.Findings, Finding{p, fmt.Sprintf(format, args...)})
	}
	if _, err := s.Config(); err != nil {
		bad(ConfigFile, "%v", err)
	}
	problems := map[string]*model.Problem{}
	statements := map[string]*model.Statement{}
	present := map[string]bool{} // every document file, damaged or not
	for _, dir := range []string{".", string(model.KindProblem), string(model.KindStatement), LeaseDir} {
		entries, err := fs.ReadDir(s.root.FS(), dir)
		if dir == LeaseDir && errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			bad(dir, "cannot list: %v", err)
			continue
		}
		for _, e := range entries {
			name := e.Name()
			p := strings.TrimPrefix(dir+"/"+name, "./")
			if strings.HasPrefix(name, ".") && tempRe.MatchString(name) && e.Type().IsRegular() {
				if err := s.root.Remove(p); err == nil {
					r.Swept = append(r.Swept, p)
				}
				continue
			}
			if dir == "." || strings.HasPrefix(name, ".") {
				continue // the root's own files; dotfiles such as .gitkeep
			}
			if dir == LeaseDir {
				if id, ok := strings.CutSuffix(name, ".json"); !ok {
					bad(p, "unexpected file: leases are named <id>.json")
				} else if _, err := s.ReadLease(id); err != nil {
					bad(p, "%v", err)
				}
				continue
			}
			present[strings.TrimSuffix(name, ".json")] = true
			s.checkDoc(model.Kind(dir), p, name, problems, statements, bad)
		}
	}
	r.Problems, r.Statements = len(problems), len(statements)
	// A reference to a file that is there but damaged is reported once,
	// as the damaged file, not again as missing.
	checkRefs(problems, statements, func(p, format string, args ...any) {
		if len(args) > 0 && present[fmt.Sprint(args[0])] && strings.Contains(format, "does not exist") {
			return
		}
		bad(p, format, args...)
	})
	r.Events = s.checkEvents(bad)
	slices.SortFunc(r.Findings, func(a, b Finding) int { return strings.Compare(a.Path+a.Message, b.Path+b.Message) })
	return r, nil
}

func (s *Store) checkDoc(k model.Kind, p, name string, problems map[string]*model.Problem, statements map[string]*model.Statement, bad func(string, string, ...any)) {
	id, ok := strings.CutSuffix(name, ".json")
	if kk, err := model.KindOf(id); !ok || err != nil || kk != k {
		bad(p, "unexpected file: documents here are named <%s id>.json", k)
		return
	}
	raw, err := s.root.ReadFile(p)
	if err != nil {
		bad(p, "cannot read: %v", err)
		return
	}
	if err := schemas.Validate(schemas.Kind(k), raw); err != nil {
		bad(p, "%v", err)
		return
	}
	d := &Doc{ID: id, Kind: k, Raw: raw}
	if got := d.Get("id").String(); got != id {
		bad(p, "its id field is %q, not %q", got, id)
		return
	}
	if k == model.KindProblem {
		if pr, err := d.Problem(); err == nil {
			problems[id] = pr
		}
	} else if st, err := d.Statement(); err == nil {
		statements[id] = st
	}
}

// checkRefs checks that every reference names an existing document of the
// right kind and that parent and child agree on each link.
func checkRefs(problems map[string]*model.Problem, statements map[string]*model.Statement, bad func(string, string, ...any)) {
	for _, id := range slices.Sorted(maps.Keys(problems)) {
		p, path := problems[id], DocPath(model.KindProblem, id)
		if p.Parent != nil {
			if par, ok := problems[*p.Parent]; !ok {
				bad(path, "parent %s does not exist", *p.Parent)
			} else if !slices.Contains(par.Preliminaries, id) {
				bad(path, "parent %s does not list it in preliminaries", *p.Parent)
			}
		}
		for _, c := range p.Preliminaries {
			if ch, ok := problems[c]; !ok {
				bad(path, "preliminary %s does not exist", c)
			} else if ch.Parent == nil || *ch.Parent != id {
				bad(path, "preliminary %s does not name it as parent", c)
			}
		}
		for _, c := range p.Progresses {
			if st, ok := statements[c]; !ok {
				bad(path, "progress %s does not exist", c)
			} else if st.Context != id {
				bad(path, "progress %s has context %s", c, st.Context)
			}
		}
		if p.ResolvedBy != nil && !slices.Contains(p.Progresses, *p.ResolvedBy) {
			bad(path, "resolved_by %s is not in its progresses", *p.ResolvedBy)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(statements)) {
		st, path := statements[id], DocPath(model.KindStatement, id)
		if k, _ := model.KindOf(st.Context); k == model.KindProblem {
			if p, ok := problems[st.Context]; !ok {
				bad(path, "context %s does not exist", st.Context)
			} else if !slices.Contains(p.Progresses, id) {
				bad(path, "context %s does not list it in progresses", st.Context)
			}
		} else if par, ok := statements[st.Context]; !ok {
			bad(path, "context %s does not exist", st.Context)
		} else if !slices.Contains(par.SubStatements, id) {
			bad(path, "context %s does not list it in sub_statements", st.Context)
		}
		for _, c := range st.SubStatements {
			if ch, ok := statements[c]; !ok {
				bad(path, "sub-statement %s does not exist", c)
			} else if ch.Context != id {
				bad(path, "sub-statement %s has context %s", c, ch.Context)
			}
		}
	}
}

// checkEvents schema-checks every line of the log and that seq counts up by
// one. It returns the number of events.
func (s *Store) checkEvents(bad func(string, string, ...any)) int {
	raw, err := s.root.ReadFile(EventsFile)
	if err != nil {
		bad(EventsFile, "cannot read: %v", err)
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(nil, 64<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Bytes()
		if err := schemas.Validate(schemas.Event, line); err != nil {
			bad(EventsFile, "line %d: %v", n, err)
			continue
		}
		var head struct{ Seq int }
		json.Unmarshal(line, &head)
		if head.Seq != n {
			bad(EventsFile, "line %d has seq %d, want %d", n, head.Seq, n)
		}
	}
	return n
}
