package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// dres is one finished (or killed) proofloop process of the debate tests.
type dres struct {
	args   []string
	code   int
	killed bool
	stdout string
	stderr string
}

func (r dres) String() string {
	return fmt.Sprintf("proofloop %s: exit %d (killed %v)\nstdout: %s\nstderr: %s", strings.Join(r.args, " "), r.code, r.killed, r.stdout, r.stderr)
}

// plRun runs proofloop --json on root; with kill >= 0 it sends SIGKILL after
// that delay, unless the process has ended. hook sets PROOFLOOP_TEST_CRASH.
func plRun(root string, kill time.Duration, hook string, args ...string) dres {
	args = append([]string{"--json"}, args...)
	cmd := exec.Command(bin, args...)
	c := newCLI(root)
	c.smallWAL = kill >= 0 || hook != "" // the kills land in checkpoints too
	cmd.Env = c.env(hook)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Start()
	if err == nil {
		if kill >= 0 {
			time.Sleep(kill)
			cmd.Process.Kill()
		}
		err = cmd.Wait()
	}
	r := dres{args: args, stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.killed = ws.Signal() == syscall.SIGKILL
		}
	case err != nil:
		r.code = -2
	}
	return r
}

func plMust(t *testing.T, root string, args ...string) dres {
	t.Helper()
	r := plRun(root, -1, "", args...)
	if r.code != 0 {
		t.Fatalf("%v\nwant exit 0", r)
	}
	return r
}

// debateDoc is what the tests read of a debate document.
type debateDoc struct {
	Status       string `json:"status"`
	Participants []struct {
		ParticipantID string `json:"participant_id"`
		Name          string `json:"name"`
	} `json:"participants"`
	Turns []struct {
		TurnNumber    int    `json:"turn_number"`
		ParticipantID string `json:"participant_id"`
		Body          string `json:"body"`
	} `json:"turns"`
	Artifact string `json:"artifact"`
}

func readDebate(t *testing.T, root, id string) *debateDoc {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "debate", id+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var d debateDoc
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return &d
}

// TestDebateRaceTurns: 16 processes race to append turns to one dialectic
// debate, 8 writing as main (p1) and 8 as partner (p2), each until it has
// written 3 turns. Every turn that exited 0 is in the document exactly once
// with the number it was told; the numbers run 1..48 without a gap; main and
// partner alternate; every other attempt was refused out of order (exit 4)
// or waited for the lock, and wrote nothing.
func TestDebateRaceTurns(t *testing.T) {
	root := filepath.Join(t.TempDir(), "contents")
	plMust(t, root, "init")
	plMust(t, root, "debate", "start", "--protocol", "dialectic", "--topic", "race")
	plMust(t, root, "debate", "join", "deb_race", "--participant-name", "main", "--actor", "main")
	plMust(t, root, "debate", "join", "deb_race", "--participant-name", "partner", "--actor", "partner")
	const workers, each = 16, 3
	type won struct {
		body string
		n    int
		pid  string
	}
	var mu sync.Mutex
	var wins []won
	var wg sync.WaitGroup
	for w := range workers {
		pid := []string{"p1", "p2"}[w%2]
		seatOf := map[string]string{"p1": "main", "p2": "partner"}
		wg.Go(func() {
			for k := 0; k < each; {
				body := fmt.Sprintf("w%02d-k%d", w, k)
				r := plRun(root, -1, "", "debate", "turn", "deb_race", "--participant-id", pid, "--actor", seatOf[pid], "--body", body)
				switch r.code {
				case 0:
					var out struct {
						TurnNumber int `json:"turn_number"`
					}
					if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					wins = append(wins, won{body, out.TurnNumber, pid})
					mu.Unlock()
					k++
				case 4, 5: // out of order, or the lock: wait for our turn
					if r.code == 4 && !strings.Contains(r.stdout, "it is not "+pid+"'s turn") {
						t.Errorf("%v", r)
						return
					}
					plRun(root, -1, "", "debate", "wait", "deb_race", "--participant-id", pid, "--timeout", "2m")
				default:
					t.Errorf("%v", r)
					return
				}
			}
		})
	}
	wg.Wait()
	d := readDebate(t, root, "deb_race")
	if len(d.Turns) != workers*each || len(wins) != workers*each {
		t.Fatalf("%d turns in the document, %d accepted; want %d of each", len(d.Turns), len(wins), workers*each)
	}
	for i, tn := range d.Turns {
		if tn.TurnNumber != i+1 {
			t.Errorf("turn %d has number %d", i+1, tn.TurnNumber)
		}
		if want := []string{"p1", "p2"}[i%2]; tn.ParticipantID != want {
			t.Errorf("turn %d by %s; want %s (alternation)", i+1, tn.ParticipantID, want)
		}
	}
	seen := map[string]bool{}
	for _, w := range wins {
		if seen[w.body] {
			t.Errorf("turn %q accepted twice", w.body)
		}
		seen[w.body] = true
		if got := d.Turns[w.n-1]; got.Body != w.body || got.ParticipantID != w.pid {
			t.Errorf("turn %d is %q by %s; the writer of %q by %s was told %d", w.n, got.Body, got.ParticipantID, w.body, w.pid, w.n)
		}
	}
	doctorClean(t, root)
}

