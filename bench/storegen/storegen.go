// Package storegen writes large, valid contents roots fast, for the
// benchmarks and the scale tests. Every document is a clone of a template
// that the real skills made in a small store (so every status, issue and
// response is one the skills can produce), renamed; the event log holds one
// real sealed event per clone, whose changes carry each document's creation
// patch (from {} to the document) and its revision; the index is built
// with the store's own Reindex. So `proofloop doctor` passes on the result:
// schemas, references, hash chain, replay and index all agree.
//
// Besides the bulk, Options.Reserve asks for items in the states the
// benchmarks act on, each in its own problem, so that every measured
// command has a fresh item: see Reserved for their ids.
package storegen

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/tidwall/gjson"
	"github.com/tidwall/pretty"
	"github.com/tidwall/sjson"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// Shapes a reservation can ask for. Each is one problem prob_<name> whose
// wrap-up statement stmt_<name>_wrap is in the state the shape names:
// problem (no statement yet), pending, awaiting (awaiting_verification,
// proof by "prover"), gap (has_gap, issue 1 open at sentence 2, Quote),
// true, modify (needs_modification). The big shapes are a statement with a
// proof of BigProofBytes and BigIssues open issues, all quoting sentence 2:
// biggap is has_gap, bigpending is pending.
var Shapes = []string{"problem", "pending", "awaiting", "gap", "true", "modify", "biggap", "bigpending"}

// The size of the big shapes.
const (
	BigProofBytes = 100_000
	BigIssues     = 300
)

// Options says what to generate.
type Options struct {
	// Statements is how many bulk statements to write (the reserved items
	// come on top). They come in trees of TreeStatements (see the "tree"
	// recipe), the remainder as pending wrap-up statements.
	Statements int
	// Reserve is how many items of each shape to add, by shape name.
	Reserve map[string]int
}

// Summary is what Generate wrote.
type Summary struct {
	Problems, Statements, Events, Leases int
}

// Reserved returns the problem and wrap-up statement ids of the i-th
// (from 0) reserved item of a shape.
func Reserved(shape string, i int) (prob, stmt string) {
	name := fmt.Sprintf("r%s%04d", shape, i)
	return "prob_" + name, "stmt_" + name + "_wrap"
}

// Generate writes a new contents root at dir, which must not exist or be
// empty.
func Generate(dir string, o Options) (*Summary, error) {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("%s is not empty", dir)
	}
	for shape := range o.Reserve {
		if !slices.Contains(Shapes, shape) {
			return nil, fmt.Errorf("unknown shape %q; use one of %v", shape, Shapes)
		}
	}
	tplOnce.Do(func() { tpls, patches, tplErr = makeTemplates() })
	if tplErr != nil {
		return nil, tplErr
	}

	clones := cloneList(o)
	if _, err := store.Init(dir); err != nil {
		return nil, err
	}
	events, leases, err := writeClones(dir, clones)
	if err != nil {
		return nil, err
	}
	sum, err := writeLog(dir, events, leases)
	if err != nil {
		return nil, err
	}
	syscall.Sync()
	s, err := store.Open(dir)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	if _, err := s.Reindex(); err != nil {
		return nil, fmt.Errorf("reindex: %w", err)
	}
	return sum, nil
}

// clone is one copy of a template: its shape and the name its ids carry.
type clone struct{ shape, name string }

// cloneList lists the clones, in order: the bulk trees, the remainder, the
// reserved.
func cloneList(o Options) []clone {
	var clones []clone
	per := statementsIn(tpls["tree"])
	for i := range o.Statements / per {
		clones = append(clones, clone{"tree", fmt.Sprintf("g%06d", i)})
	}
	for i := range o.Statements % per {
		clones = append(clones, clone{"pending", fmt.Sprintf("f%06d", i)})
	}
	for _, shape := range Shapes {
		for i := range o.Reserve[shape] {
			p, _ := Reserved(shape, i)
			clones = append(clones, clone{shape, strings.TrimPrefix(p, "prob_")})
		}
	}
	return clones
}

// writeClones writes every clone's documents on every core, and returns
// each clone's changes and the leases it wrote.
func writeClones(dir string, clones []clone) ([][]store.Change, []map[string]any, error) {
	events := make([][]store.Change, len(clones))
	leases := make([]map[string]any, len(clones))
	var wg sync.WaitGroup
	var errMu sync.Mutex
	var firstErr error
	next := make(chan int)
	for range runtime.NumCPU() {
		wg.Go(func() {
			for i := range next {
				c := clones[i]
				changes, nl, err := writeClone(dir, tpls[c.shape], patches[c.shape], c.name, c.shape == "tree" && i%5 == 0, c.shape == "tree" && i%5 == 2)
				if err != nil {
					errMu.Lock()
					firstErr = err
					errMu.Unlock()
				}
				events[i], leases[i] = changes, nl
			}
		})
	}
	for i := range clones {
		next <- i
	}
	close(next)
	wg.Wait()
	return events, leases, firstErr
}

// writeLog writes events.jsonl: one sealed event per clone, which records
// the leases the clone wrote.
func writeLog(dir string, events [][]store.Change, leases []map[string]any) (*Summary, error) {
	sum := &Summary{}
	var log bytes.Buffer
	prev := ""
	for i, changes := range events {
		ev := store.Event{Seq: i + 1, Time: store.Timestamp(epoch), Command: "bench-gen", IDs: []string{}, Changes: changes}
		if len(leases[i]) > 0 {
			// The log records every lease it wrote, as a claim's event does:
			// doctor compares the lease files with it.
			ev.Detail = map[string]any{store.LeasesDetail: leases[i]}
		}
		for _, ch := range changes {
			ev.IDs = append(ev.IDs, ch.ID)
			if ch.Kind == model.KindProblem {
				sum.Problems++
			} else {
				sum.Statements++
			}
		}
		line, h, err := store.Seal(ev, prev)
		if err != nil {
			return nil, err
		}
		log.Write(line)
		log.WriteByte('\n')
		prev = h
		sum.Leases += len(leases[i])
	}
	sum.Events = len(events)
	if err := os.WriteFile(filepath.Join(dir, store.EventsFile), log.Bytes(), 0o644); err != nil {
		return nil, err
	}
	return sum, nil
}

