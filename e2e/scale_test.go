package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/proofloop/proofloop/bench/storegen"
	"github.com/proofloop/proofloop/store"
	"github.com/proofloop/proofloop/store/doctor"
	"github.com/proofloop/proofloop/store/pgstore"
)

// TestScaleIndexAfterMix runs a random mix of at least 2,000 skill calls
// from 8 agent processes at a time (the agents of TestMixedWorkload), and
// then requires doctor to be clean: doctor compares every index row, turn
// key and event offset with a full scan of the documents, leases and log,
// so a skill whose index update went wrong under contention fails here.
// The snapshot invariants and the ledger (every success exactly once) must
// hold as well.
func TestScaleIndexAfterMix(t *testing.T) {
	const agents, want = 8, 2000
	seed := seedFor(t)
	w := newWorld(t, filepath.Join(t.TempDir(), "contents"), 300)
	w.setup(4, 2)
	start := time.Now()
	var wg sync.WaitGroup
	for n := range agents {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(seed, uint64(n)))
			for skillCalls(w.c.all()) < want && !t.Failed() {
				w.agent(rng, fmt.Sprintf("agent%02d", n), 10)
			}
		})
	}
	wg.Wait()
	got := skillCalls(w.c.all())
	t.Logf("%d agents: %d skill calls (%d calls in all) in %v", agents, got, len(w.c.all()), time.Since(start).Round(time.Millisecond))
	if got < want {
		t.Fatalf("skill calls: got %d; want >= %d", got, want)
	}
	doc := w.c.run(&call{Skill: "doctor", Expect: -1})
	if !doc.ok() || doc.Out.Report == nil || len(doc.Out.Report.Findings) > 0 {
		t.Fatalf("doctor after the mix (index against a full scan): %v", doc)
	}
	snap, err := readSnapshot(w.c.root)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range snap.check() {
		t.Error(b)
	}
	checkLedger(t, snap, w.c.all())
	logCounts(t, w.c.all())
}

// skillCalls counts the calls of skills (not show, doctor or init) that
// ran to the end, successful or refused.
func skillCalls(calls []*call) int {
	n := 0
	for _, k := range calls {
		if mutating(k.Skill) && !k.Killed {
			n++
		}
	}
	return n
}

// TestScaleClaimRace generates a store of 10,000 statements (with live and
// expired leases), takes 5 check items with ordinary claims first, and then
// races 32 processes at once, twice, each running `next --role check
// --claim`. Every racer must get an item; all 69 claims are distinct; none
// is an item that was held when it was claimed; each claimed item's lease
// file names its claimer; and doctor is clean afterwards.
func TestScaleClaimRace(t *testing.T) { scaleClaimRace(t, "") }

// TestScaleClaimRacePostgres is the same race on the PostgreSQL store: the
// generated store is imported into a fresh database first.
func TestScaleClaimRacePostgres(t *testing.T) { scaleClaimRace(t, newPostgres(t)) }

func scaleClaimRace(t *testing.T, dsn string) {
	root := filepath.Join(t.TempDir(), "contents")
	if _, err := storegen.Generate(root, storegen.Options{Statements: 10_000}); err != nil {
		t.Fatal(err)
	}
	if dsn != "" {
		gen := root
		root = filepath.Join(t.TempDir(), "machine")
		if out, err := exec.Command(bin, "import", "--from", gen, "--store", dsn, "--root", root).CombinedOutput(); err != nil {
			t.Fatalf("import: %v\n%s", err, out)
		}
		t.Setenv("PROOFLOOP_STORE", dsn)
	}
	held := map[string]string{} // item: holder
	for i := range 5 {
		it := claim(t, root, fmt.Sprintf("early%d", i))
		held[it.ID] = it.Lease
	}
	if len(held) != 5 {
		t.Fatalf("serial claims: got %d distinct items of 5", len(held))
	}
	for round := range 2 {
		items := make([]claimed, 32)
		var wg sync.WaitGroup
		for n := range items {
			wg.Go(func() { items[n] = claim(t, root, fmt.Sprintf("racer%d_%02d", round, n)) })
		}
		wg.Wait()
		for n, it := range items {
			if prev, dup := held[it.ID]; dup {
				t.Errorf("round %d: racer %d claimed %s, which was already claimed (lease %s)", round, n, it.ID, prev)
			}
			held[it.ID] = it.Lease
		}
	}
	if len(held) != 69 {
		t.Errorf("distinct claims: got %d; want 69", len(held))
	}
	s, err := store.Open(root)
	if dsn != "" {
		var b *pgstore.Store
		if b, err = pgstore.Open(dsn); err == nil {
			s, err = store.OpenBackend(root, b)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for id, token := range held {
		l, err := s.ReadLease(id)
		if err != nil || l == nil || l.Token != token || l.Role != "check" || !l.Live(time.Now()) {
			t.Errorf("lease of %s: got %+v, %v; want a live check lease with the claimer's token", id, l, err)
		}
	}
	out, err := exec.Command(bin, "--root", root, "--json", "doctor").CombinedOutput()
	var r struct {
		OK     bool `json:"ok"`
		Report struct {
			Findings []doctor.Finding `json:"findings"`
			Index    string           `json:"index"`
		} `json:"report"`
	}
	if err != nil || json.Unmarshal(out, &r) != nil || !r.OK || len(r.Report.Findings) > 0 || r.Report.Index != "consistent" {
		t.Errorf("doctor after the race: got %v, %.2000s; want clean", err, out)
	}
}

type claimed struct{ ID, Lease string }

// claim runs next --role check --claim as holder and returns its item. It
// fails the test (without stopping it) when there is none.
func claim(t *testing.T, root, holder string) claimed {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "--root", root, "--json", "next", "--role", "check", "--claim", "--holder", holder)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = append(os.Environ(), "PROOFLOOP_LOCK_TIMEOUT=120s")
	err := cmd.Run()
	var out struct {
		OK   bool `json:"ok"`
		Item *struct {
			ID    string `json:"id"`
			Role  string `json:"role"`
			Lease string `json:"lease"`
		} `json:"item"`
	}
	if err != nil || json.Unmarshal(stdout.Bytes(), &out) != nil || !out.OK || out.Item == nil || out.Item.Role != "check" ||
		!strings.HasPrefix(out.Item.ID, "stmt_") {
		t.Errorf("%s: next --claim: got %v, %s %s; want an item for check", holder, err, stdout.Bytes(), stderr.Bytes())
		return claimed{ID: "none-" + holder}
	}
	return claimed{out.Item.ID, out.Item.Lease}
}
