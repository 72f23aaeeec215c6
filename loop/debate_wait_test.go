package loop_test

import (
	"context"
	"os/exec"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/proofloop/proofloop/internal/watchtest"
	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/store"
)

// newDialectic makes a root with a dialectic debate deb_wait whose main (p1)
// and partner (p2) have joined: p1 writes next.
func newDialectic(t testing.TB, root string) {
	t.Helper()
	for _, args := range [][]string{
		{"init"},
		{"debate", "start", "--protocol", "dialectic", "--topic", "wait"},
		{"debate", "join", "deb_wait", "--participant-name", "main", "--actor", "main"},
		{"debate", "join", "deb_wait", "--participant-name", "partner", "--actor", "partner"},
	} {
		r, err := runPL(root, nil, args...)
		if err != nil || r.code != 0 {
			t.Fatalf("%v %v", r, err)
		}
	}
}

// TestDebateWaitManyWaiters starts 32 `debate wait` processes for p2 while it
// is p1's turn: none may return before p1's turn commits, and every one must
// return (exit 0, p2's turn) after it.
func TestDebateWaitManyWaiters(t *testing.T) { debateWaitManyWaiters(t) }

// TestDebateWaitManyWaitersPostgres is the same on the PostgreSQL store:
// the waiters wait on LISTEN/NOTIFY.
func TestDebateWaitManyWaitersPostgres(t *testing.T) {
	onPostgres(t)
	debateWaitManyWaiters(t)
}

func debateWaitManyWaiters(t *testing.T) {
	root := newRoot(t, nil)
	newDialectic(t, root)
	const n = 32
	type done struct {
		i   int
		res result
	}
	out := make(chan done, n)
	var started sync.WaitGroup
	pids := make([]int, n)
	for i := range n {
		started.Add(1)
		go func() {
			cmd := command(root, nil, "--json", "debate", "wait", "deb_wait", "--participant-id", "p2", "--timeout", "2m")
			var r result
			stdout, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Error(err)
			} else {
				pids[i] = cmd.Process.Pid
			}
			started.Done()
			b := make([]byte, 0, 4096)
			buf := make([]byte, 4096)
			for {
				k, err := stdout.Read(buf)
				b = append(b, buf[:k]...)
				if err != nil {
					break
				}
			}
			err := cmd.Wait()
			if ee, ok := err.(*exec.ExitError); ok {
				r.code = ee.ExitCode()
			}
			r.stdout = string(b)
			out <- done{i, r}
		}()
	}
	started.Wait()
	// Commit once every waiter watches, so that the commit is what wakes
	// them (a waiter that started late would still find p2's turn).
	watchtest.Wait(t, n, testStore, pids...)
	select {
	case d := <-out:
		t.Fatalf("waiter %d returned before p1's turn: %v", d.i, d.res)
	default:
	}
	must(t, root, "debate", "turn", "deb_wait", "--actor", "main", "--participant-id", "p1", "--body", "Hello.")
	var woke []int
	timeout := time.After(2 * time.Minute) // hang protection only
	for range n {
		select {
		case d := <-out:
			if d.res.code != 0 {
				t.Errorf("waiter %d: exit %d; want 0\n%s", d.i, d.res.code, d.res.stdout)
			}
			var got struct {
				WhoseTurn struct {
					ParticipantID string `json:"participant_id"`
				} `json:"whose_turn"`
			}
			d.res.decode(t, &got)
			if got.WhoseTurn.ParticipantID != "p2" {
				t.Errorf("waiter %d: whose_turn %q; want p2", d.i, got.WhoseTurn.ParticipantID)
			}
			woke = append(woke, d.i)
		case <-timeout:
			t.Fatalf("only %d of %d waiters woke", len(woke), n)
		}
	}
	if len(woke) != n {
		t.Fatalf("%d waiters woke; want %d", len(woke), n)
	}
}

// TestDebateWaitTimeoutAndClosed: at its timeout wait exits 5 with code
// timeout; on a closed debate it returns at once.
func TestDebateWaitTimeoutAndClosed(t *testing.T) {
	root := newRoot(t, nil)
	newDialectic(t, root)
	r := pl(t, root, nil, "--json", "debate", "wait", "deb_wait", "--participant-id", "p2", "--timeout", "200ms")
	if r.code != 5 || r.errorCode(t) != "timeout" {
		t.Fatalf("%v\nwant exit 5, timeout", r)
	}
	r = pl(t, root, nil, "--json", "debate", "wait", "deb_wait", "--participant-id", "p1", "--timeout", "1m")
	if r.code != 0 {
		t.Fatalf("%v\nwant exit 0: it is p1's turn", r)
	}
	must(t, root, "debate", "turn", "deb_wait", "--actor", "main", "--participant-id", "p1", "--body", "Done.", "--conclusion", "consensus", "--conclusion-text", "ok", "--agreed", "done", "--insight", "waiting works")
	r = pl(t, root, nil, "--json", "debate", "wait", "deb_wait", "--participant-id", "p2", "--timeout", "1m")
	var got struct {
		Status  string `json:"status"`
		Outcome struct {
			Outcome string `json:"outcome"`
		} `json:"outcome"`
	}
	r.decode(t, &got)
	if r.code != 0 || got.Status != "completed" || got.Outcome.Outcome != "consensus" {
		t.Fatalf("%v\nwant exit 0 on the closed debate, status completed, outcome consensus", r)
	}
}

// BenchmarkDebateWaitLatency measures the time from one side's commit (the
// turn's transaction returned) to the other side's WaitDebate returning, in
// process; it reports the median as median-ns/op.
func BenchmarkDebateWaitLatency(b *testing.B) {
	root := b.TempDir() + "/contents"
	newDialectic(b, root)
	s, err := store.Open(root)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	opts := store.TxOptions{Actor: "bench"}
	var lat []time.Duration
	writer, waiter := "p1", "p2"
	for b.Loop() {
		ready := make(chan struct{})
		got := make(chan time.Time, 1)
		go func() {
			close(ready)
			if _, err := loop.WaitDebate(context.Background(), s, "deb_wait", waiter, time.Minute); err != nil {
				b.Error(err)
			}
			got <- time.Now()
		}()
		<-ready
		time.Sleep(time.Millisecond) // let the waiter read the debate and block
		if _, err := loop.TurnDebate(s, opts, "deb_wait", writer, []byte(`{"body": "x"}`)); err != nil {
			b.Fatal(err)
		}
		committed := time.Now()
		lat = append(lat, (<-got).Sub(committed))
		writer, waiter = waiter, writer
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "median-ns/op")
}