// TestDebateRaceJoin: 16 processes with 16 names race to join a two-party
// debate: exactly 2 join, the other 14 are refused (exit 4), and the
// document holds exactly 2 participants, p1 and p2, with the winners' names.
func TestDebateRaceJoin(t *testing.T) {
	root := filepath.Join(t.TempDir(), "contents")
	plMust(t, root, "init")
	plMust(t, root, "debate", "start", "--protocol", "socratic", "--topic", "join race")
	var mu sync.Mutex
	var winners []string
	refused := 0
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Go(func() {
			name := fmt.Sprintf("agent-%02d", w)
			r := plRun(root, -1, "", "debate", "join", "deb_join_race", "--participant-name", name, "--actor", name)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case r.code == 0:
				winners = append(winners, name)
			case r.code == 4 && strings.Contains(r.stdout, "already has its 2 participants"):
				refused++
			default:
				t.Errorf("%v", r)
			}
		})
	}
	wg.Wait()
	d := readDebate(t, root, "deb_join_race")
	if len(winners) != 2 || refused != 14 || len(d.Participants) != 2 {
		t.Fatalf("%d joined %v, %d refused, %d participants; want 2, 14, 2", len(winners), winners, refused, len(d.Participants))
	}
	for i, p := range d.Participants {
		if p.ParticipantID != fmt.Sprintf("p%d", i+1) || (p.Name != winners[0] && p.Name != winners[1]) {
			t.Errorf("participant %d is %s %s; winners %v", i, p.ParticipantID, p.Name, winners)
		}
	}
	doctorClean(t, root)
}

