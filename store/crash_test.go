package store_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/schemas"
	"github.com/proofloop/proofloop/store"
)

// File store only: these tests kill processes in the middle of a file
// commit (between temp files, journal, renames and the log append). A
// backend's commit is one database transaction, atomic by the database's
// own guarantee; its no-lost-update behaviour is in the conformance suite.

// TestCrashRandomKill runs two children that make multi-file transactions
// back to back on the same documents (every third one also creates a
// subproblem of prob_a) and kills both with SIGKILL at random moments, one
// shortly after the other, so that the survivor may have to finish a
// journal its dead rival left. Then it checks the store: doctor.Full finishes or
// discards what was left and finds nothing wrong; every file passes its
// schema; every transaction is wholly there or wholly absent; every
// transaction a child saw commit is there, and besides them at most the one
// each child was in the middle of. Each round starts a fresh store; the
// kills of a round build on one another.
func TestCrashRandomKill(t *testing.T) {
	rounds, iterations := soak(4), 25 // two kills an iteration: 200 kills, 2000 with PROOFLOOP_SOAK=1
	for r := range rounds {
		t.Run(fmt.Sprintf("round%d", r), func(t *testing.T) {
			dir := newRoot(t)
			s := openStore(t, dir)
			var want []string
			finished, discarded, swept, kept := 0, 0, 0, [2]int{}
			for k := range iterations {
				prefixes := []string{fmt.Sprintf("r%dk%dc0", r, k), fmt.Sprintf("r%dk%dc1", r, k)}
				c0 := startCrashChild(t, dir, prefixes[0])
				c1 := startCrashChild(t, dir, prefixes[1])
				time.Sleep(time.Duration(rand.IntN(16)) * time.Millisecond)
				acked := [][]string{c0.kill(t)}
				time.Sleep(time.Duration(rand.IntN(16)) * time.Millisecond)
				acked = append(acked, c1.kill(t))

				if k%2 == 1 {
					// A lock-free reader first: it must finish a leftover
					// journal itself, and so see both documents agree.
					a, errA := s.Read(docA)
					b, errB := s.Read(docB)
					if errA != nil || errB != nil {
						t.Fatalf("after iteration %d: Read: %v, %v", k, errA, errB)
					}
					if ha, hb := a.Get("hypothesis").Raw, b.Get("hypothesis").Raw; ha != hb {
						t.Fatalf("after iteration %d a lock-free reader sees %s %s and %s %s", k, docA, ha, docB, hb)
					}
					if _, err := os.Stat(filepath.Join(dir, store.JournalFile)); !errors.Is(err, fs.ErrNotExist) {
						t.Fatalf("after iteration %d and a Read the journal is still there (%v)", k, err)
					}
				}
				rep := doctorClean(t, s)
				switch {
				case strings.HasPrefix(rep.Journal, "finished"):
					finished++
				case rep.Journal != "none":
					discarded++
				}
				swept += len(rep.Swept)

				got := readState(t, dir).a.Hypothesis
				if len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
					t.Fatalf("after iteration %d: hypothesis ends %q; want it to start with the earlier transactions, ending %q", k, tail(got, 5), tail(want, 5))
				}
				// Each child's new tags: what it acknowledged, in order, then at
				// most the one it was in the middle of.
				byChild := make([][]string, 2)
				for _, tag := range got[len(want):] {
					i := slices.IndexFunc(prefixes, func(p string) bool { return strings.HasPrefix(tag, p+"-") })
					if i < 0 {
						t.Fatalf("after iteration %d: tag %q from no child of this iteration", k, tag)
					}
					byChild[i] = append(byChild[i], tag)
				}
				for i, tags := range byChild {
					n := len(acked[i])
					if len(tags) < n || !slices.Equal(tags[:n], acked[i]) || len(tags) > n+1 || len(tags) == n+1 && tags[n] != crashTag(prefixes[i], n) {
						t.Fatalf("after iteration %d: child %s's tags in the store are %q; want its acknowledged %q and at most %s",
							k, prefixes[i], tail(tags, 4), tail(acked[i], 3), crashTag(prefixes[i], n))
					}
				}
				want = got
				kept[0], kept[1] = kept[0]+len(byChild[0]), kept[1]+len(byChild[1])
				checkStore(t, dir, want)
				if t.Failed() {
					t.FailNow()
				}
			}
			if len(want) == 0 {
				t.Errorf("no transaction committed in %d kills: the children never got to work", 2*iterations)
			}
			t.Logf("%d kills; transactions kept: %d by the first-killed children, %d by the later-killed; doctor finished %d journals, discarded %d, swept %d temp files",
				2*iterations, kept[0], kept[1], finished, discarded, swept)
		})
	}
}

