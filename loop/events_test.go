package loop_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// follower is a running `proofloop events --follow --json`.
type follower struct {
	cmd    *exec.Cmd
	lines  chan string // each stdout line as it arrives
	stderr *bytes.Buffer
}

// startFollower starts `events --follow --json` (plus args) on root.
func startFollower(t *testing.T, root string, args ...string) *follower {
	t.Helper()
	cmd := command(root, nil, append([]string{"events", "--follow", "--json"}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	f := &follower{cmd: cmd, lines: make(chan string, 1024), stderr: new(bytes.Buffer)}
	cmd.Stderr = f.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	go func() {
		defer close(f.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			f.lines <- sc.Text()
		}
		io.Copy(io.Discard, stdout)
	}()
	return f
}

// waitSeq collects lines until one has seq want. The deadline is only there
// so that a follower that misses an event fails the test instead of
// hanging it.
func (f *follower) waitSeq(t *testing.T, got *[]string, want int) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		if n := len(*got); n > 0 && seqOf((*got)[n-1]) >= want {
			return
		}
		select {
		case l, ok := <-f.lines:
			if !ok {
				t.Fatalf("the follower ended before seq %d; it printed %d lines; stderr: %s", want, len(*got), f.stderr)
			}
			*got = append(*got, l)
		case <-deadline:
			t.Fatalf("no seq %d from the follower after 30s; it printed %d lines", want, len(*got))
		}
	}
}

// stop signals the follower and returns the rest of its output and its exit
// code.
func (f *follower) stop(t *testing.T, sig syscall.Signal, got *[]string) int {
	t.Helper()
	if err := f.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	for l := range f.lines {
		*got = append(*got, l)
	}
	err := f.cmd.Wait()
	if ee, ok := err.(*exec.ExitError); ok {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			t.Errorf("the follower died of %v; want it to end cleanly on %v", ws.Signal(), sig)
		}
		return ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0
}

func seqOf(line string) int {
	var ev struct{ Seq int }
	if json.Unmarshal([]byte(line), &ev) != nil {
		return -1
	}
	return ev.Seq
}

// TestEventsFollow: a follower started before the work sees every
// transaction exactly once, in order, byte for byte as events.jsonl has it,
// while 30 mutating commands run from 3 processes at a time; it ends
// cleanly (exit 0) on SIGTERM and on SIGINT.
func TestEventsFollow(t *testing.T) { eventsFollow(t, false) }

// TestEventsFollowPostgres is TestEventsFollow on the PostgreSQL store:
// the follower waits on LISTEN/NOTIFY.
func TestEventsFollowPostgres(t *testing.T) { eventsFollow(t, true) }

func eventsFollow(t *testing.T, pg bool) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			if pg {
				onPostgres(t)
			}
			root := newRoot(t, nil)
			must(t, root, "new-problem", "--name", "first", "--objective", "The first problem.")
			f := startFollower(t, root)
			var got []string
			f.waitSeq(t, &got, 1) // it is watching by now

			const writers, each = 3, 10
			var wg sync.WaitGroup
			errs := make(chan error, writers*each)
			for w := range writers {
				wg.Go(func() {
					for i := range each {
						r, err := runPL(root, []string{"PROOFLOOP_LOCK_TIMEOUT=60s"}, "new-problem", "--name", fmt.Sprintf("w%d_%d", w, i),
							"--objective", fmt.Sprintf("Problem %d of writer %d.", i, w))
						if err == nil && r.code != 0 {
							err = fmt.Errorf("%v", r)
						}
						if err != nil {
							errs <- err
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			// A lease transaction and a skill are events too.
			var cl leaseOut
			must(t, root, "claim", "prob_first", "--role", "solve", "--holder", "h", "--json").decode(t, &cl)
			must(t, root, "--lease", cl.Lease, "prob-wrapup-statement", "--problem-path", "prob_first", "--claim", "A claim.", "--purpose", "The objective.")

			lines, _ := events(t, root)
			if len(lines) != 1+writers*each+2 {
				t.Fatalf("events.jsonl has %d lines; want %d", len(lines), 1+writers*each+2)
			}
			f.waitSeq(t, &got, len(lines))
			if code := f.stop(t, sig, &got); code != 0 {
				t.Errorf("the follower exited %d on %v; want 0; stderr: %s", code, sig, f.stderr)
			}
			checkSameLines(t, got, lines)
		})
	}
}

// TestEventsSince: --since SEQ starts after SEQ, with and without --follow.
func TestEventsSince(t *testing.T) {
	root := newRoot(t, nil)
	for i := range 6 {
		must(t, root, "new-problem", "--name", fmt.Sprintf("p%d", i), "--objective", "A problem.")
	}
	lines, _ := events(t, root)

	var out struct {
		OK     bool              `json:"ok"`
		Events []json.RawMessage `json:"events"`
	}
	must(t, root, "events", "--since", "4", "--json").decode(t, &out)
	var got []string
	for _, e := range out.Events {
		got = append(got, string(e))
	}
	checkSameLines(t, got, lines[4:])

	must(t, root, "events", "--since", "6", "--json").decode(t, &out)
	if len(out.Events) != 0 {
		t.Errorf("events --since 6 (the last seq): %d events; want none", len(out.Events))
	}

	f := startFollower(t, root, "--since", "3")
	got = nil
	f.waitSeq(t, &got, 6)
	must(t, root, "new-problem", "--name", "late", "--objective", "A late problem.")
	f.waitSeq(t, &got, 7)
	if code := f.stop(t, syscall.SIGINT, &got); code != 0 {
		t.Errorf("the follower exited %d on SIGINT; want 0; stderr: %s", code, f.stderr)
	}
	lines, _ = events(t, root)
	checkSameLines(t, got, lines[3:])
}

// checkSameLines compares a follower's output with events.jsonl lines: the
// same seqs, once each, in order, byte for byte.
func checkSameLines(t *testing.T, got, want []string) {
	t.Helper()
	var seqs []int
	for _, l := range got {
		seqs = append(seqs, seqOf(l))
	}
	if len(got) != len(want) {
		t.Errorf("got %d events with seqs %v; want %d", len(got), seqs, len(want))
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Errorf("event %d: got\n%s\nwant (events.jsonl)\n%s", i+1, got[i], want[i])
		}
	}
	for i := 1; i < len(seqs); i++ {
		if seqs[i] != seqs[i-1]+1 {
			t.Errorf("seqs %v are not consecutive at %d", seqs, i)
			break
		}
	}
	for _, l := range got {
		if strings.Contains(l, `"ok":false`) {
			t.Errorf("the follower printed an error: %s", l)
		}
	}
}