// doctorClean runs doctor: no finding, and no transcript needed rewriting
// (each transaction wrote the debate and its transcript together).
func doctorClean(t *testing.T, root string) {
	t.Helper()
	r := plRun(root, -1, "", "doctor")
	var out struct {
		Report struct {
			Transcripts []string          `json:"transcripts_regenerated"`
			Findings    []json.RawMessage `json:"findings"`
		} `json:"report"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != 0 || len(out.Report.Findings) > 0 || len(out.Report.Transcripts) > 0 {
		t.Fatalf("%v\nwant a clean doctor that regenerated nothing", r)
	}
}

// TestDebateKill kills proofloop with SIGKILL at random moments of debate
// turn and close transactions (100 turns, 20 closes, plus one turn killed
// by PROOFLOOP_TEST_CRASH at each step of the write path, crashHooks, which
// must take effect exactly when the step says), and after each kill checks that the
// debate JSON and its transcript agree: doctor is clean and regenerates
// nothing, and the transcript file is the one rendered from the document.
// A turn that exited 0 is in the document; the document's turns are
// numbered 1..n and match the debate-turn events one to one.
func TestDebateKill(t *testing.T) {
	seed := seedFor(t)
	rng := rand.New(rand.NewPCG(seed, 9))
	root := filepath.Join(t.TempDir(), "contents")
	plMust(t, root, "init")
	plMust(t, root, "debate", "start", "--protocol", "dialectic", "--topic", "crash")
	plMust(t, root, "debate", "join", "deb_crash", "--participant-name", "main", "--actor", "main")
	plMust(t, root, "debate", "join", "deb_crash", "--participant-name", "partner", "--actor", "partner")
	// The length of a whole turn call, from a few that run to their end:
	// kills aim at a random moment between a third of it and its end, so
	// that they land in the parsing, the locking and the commit alike.
	var full time.Duration
	for i := range 4 {
		start := time.Now()
		plMust(t, root, "debate", "turn", "deb_crash", "--participant-id", []string{"p1", "p2"}[i%2], "--actor", []string{"main", "partner"}[i%2], "--body", fmt.Sprintf("warm-up %d", i))
		full = max(full, time.Since(start))
	}
	aimAt := func() time.Duration { return full/3 + time.Duration(rng.Int64N(int64(full*3/4))) }
	kills, committed := 0, 0
	check := func(id string) {
		t.Helper()
		doctorClean(t, root)
		d := readDebate(t, root, id)
		file, err := os.ReadFile(filepath.Join(root, d.Artifact))
		if err != nil {
			t.Fatal(err)
		}
		r := plRun(root, -1, "", "debate", "transcript", id)
		var out struct {
			Transcript string `json:"transcript"`
		}
		json.Unmarshal([]byte(r.stdout), &out)
		if out.Transcript != string(file) {
			t.Fatalf("after kill %d: %s does not match its document", kills, d.Artifact)
		}
	}
	var hooks []string // every step of the write path, once
	for _, h := range crashHooks {
		hooks = append(hooks, h.Name)
	}
	// Until 100 random kills landed (at most 1000 calls), then each hook.
	for i, h := 0, 0; h < len(hooks) && i < 1000+len(hooks); i++ {
		d := readDebate(t, root, "deb_crash")
		pid := []string{"p1", "p2"}[len(d.Turns)%2]
		body := fmt.Sprintf("turn-body-%04d", i)
		delay, hook := aimAt(), ""
		if kills >= 100 || i >= 1000 {
			delay, hook = -1, hooks[h]
			h++
		}
		r := plRun(root, delay, hook, "debate", "turn", "deb_crash", "--participant-id", pid, "--actor", map[string]string{"p1": "main", "p2": "partner"}[pid], "--body", body)
		if r.killed {
			kills++
		} else if r.code == 0 {
			committed++
		} else {
			t.Fatalf("%v", r)
		}
		if hook != "" && !r.killed {
			t.Fatalf("with PROOFLOOP_TEST_CRASH=%s the call was not killed: %v", hook, r)
		}
		check("deb_crash")
		after := readDebate(t, root, "deb_crash")
		if step, ok := crashStep(hook); ok && len(after.Turns) > len(d.Turns) != step.Committed {
			t.Fatalf("killed at %s, the turn took effect: %v; want %v", hook, !step.Committed, step.Committed)
		}
		if r.code == 0 && (len(after.Turns) == 0 || after.Turns[len(after.Turns)-1].Body != body) {
			t.Fatalf("turn %q exited 0 but is not the last turn", body)
		}
		if n := len(after.Turns); n != len(d.Turns) && n != len(d.Turns)+1 {
			t.Fatalf("turns went from %d to %d in one call", len(d.Turns), n)
		}
		for j, tn := range after.Turns {
			if tn.TurnNumber != j+1 {
				t.Fatalf("turn %d numbered %d", j+1, tn.TurnNumber)
			}
		}
	}
	// Each turn in the document came from exactly one debate-turn event.
	events := plMust(t, root, "history", "deb_crash")
	var hist struct {
		Entries []struct {
			Command string `json:"command"`
		} `json:"entries"`
	}
	if err := json.Unmarshal([]byte(events.stdout), &hist); err != nil {
		t.Fatal(err)
	}
	turnEvents := 0
	for _, e := range hist.Entries {
		if e.Command == "debate-turn" {
			turnEvents++
		}
	}
	if n := len(readDebate(t, root, "deb_crash").Turns); n != turnEvents {
		t.Fatalf("%d turns in the document, %d debate-turn events", n, turnEvents)
	}
	// Closes: each on a fresh debate, killed at a random moment, until 20
	// kills landed (at most 200 closes).
	turnKills := kills
	for i := 0; kills < turnKills+20 && i < 200; i++ {
		id := fmt.Sprintf("deb_close_%d", i)
		plMust(t, root, "debate", "start", "--protocol", "socratic", "--topic", fmt.Sprintf("close %d", i))
		r := plRun(root, aimAt(), "", "debate", "close", id, "--outcome", "INVALIDATED", "--summary", "killed")
		if r.killed {
			kills++
		} else if r.code != 0 {
			t.Fatalf("%v", r)
		}
		check(id)
		if st := readDebate(t, root, id).Status; (r.code == 0 && !r.killed && st != "invalidated") || (st != "open" && st != "invalidated") {
			t.Fatalf("%s is %s after %v", id, st, r)
		}
	}
	t.Logf("%d kills, %d turns exited 0, %d turns in the document", kills, committed, len(readDebate(t, root, "deb_crash").Turns))
}