// crashTag is the tag of the i-th transaction of a crashloop child.
func crashTag(prefix string, i int) string {
	tag := fmt.Sprintf("%s-%d", prefix, i)
	if i%3 == 0 {
		tag += "/sub"
	}
	return tag
}

// crashChild is a running crashloop child.
type crashChild struct {
	prefix string
	cmd    *exec.Cmd
	stderr bytes.Buffer
	pr     *os.File
	done   chan struct{}
	acked  []string // what it printed as committed; read after done
}

// startCrashChild starts a crashloop child and waits until it is ready to
// run transactions.
func startCrashChild(t *testing.T, dir, prefix string) *crashChild {
	t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	c := &crashChild{prefix: prefix, pr: pr, done: make(chan struct{})}
	// A small write-ahead log: checkpoints come every few transactions,
	// so the kills land in them too.
	c.cmd = childCmd("crashloop", envRoot+"="+dir, envProc+"="+prefix, "PROOFLOOP_TEST_WAL_LIMIT=30000")
	c.cmd.Stdout, c.cmd.Stderr = pw, &c.stderr
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	t.Cleanup(func() { c.cmd.Process.Kill(); c.cmd.Wait(); pr.Close() })
	ready := make(chan struct{})
	go func() {
		defer close(c.done)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if tag, ok := strings.CutPrefix(sc.Text(), "ok "); ok {
				c.acked = append(c.acked, tag)
			} else if sc.Text() == "ready" {
				close(ready)
			}
		}
	}()
	select {
	case <-ready:
	case <-c.done:
	case <-time.After(time.Minute): // a hang guard, not a timing assertion
	}
	return c
}

// kill kills the child with SIGKILL and returns the tags of the
// transactions it reported as committed.
func (c *crashChild) kill(t *testing.T) []string {
	t.Helper()
	c.cmd.Process.Kill()
	err := c.cmd.Wait()
	<-c.done
	if ws, ok := c.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("crashloop child %s ended by itself (%v), not by the kill:\n%s", c.prefix, err, c.stderr.Bytes())
	}
	for i, tag := range c.acked {
		if want := crashTag(c.prefix, i); tag != want {
			t.Fatalf("child %s acknowledged %s as its transaction %d; want %s", c.prefix, tag, i, want)
		}
	}
	return c.acked
}

// childCrashLoop runs transactions until it is killed, printing "ready"
// first and "ok <tag>" after each commit. The transactions alternate which
// document they read (and so write) first.
func childCrashLoop() error {
	s, err := store.Open(os.Getenv(envRoot))
	if err != nil {
		return err
	}
	s.LockTimeout = time.Minute
	prefix := os.Getenv(envProc)
	// Compile the schemas first, so that the kill lands in transactions
	// rather than in start-up work.
	for _, k := range []schemas.Kind{schemas.Problem, schemas.Event, schemas.Journal} {
		schemas.Validate(k, []byte("{}"))
	}
	fmt.Println("ready")
	// Stop on its own eventually, so an abandoned child does not run forever.
	for i, end := 0, time.Now().Add(2*time.Minute); time.Now().Before(end); i++ {
		tag := crashTag(prefix, i)
		first, second := docA, docB
		if i%2 == 1 {
			first, second = docB, docA
		}
		if _, err := s.Update(store.TxOptions{Command: "test-append"}, func(tx *store.Tx) error {
			return appendTag(tx, first, second, tag)
		}); err != nil {
			return fmt.Errorf("transaction %s: %w", tag, err)
		}
		fmt.Println("ok " + tag)
	}
	return errors.New("was never killed")
}

// childCrashOnce runs one transaction tagged $PROOFLOOP_STORE_TEST_PROC;
// the parent sets PROOFLOOP_TEST_CRASH so that the store kills the process
// at that step of the commit (or of the recovery of an earlier crash).
func childCrashOnce() error {
	s, err := store.Open(os.Getenv(envRoot))
	if err != nil {
		return err
	}
	tag := os.Getenv(envProc)
	if _, err := s.Update(store.TxOptions{Command: "test-append"}, func(tx *store.Tx) error {
		return appendTag(tx, docA, docB, tag)
	}); err != nil {
		return err
	}
	return fmt.Errorf("%s=%s: the transaction committed without a crash", envCrash, os.Getenv(envCrash))
}

