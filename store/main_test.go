package store_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/schemas"
	"github.com/proofloop/proofloop/store"
	"github.com/proofloop/proofloop/store/storetest"
)

// The multi-process tests re-execute the test binary as child processes, the
// way cmd/go's lockedfile tests do: TestMain sees envChild and runs that
// child's body instead of the tests. A child gets its arguments through
// the environment and reports through its exit status, stdout and stderr.
const (
	envChild = "PROOFLOOP_STORE_TEST_CHILD" // which child body to run
	envRoot  = "PROOFLOOP_STORE_TEST_ROOT"  // the contents root
	envProc  = "PROOFLOOP_STORE_TEST_PROC"  // the child's number, for unique tags
	envN     = "PROOFLOOP_STORE_TEST_N"     // how many transactions to run
	envCrash = "PROOFLOOP_TEST_CRASH"       // the store's crash hook (store/journal.go)
)

// The two documents every transaction of these tests changes together.
const (
	docA = "prob_a"
	docB = "prob_b"
)

var children = map[string]func() error{
	"lostupdate": childLostUpdate,
	"crashloop":  childCrashLoop,
	"crashonce":  childCrashOnce,
}

func TestMain(m *testing.M) {
	if name := os.Getenv(envChild); name != "" {
		body, ok := children[name]
		if !ok {
			fmt.Fprintf(os.Stderr, "unknown test child %q\n", name)
			os.Exit(2)
		}
		if err := body(); err != nil {
			fmt.Fprintf(os.Stderr, "child %s: %v\n", name, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Getenv(envCrash) != "" {
		// The store read it at init: every commit of this process would kill it.
		fmt.Fprintf(os.Stderr, "unset %s to run the store tests\n", envCrash)
		os.Exit(2)
	}
	os.Exit(m.Run())
}

// soak scales a count up tenfold for `make soak` (PROOFLOOP_SOAK=1).
func soak(n int) int {
	if os.Getenv("PROOFLOOP_SOAK") == "1" {
		return 10 * n
	}
	return n
}

// childCmd is a command that runs the test binary as the named child.
func childCmd(name string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k != envCrash && !strings.HasPrefix(k, "PROOFLOOP_STORE_TEST_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, envChild+"="+name)
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// newRoot makes a contents root holding prob_a and prob_b, created together
// by the transaction with seq 1, both with an empty hypothesis list.
func newRoot(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "contents")
	if _, err := store.Init(dir); err != nil {
		t.Fatal(err)
	}
	storetest.Create(t, openStore(t, dir), docA, docB)
	return dir
}

func openStore(t testing.TB, dir string) *store.Store {
	t.Helper()
	s, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.LockTimeout = 2 * time.Minute
	t.Cleanup(func() { s.Close() })
	return s
}

// subTag reports whether the transaction of tag also creates a subproblem.
func subTag(tag string) bool { return strings.HasSuffix(tag, "/sub") }

// appendTag is the transaction body the children run: read both documents
// (first in the order given), check they agree, append tag to both
// hypothesis lists, and for a /sub tag create prob_a's next subproblem
// and list it in prob_a's preliminaries. The event's detail records the tag.
func appendTag(tx *store.Tx, first, second, tag string) error {
	d1, err := tx.Get(first)
	if err != nil {
		return err
	}
	d2, err := tx.Get(second)
	if err != nil {
		return err
	}
	h1, h2 := d1.Get("hypothesis").Raw, d2.Get("hypothesis").Raw
	if h1 != h2 {
		return fmt.Errorf("%s and %s disagree before %s: %s vs %s", first, second, tag, h1, h2)
	}
	for _, d := range []*store.Doc{d1, d2} {
		if err := d.Set("hypothesis.-1", tag); err != nil {
			return err
		}
	}
	tx.Detail("tag", tag)
	if !subTag(tag) {
		return nil
	}
	a := d1
	if first != docA {
		a = d2
	}
	p, err := a.Problem()
	if err != nil {
		return err
	}
	gen := func(n int) string { return model.SubproblemID(docA, n) }
	id := gen(model.NextNumber(p.Preliminaries, gen))
	parent := docA
	sub := model.Problem{Status: model.ProblemPending, Objective: "subproblem of " + tag,
		Hypothesis: []string{tag}, Parent: &parent, Preliminaries: []string{}, Progresses: []string{}}
	if _, err := tx.Create(id, sub); err != nil {
		return err
	}
	return a.Set("preliminaries.-1", id)
}

// state is what a contents root of these tests holds, read straight from
// the files, with no help from the store.
type state struct {
	a, b   model.Problem
	subs   map[string]model.Problem
	events []store.Event
}

// checkStore checks, from the files alone, that the root at dir holds
// exactly the transactions of want, in that order, each whole: both
// hypothesis lists equal want; one event per transaction after the setup
// event, seq 1..N, each naming its tag, in the same order; revisions count
// the writes; one subproblem per /sub tag, listed by prob_a; every file
// passes its schema; no journal and no temp file is left (call it after
// recovery).
func checkStore(t testing.TB, dir string, want []string) *state {
	t.Helper()
	st := readState(t, dir)
	if !slices.Equal(st.a.Hypothesis, want) {
		t.Errorf("%s hypothesis = %q; want %q", docA, st.a.Hypothesis, want)
	}
	if !slices.Equal(st.b.Hypothesis, st.a.Hypothesis) {
		t.Errorf("%s hypothesis = %q; want the same as %s's %q", docB, st.b.Hypothesis, docA, st.a.Hypothesis)
	}
	if len(st.events) != len(want)+1 {
		t.Errorf("%s has %d events; want %d (setup + %d transactions)", store.EventsFile, len(st.events), len(want)+1, len(want))
	}
	var wantSubs []string
	for i, ev := range st.events {
		if ev.Seq != i+1 {
			t.Errorf("event %d has seq %d; want %d", i+1, ev.Seq, i+1)
		}
		if i == 0 {
			continue
		}
		tag, _ := ev.Detail["tag"].(string)
		if i-1 < len(want) && tag != want[i-1] {
			t.Errorf("event %d is for tag %q; want %q", ev.Seq, tag, want[i-1])
		}
		revs := map[string]int{}
		for _, c := range ev.Changes {
			revs[c.ID] = c.Revision
		}
		if revs[docA] != ev.Seq || revs[docB] != ev.Seq {
			t.Errorf("event %d records revisions %v; want %s and %s at revision %d", ev.Seq, revs, docA, docB, ev.Seq)
		}
		if subTag(tag) {
			id := model.SubproblemID(docA, len(wantSubs)+1)
			wantSubs = append(wantSubs, id)
			if revs[id] != 1 || len(ev.Changes) != 3 {
				t.Errorf("event %d changes %v; want %s, %s and the new %s at revision 1", ev.Seq, revs, docA, docB, id)
			}
		} else if len(ev.Changes) != 2 {
			t.Errorf("event %d changes %v; want only %s and %s", ev.Seq, revs, docA, docB)
		}
	}
	if st.a.Revision != len(want)+1 || st.b.Revision != len(want)+1 {
		t.Errorf("revisions: %s %d, %s %d; want both %d (created, then %d writes)", docA, st.a.Revision, docB, st.b.Revision, len(want)+1, len(want))
	}
	if !slices.Equal(st.a.Preliminaries, wantSubs) {
		t.Errorf("%s preliminaries = %q; want %q", docA, st.a.Preliminaries, wantSubs)
	}
	if len(st.subs) != len(wantSubs) {
		t.Errorf("%d subproblem files; want %d", len(st.subs), len(wantSubs))
	}
	var subTags []string
	for _, tag := range want {
		if subTag(tag) {
			subTags = append(subTags, tag)
		}
	}
	for i, id := range wantSubs {
		sub, ok := st.subs[id]
		if !ok {
			t.Errorf("subproblem %s is missing", id)
			continue
		}
		if sub.Parent == nil || *sub.Parent != docA || sub.Revision != 1 || i >= len(subTags) || !slices.Equal(sub.Hypothesis, subTags[i:i+1]) {
			t.Errorf("subproblem %s: parent %v, revision %d, hypothesis %q; want parent %s, revision 1, the hypothesis of the %d-th /sub tag",
				id, sub.Parent, sub.Revision, sub.Hypothesis, docA, i+1)
		}
	}
	return st
}

// readState reads and schema-checks every file of the root at dir and
// fails on any file a finished store should not hold.
func readState(t testing.TB, dir string) *state {
	t.Helper()
	st := &state{subs: map[string]model.Problem{}}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		switch e.Name() {
		case store.ConfigFile, store.EventsFile, store.IndexFile, store.WALFile, store.PointFile, string(model.KindProblem), string(model.KindStatement), store.LeaseDir:
		default:
			t.Errorf("unexpected file %s in the root after recovery", e.Name())
		}
	}
	for _, d := range []string{string(model.KindStatement), store.LeaseDir} {
		entries, err := os.ReadDir(filepath.Join(dir, d))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		for _, e := range entries {
			t.Errorf("unexpected file %s/%s: these tests write no statement and no lease", d, e.Name())
		}
	}
	err = filepath.WalkDir(filepath.Join(dir, "problem"), func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if _, err := model.KindOf(id); !ok || err != nil {
			t.Errorf("unexpected file problem/%s after recovery", e.Name())
			return nil
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := schemas.Validate(schemas.Problem, raw); err != nil {
			t.Errorf("problem/%s: %v", e.Name(), err)
			return nil
		}
		var pr model.Problem
		if err := json.Unmarshal(raw, &pr); err != nil {
			return err
		}
		if pr.ID != id {
			t.Errorf("problem/%s has id %q", e.Name(), pr.ID)
		}
		switch id {
		case docA:
			st.a = pr
		case docB:
			st.b = pr
		default:
			st.subs[id] = pr
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if st.a.ID == "" || st.b.ID == "" {
		t.Fatalf("%s or %s is missing", docA, docB)
	}
	st.events = readEvents(t, dir)
	return st
}

// readEvents schema-checks and decodes every line of events.jsonl.
func readEvents(t testing.TB, dir string) []store.Event {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, store.EventsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) > 0 && raw[len(raw)-1] != '\n' {
		t.Errorf("%s does not end in a newline", store.EventsFile)
	}
	var evs []store.Event
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if err := schemas.Validate(schemas.Event, sc.Bytes()); err != nil {
			t.Errorf("%s line %d: %v", store.EventsFile, len(evs)+1, err)
		}
		var ev store.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("%s line %d: %v", store.EventsFile, len(evs)+1, err)
		}
		evs = append(evs, ev)
	}
	return evs
}

// doctorClean runs the full check and fails on any finding.
var doctorClean = store.DoctorClean

func envInt(name string) (int, error) {
	n, err := strconv.Atoi(os.Getenv(name))
	if err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	return n, nil
}
