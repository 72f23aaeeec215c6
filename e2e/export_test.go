package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// exportOut is what `export --json` prints.
type exportOut struct {
	OK     bool `json:"ok"`
	Export struct {
		Files   int `json:"files"`
		LastSeq int `json:"last_seq"`
	} `json:"export"`
	Report struct {
		Findings []json.RawMessage `json:"findings"`
		Log      struct {
			VerifiedSeq int `json:"verified_seq"`
		} `json:"log"`
	} `json:"report"`
}

// TestExportUnderLoad: `export` while 8 agent processes write. Each copy
// must be the store as of one commit: doctor on the copy is clean (export
// runs it and exits 6 otherwise), so every document of the copy is what the
// copy's log replays to, and that log is a byte prefix of the store's final
// log: the copy is the store's past at one seq, not a mix of two moments.
func TestExportUnderLoad(t *testing.T) {
	const agents = 8
	dir := t.TempDir()
	w := newWorld(t, filepath.Join(dir, "contents"), 60*scale())
	w.setup(2, 2)
	seed := seedFor(t)
	var wg sync.WaitGroup
	for n := range agents {
		wg.Go(func() { w.agent(rand.New(rand.NewPCG(seed, uint64(n))), fmt.Sprintf("agent%02d", n), 15*scale()) })
	}
	var copies []string
	var seqs []int
	for i := 0; i < 6; i++ {
		to := filepath.Join(dir, fmt.Sprintf("copy%d", i))
		r := plRun(w.c.root, -1, "", "export", "--to", to)
		var out exportOut
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != 0 || !out.OK || len(out.Report.Findings) > 0 {
			t.Fatalf("export %d while agents write: %v\nwant exit 0 and a clean doctor on the copy", i, r)
		}
		if out.Report.Log.VerifiedSeq != out.Export.LastSeq {
			t.Errorf("copy %d: doctor verified its log to seq %d; export says it ends at %d", i, out.Report.Log.VerifiedSeq, out.Export.LastSeq)
		}
		copies, seqs = append(copies, to), append(seqs, out.Export.LastSeq)
		time.Sleep(time.Duration(rand.IntN(150)) * time.Millisecond)
	}
	wg.Wait()
	final, err := os.ReadFile(filepath.Join(w.c.root, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range copies {
		log, err := os.ReadFile(filepath.Join(c, "events.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(final, log) {
			t.Errorf("copy %d: its event log (%d bytes, to seq %d) is not a prefix of the store's final log", i, len(log), seqs[i])
		}
	}
	if seqs[0] == seqs[len(seqs)-1] {
		t.Errorf("every copy ends at seq %d: the agents wrote nothing while the exports ran, so the test proved nothing", seqs[0])
	}
	t.Logf("copies at seqs %v; the store ended with %d bytes of log", seqs, len(final))
	doctorClean(t, w.c.root)
}

// TestExportKill: export killed with SIGKILL leaves the target absent or
// whole (never a half store), and the store clean and writable (the kernel
// drops the lock with the process). Two kills land at fixed steps
// (PROOFLOOP_TEST_CRASH: after the first file is copied, and just before the
// rename), so a half-made copy is always exercised; 20 more land at random
// moments.
func TestExportKill(t *testing.T) {
	dir := t.TempDir()
	w := newWorld(t, filepath.Join(dir, "contents"), 200)
	w.setup(4, 4)
	for _, step := range []string{"export-mid-copy", "export-before-rename"} {
		to := filepath.Join(dir, step)
		r := plRun(w.c.root, -1, step, "export", "--to", to)
		if !r.killed {
			t.Fatalf("export with PROOFLOOP_TEST_CRASH=%s: %v\nwant it killed at that step", step, r)
		}
		if _, err := os.Stat(to); !os.IsNotExist(err) {
			t.Errorf("killed at %s: %s exists (%v); want no target", step, to, err)
		}
	}
	whole, absent := 0, 0
	for i := range 20 {
		to := filepath.Join(dir, fmt.Sprintf("k%d", i))
		r := plRun(w.c.root, time.Duration(rand.IntN(120))*time.Millisecond, "", "export", "--to", to)
		if _, err := os.Stat(to); os.IsNotExist(err) {
			if r.code == 0 {
				t.Fatalf("export %d exited 0 but %s does not exist", i, to)
			}
			absent++
			continue
		}
		whole++
		doctorClean(t, to)
	}
	t.Logf("random kills: %d left no target, %d exports finished (or were killed after the rename)", absent, whole)
	doctorClean(t, w.c.root)
	plMust(t, w.c.root, "new-problem", "--name", "after_kills", "--objective", "The store takes writes after the kills.")
}
