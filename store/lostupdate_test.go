package store_test

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/proofloop/proofloop/store"
)

// File store only: this test runs many processes against one root to show
// that the flock on a separate lock file serialises them, even while the
// lock file is deleted under them. The same no-lost-update property, in
// one process, runs on every backend in the conformance suite.

// TestLostUpdate runs 16 processes that each make 50 read-modify-write
// transactions on the same two documents at once. Each transaction appends
// its own tag to both hypothesis lists. A lost update (two transactions that
// read the same state) drops a tag; a torn one leaves the lists unequal;
// either breaks the exact accounting checked at the end.
//
// Meanwhile another goroutine deletes and recreates .lock in a loop, as a
// cleanup script or `git clean` would (issue 10, defect 1): stores that
// locked that file let a newcomer lock a fresh inode beside the holder and
// lost updates this way.
func TestLostUpdate(t *testing.T) {
	const procs = 16
	perProc := soak(50)
	dir := newRoot(t)

	var wg sync.WaitGroup
	errs := make([]error, procs)
	outs := make([]*bytes.Buffer, procs)
	for p := range procs {
		outs[p] = new(bytes.Buffer)
		cmd := childCmd("lostupdate", envRoot+"="+dir, envProc+"="+strconv.Itoa(p), envN+"="+strconv.Itoa(perProc))
		cmd.Stdout, cmd.Stderr = outs[p], outs[p]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		wg.Go(func() { errs[p] = cmd.Wait() })
	}
	deleterDone := make(chan int)
	stopDeleter := make(chan struct{})
	go func() {
		n := 0
		for {
			select {
			case <-stopDeleter:
				deleterDone <- n
				return
			default:
			}
			if os.Remove(dir+"/.lock") == nil {
				n++
			}
			os.WriteFile(dir+"/.lock", nil, 0o644)
		}
	}()
	// Meanwhile a lock-free reader: every document it reads is whole (it
	// passes its schema, revision = tags + 1) and never goes back in time.
	s := openStore(t, dir)
	stop := make(chan struct{})
	var reads int
	var readErr error
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		last := map[string][]string{}
		for {
			select {
			case <-stop:
				return
			default:
			}
			for _, id := range []string{docA, docB} {
				d, err := s.Read(id)
				if err != nil {
					readErr = fmt.Errorf("Read(%s) during the run: %w", id, err)
					return
				}
				p, err := d.Problem()
				if err != nil {
					readErr = err
					return
				}
				if p.Revision != len(p.Hypothesis)+1 {
					readErr = fmt.Errorf("Read(%s) got revision %d with %d tags", id, p.Revision, len(p.Hypothesis))
					return
				}
				if prev := last[id]; len(p.Hypothesis) < len(prev) || !slices.Equal(p.Hypothesis[:len(prev)], prev) {
					readErr = fmt.Errorf("Read(%s) went back: %d tags after %d, or an earlier tag changed", id, len(p.Hypothesis), len(prev))
					return
				}
				last[id] = p.Hypothesis
				reads++
			}
		}
	}()
	wg.Wait()
	close(stop)
	<-readerDone
	close(stopDeleter)
	t.Logf("the lock file was deleted %d times during the run", <-deleterDone)
	os.Remove(dir + "/.lock")
	if readErr != nil {
		t.Error(readErr)
	}
	t.Logf("the lock-free reader read %d documents during the run", reads)
	for p, err := range errs {
		if err != nil {
			t.Errorf("process %d: %v\n%s", p, err, outs[p])
		}
	}
	if t.Failed() {
		t.FailNow()
	}

	st := readState(t, dir)
	// Every tag exactly once, and each process's tags in the order it made them.
	seen := map[string]int{}
	next := make([]int, procs)
	for _, tag := range st.a.Hypothesis {
		seen[tag]++
		var p, i int
		if _, err := fmt.Sscanf(tag, "p%d-%d", &p, &i); err != nil || p < 0 || p >= procs {
			t.Errorf("unexpected tag %q", tag)
			continue
		}
		if i != next[p] {
			t.Errorf("tag %q follows p%d-%d: a process's tags must appear in the order it committed them", tag, p, next[p]-1)
		}
		next[p] = i + 1
	}
	for p := range procs {
		for i := range perProc {
			if tag := fmt.Sprintf("p%d-%d", p, i); seen[tag] != 1 {
				t.Errorf("tag %s appears %d times; want exactly once", tag, seen[tag])
			}
		}
	}
	// The full accounting: both lists equal, one event per transaction in the
	// same order, revisions = writes + 1.
	checkStore(t, dir, st.a.Hypothesis)
	if n := len(st.a.Hypothesis); n != procs*perProc {
		t.Errorf("%d tags; want %d", n, procs*perProc)
	}
	actors := map[string]int{}
	for _, ev := range st.events[1:] {
		if ev.Actor != nil {
			actors[*ev.Actor]++
		}
		if tag, _ := ev.Detail["tag"].(string); ev.Actor == nil || !strings.HasPrefix(tag, *ev.Actor+"-") {
			t.Errorf("event %d: actor %v for tag %q", ev.Seq, ev.Actor, tag)
		}
	}
	for p := range procs {
		if n := actors["p"+strconv.Itoa(p)]; n != perProc {
			t.Errorf("actor p%d has %d events; want %d", p, n, perProc)
		}
	}
	doctorClean(t, s)
}

// childLostUpdate makes $N transactions tagged p<proc>-<i>. Even processes
// read prob_a first, odd ones prob_b, so the two documents are written in
// both orders. Each transaction also checks that it sees all of its own
// earlier tags: a process must read its own writes.
func childLostUpdate() error {
	proc, err := envInt(envProc)
	if err != nil {
		return err
	}
	n, err := envInt(envN)
	if err != nil {
		return err
	}
	s, err := store.Open(os.Getenv(envRoot))
	if err != nil {
		return err
	}
	defer s.Close()
	s.LockTimeout = 10 * time.Minute // 16 processes queue for the lock; none should give up
	first, second := docA, docB
	if proc%2 == 1 {
		first, second = docB, docA
	}
	actor := "p" + strconv.Itoa(proc)
	for i := range n {
		tag := fmt.Sprintf("%s-%d", actor, i)
		_, err := s.Update(store.TxOptions{Command: "test-append", Actor: actor, Target: first}, func(tx *store.Tx) error {
			d, err := tx.Get(first)
			if err != nil {
				return err
			}
			mine := 0
			for _, h := range d.Get("hypothesis").Array() {
				if strings.HasPrefix(h.String(), actor+"-") {
					mine++
				}
			}
			if mine != i {
				return fmt.Errorf("before %s, %s lists %d of this process's tags; want %d", tag, first, mine, i)
			}
			return appendTag(tx, first, second, tag)
		})
		if err != nil {
			return fmt.Errorf("transaction %s: %w", tag, err)
		}
	}
	return nil
}