// crashPoints are the steps of the commit where PROOFLOOP_TEST_CRASH can
// kill the process, in order (store.CrashSteps without the replay's, which
// only a log from another boot reaches). before-journal and after-marker
// precede the commit point: a kill at after-marker leaves a mark whose
// record never reached the write-ahead log, which recovery discards (the
// caller never heard back, so either outcome is allowed). The checkpoint
// points come after the journal is gone; the child checkpoints on every
// commit for them (PROOFLOOP_TEST_WAL_LIMIT=1).
var crashPoints, journalPoints = func() (all, journal []string) {
	for _, c := range store.CrashSteps {
		if !c.Replay {
			all = append(all, c.Name)
		}
		if c.Journal {
			journal = append(journal, c.Name)
		}
	}
	return all, journal
}()

// crashOnce runs a crashonce child with the tag and the crash point and
// checks that the store killed it.
func crashOnce(t *testing.T, dir, point, tag string) {
	t.Helper()
	cmd := childCmd("crashonce", envRoot+"="+dir, envProc+"="+tag, envCrash+"="+point, "PROOFLOOP_TEST_WAL_LIMIT=1")
	out, err := cmd.CombinedOutput()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("with %s=%s the child was not killed (%v):\n%s", envCrash, point, err, out)
	}
}

// onDisk counts the documents among prob_a and prob_b whose file lists tag,
// and the lines of events.jsonl, reading the files without the store.
func onDisk(t *testing.T, dir, tag string) (docs, events int) {
	t.Helper()
	for _, id := range []string{docA, docB} {
		raw, err := os.ReadFile(filepath.Join(dir, store.DocPath(model.KindProblem, id)))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(raw, []byte(`"`+tag+`"`)) {
			docs++
		}
	}
	raw, err := os.ReadFile(filepath.Join(dir, store.EventsFile))
	if err != nil {
		t.Fatal(err)
	}
	return docs, bytes.Count(raw, []byte("\n"))
}