// The templates and their creation patches, made once per process: they
// do not depend on the options, and making them takes seconds of skill
// calls.
var (
	tplOnce sync.Once
	tpls    map[string]*template
	patches map[string]map[string][]byte // shape, path: the creation patch
	tplErr  error
)

func makeTemplates() (map[string]*template, map[string]map[string][]byte, error) {
	tmp, err := os.MkdirTemp("", "proofloop-gen-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(tmp)
	tpls := map[string]*template{}
	for _, shape := range []string{"tree", "problem", "pending", "awaiting", "gap", "true", "modify"} {
		if tpls[shape], err = makeTemplate(tmp, shape); err != nil {
			return nil, nil, err
		}
	}
	if tpls["biggap"], err = bigTemplate(tpls["gap"], model.StatementHasGap); err != nil {
		return nil, nil, err
	}
	if tpls["bigpending"], err = bigTemplate(tpls["gap"], model.StatementPending); err != nil {
		return nil, nil, err
	}
	patches := map[string]map[string][]byte{}
	for shape, t := range tpls {
		patches[shape] = map[string][]byte{}
		for p, raw := range t.files {
			if patches[shape][p], err = store.Patch([]byte("{}"), raw); err != nil {
				return nil, nil, err
			}
		}
	}
	return tpls, patches, nil
}

// writeClone writes one clone of t named name and returns the changes of
// its creation event and how many leases it wrote. A tree clone may get a
// live lease on its has_gap statement (liveLease) or an expired one on its
// awaiting_verification statement (expired).
func writeClone(dir string, t *template, patches map[string][]byte, name string, liveLease, expired bool) ([]store.Change, map[string]any, error) {
	r := strings.NewReplacer(`"prob_`+templateName, `"prob_`+name, `"stmt_`+templateName+"_", `"stmt_`+name+"_")
	var changes []store.Change
	for _, p := range t.order {
		raw := []byte(r.Replace(string(t.files[p])))
		id := gjson.GetBytes(raw, "id").String()
		kind, err := model.KindOf(id)
		if err != nil {
			return nil, nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, store.DocPath(kind, id)), raw, 0o644); err != nil {
			return nil, nil, err
		}
		changes = append(changes, store.Change{ID: id, Kind: kind, After: model.Status(gjson.GetBytes(raw, "status").String()),
			Revision: int(gjson.GetBytes(raw, "revision").Int()), Patch: json.RawMessage(r.Replace(string(patches[p])))})
	}
	recs := map[string]any{}
	for _, l := range []struct {
		on              bool
		id, role, until string
	}{
		{liveLease, "stmt_" + name + "_wrap_sub1_sub2", "fix", "2099-01-01T00:00:00.000Z"},
		{expired, "stmt_" + name + "_wrap_sub1_sub1_sub2", "check", "2026-01-01T00:10:00.000Z"},
	} {
		if !l.on {
			continue
		}
		sum := sha256.Sum256([]byte(l.id))
		b, err := json.MarshalIndent(store.Lease{ID: l.id, Role: l.role, Holder: "agent-" + l.role, Token: hex.EncodeToString(sum[:16]),
			ClaimedAt: store.Timestamp(epoch), ExpiresAt: l.until}, "", "  ")
		if err != nil {
			return nil, nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, store.LeaseDir, l.id+".json"), append(b, '\n'), 0o644); err != nil {
			return nil, nil, err
		}
		rec, err := store.LeaseRecord(b)
		if err != nil {
			return nil, nil, err
		}
		recs[l.id] = rec
	}
	return changes, recs, nil
}

func statementsIn(t *template) int {
	n := 0
	for _, p := range t.order {
		if strings.HasPrefix(p, "statement/") {
			n++
		}
	}
	return n
}

// bigTemplate turns the gap template's wrap-up statement into a big one in
// status st: its proof grows to BigProofBytes (sentence 2 is still Quote)
// and it gets BigIssues open issues, copies of issue 1 renumbered.
func bigTemplate(gap *template, st model.Status) (*template, error) {
	t := &template{files: maps.Clone(gap.files), order: gap.order}
	p := "statement/stmt_" + templateName + "_wrap.json"
	raw := t.files[p]
	var proof strings.Builder
	proof.WriteString(ProofText)
	for k := 3; proof.Len() < BigProofBytes; k++ {
		fmt.Fprintf(&proof, " Step %d: The %d-th odd number is %d, so the partial sum up to it is %d, a square.", k, k, 2*k-1, k*k)
	}
	issue := gjson.GetBytes(raw, "validate.issues.0").Raw
	var issues []string
	for n := 1; n <= BigIssues; n++ {
		is, err := sjson.Set(issue, "issue_number", n)
		if err != nil {
			return nil, err
		}
		issues = append(issues, is)
	}
	var err error
	for _, set := range []struct {
		path string
		raw  string
	}{
		{"proof", string(mustJSON(proof.String()))},
		{"validate.issues", "[" + strings.Join(issues, ",") + "]"},
		{"status", string(mustJSON(string(st)))},
	} {
		if raw, err = sjson.SetRawBytes(raw, set.path, []byte(set.raw)); err != nil {
			return nil, err
		}
	}
	t.files[p] = pretty.Pretty(raw)
	return t, nil
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