func journalExists(t *testing.T, dir string) bool {
	t.Helper()
	_, err := os.Stat(filepath.Join(dir, store.JournalFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return err == nil
}

// TestCrashPoints crashes a transaction (two documents changed, one
// created) at every step of its commit and recovers it three ways: doctor,
// a lock-free reader, and the next transaction. The outcome must be the
// store exactly before the transaction (a crash before the journal) or
// exactly after it (any later crash), with its event once.
func TestCrashPoints(t *testing.T) {
	// How many of prob_a and prob_b hold the tag, and how many events
	// there are, on disk right after each crash: the crash really did
	// land in the middle of the commit.
	torn := map[string]struct{ docs, events int }{
		"before-journal":    {0, 2},
		"after-marker":      {0, 2},
		"wal-written":       {0, 2},
		"after-journal":     {0, 2},
		"after-first-write": {1, 2},
		"after-writes":      {2, 2},
		"after-event":       {2, 3},
		"checkpoint":        {2, 3},
		"checkpoint-synced": {2, 3},
	}
	const tag = "crash/sub"
	sub := model.SubproblemID(docA, 1)
	for _, point := range crashPoints {
		for _, how := range []string{"doctor", "read", "update"} {
			t.Run(point+"/"+how, func(t *testing.T) {
				dir := newRoot(t)
				s := openStore(t, dir)
				if _, err := s.Update(store.TxOptions{Command: "test-append"}, func(tx *store.Tx) error {
					return appendTag(tx, docA, docB, "t0")
				}); err != nil {
					t.Fatal(err)
				}
				crashOnce(t, dir, point, tag)

				committed := point != "before-journal" && point != "after-marker"
				if i := slices.IndexFunc(store.CrashSteps, func(c store.CrashStep) bool { return c.Name == point }); store.CrashSteps[i].Committed != committed {
					t.Fatalf("store.CrashSteps says a kill at %s commits: %v; this test says %v", point, !committed, committed)
				}
				pending := slices.Contains(journalPoints, point)
				if got := journalExists(t, dir); got != pending {
					t.Fatalf("journal present after the crash: %v; want %v", got, pending)
				}
				if docs, events := onDisk(t, dir, tag); docs != torn[point].docs || events != torn[point].events {
					t.Fatalf("on disk after the crash: %d documents with the tag, %d events; want %d and %d",
						docs, events, torn[point].docs, torn[point].events)
				}
				want := []string{"t0"}
				if committed {
					want = append(want, tag)
				}
				switch how {
				case "doctor":
					rep := doctorClean(t, s)
					want := "none"
					switch {
					case pending && committed:
						want = "finished transaction 3"
					case pending:
						want = "discarded: transaction 3 never reached .wal"
					}
					if !strings.HasPrefix(rep.Journal, want) {
						t.Errorf("Doctor journal: %q; want %q", rep.Journal, want)
					}
				case "read":
					// prob_b is written second: after-first-write left it stale.
					b, err := s.Read(docB)
					if err != nil {
						t.Fatal(err)
					}
					if got := hypothesis(t, b); !slices.Equal(got, want) {
						t.Errorf("lock-free Read(%s) hypothesis = %q; want %q", docB, got, want)
					}
					if journalExists(t, dir) {
						t.Errorf("the journal is still there after a lock-free Read")
					}
					_, err = s.Read(sub)
					if committed && err != nil {
						t.Errorf("Read(%s) of the created subproblem: %v", sub, err)
					} else if !committed && store.CodeOf(err) != store.CodeNotFound {
						t.Errorf("Read(%s) = %v; want not_found: the crashed transaction never committed", sub, err)
					}
					if rep := doctorClean(t, s); rep.Journal != "none" {
						t.Errorf("Doctor after the reader recovered: journal %q; want none", rep.Journal)
					}
				case "update":
					c, err := s.Update(store.TxOptions{Command: "test-append"}, func(tx *store.Tx) error {
						return appendTag(tx, docB, docA, "next")
					})
					if err != nil {
						t.Fatal(err)
					}
					want = append(want, "next")
					if c.Seq != len(want)+1 {
						t.Errorf("the next transaction got seq %d; want %d", c.Seq, len(want)+1)
					}
				}
				checkStore(t, dir, want)
				doctorClean(t, s)
			})
		}
	}
}

// TestCrashDuringRecovery crashes a transaction at a step that leaves its
// journal with its record in the log, then crashes the next process in its
// recovery of that journal (the crash hooks fire in recovery too: at the
// same step, or at after-journal once recovery has synced the record), and
// checks that a third recovery still yields the transaction exactly once.
// (A mark whose record never reached the log is discarded, reaching no
// hook.)
func TestCrashDuringRecovery(t *testing.T) {
	pairs := [][2]string{{"wal-written", "after-journal"}}
	for _, point := range journalPoints[2:] {
		pairs = append(pairs, [2]string{point, point})
	}
	for _, p := range pairs {
		t.Run(p[0]+"/"+p[1], func(t *testing.T) {
			dir := newRoot(t)
			crashOnce(t, dir, p[0], "c1/sub")
			_, events := onDisk(t, dir, "c1/sub")
			crashOnce(t, dir, p[1], "c2")
			if !journalExists(t, dir) {
				t.Fatal("the journal is gone after a crash during its recovery")
			}
			if _, again := onDisk(t, dir, "c1/sub"); again != events {
				t.Errorf("events.jsonl has %d lines after a second crash at %s; want %d: recovery appended the event again", again, p[1], events)
			}
			s := openStore(t, dir)
			doctorClean(t, s)
			checkStore(t, dir, []string{"c1/sub"})
		})
	}
}

func hypothesis(t *testing.T, d *store.Doc) []string {
	t.Helper()
	p, err := d.Problem()
	if err != nil {
		t.Fatal(err)
	}
	return p.Hypothesis
}

func tail(s []string, n int) []string { return s[max(0, len(s)-n):] }

// TestWALReplayAfterMachineCrash simulates a machine crash after three
// commits that no checkpoint synced: the write-ahead log's header names
// another boot, the documents they wrote are empty, the events they
// appended are gone and so is the index. The next command replays the log,
// and the store is whole again, each transaction once.
func TestWALReplayAfterMachineCrash(t *testing.T) {
	needBootID(t)
	dir := newRoot(t)
	s := openStore(t, dir)
	tags := []string{"m0", "m1", "m2"}
	commitTags(t, s, tags...)
	if n := machineCrash(t, dir); n < 3 {
		t.Fatalf("the write-ahead log has %d lines after three commits; want at least three", n)
	}

	s = openStore(t, dir)
	doctorClean(t, s)
	checkStore(t, dir, tags)
	walPath := filepath.Join(dir, store.WALFile)
	if raw, err := os.ReadFile(walPath); err != nil || strings.Count(string(raw), "\n") != 1 {
		t.Errorf("after the replay the write-ahead log holds %q (%v); want its header alone, checkpointed", raw, err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
