package loop_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/proofloop/proofloop/store"
)

// The scripted debate agents of examples/agents, under run: one debate of
// each protocol, driven by the agents that the example's config.json names
// for the debate roles (the real files, run from the repository root).

// exampleAgents is the agents of the example project's config.json, by
// their key below agents (participant, agora.induction).
func exampleAgents(t *testing.T) map[string]string {
	t.Helper()
	var cfg struct {
		Agents store.AgentTable `json:"agents"`
	}
	readJSON(t, filepath.Join(repoRoot, "examples", "odd_squares", "config.json"), &cfg)
	out := map[string]string{}
	for _, key := range cfg.Agents.Keys() {
		protocol, role, nested := strings.Cut(key, ".")
		if !nested {
			protocol, role = "", key
		}
		a, _ := cfg.Agents.For(protocol, role)
		out[key] = a.Command()
	}
	return out
}

// debateDoc is what these tests read of `debate show --json`.
type debateDoc struct {
	Debate struct {
		Status       string `json:"status"`
		Protocol     string `json:"protocol"`
		Participants []struct {
			ID   string `json:"participant_id"`
			Role string `json:"role"`
		} `json:"participants"`
		Turns []struct {
			N             int    `json:"turn_number"`
			ParticipantID string `json:"participant_id"`
			Role          string `json:"role"`
		} `json:"turns"`
		Suggestions []struct {
			State     string  `json:"state"`
			DecidedBy *string `json:"decided_by"`
		} `json:"suggestions"`
		Outcome *struct {
			Outcome string `json:"outcome"`
		} `json:"outcome"`
	} `json:"debate"`
	Revision int `json:"revision"`
}

func showDebate(t *testing.T, root, id string) debateDoc {
	t.Helper()
	var d debateDoc
	must(t, root, "--json", "debate", "show", id).decode(t, &d)
	return d
}

// startDebate starts a debate and returns its id.
func startDebate(t *testing.T, root string, args ...string) string {
	t.Helper()
	var out struct {
		ID string `json:"id"`
	}
	must(t, root, append([]string{"--json", "debate", "start"}, args...)...).decode(t, &out)
	return out.ID
}

// debateTurnActors maps each debate's turn numbers to the actor of the
// debate-turn event that wrote it.
func debateTurnActors(t *testing.T, root string) map[string]map[int]string {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]map[int]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e struct {
			Actor   string   `json:"actor"`
			Command string   `json:"command"`
			IDs     []string `json:"ids"`
			Detail  struct {
				TurnNumber int `json:"turn_number"`
			} `json:"detail"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		if e.Command == "debate-turn" && len(e.IDs) == 1 {
			if out[e.IDs[0]] == nil {
				out[e.IDs[0]] = map[int]string{}
			}
			out[e.IDs[0]][e.Detail.TurnNumber] = e.Actor
		}
	}
	return out
}

// TestRunDrivesEveryProtocol: with the example's config.json, a run on a
// store whose problem is already solved drives one debate of each protocol
// to the outcome its scripts aim at (a run over the whole store drives the
// open debates, which belong to no problem). Every turn was written by the
// participant whose turn it was, in join order, through run's agent for
// that participant's role; the dialectic partner's suggestion was accepted
// by the decide agent.
func TestRunDrivesEveryProtocol(t *testing.T) {
	root := filepath.Join(t.TempDir(), "contents")
	must(t, root, "init", "--example", root)
	solve := runLoop(t, root, "-j", "2", "--turn-timeout", "1m", "--max-turns", "60")
	wantOutcome(t, solve, 0, "solved")

	src := filepath.Join(repoRoot, "examples", "debates", "inductive_step.md")
	type want struct {
		id      string
		outcome string
		roles   []string // of the turns, in order
	}
	debates := []want{
		{startDebate(t, root, "--protocol", "socratic", "--topic", "Is the inductive step complete?", "--source", src),
			"ACCEPTED_CONSENSUS", []string{"participant", "participant", "participant", "participant"}},
		{startDebate(t, root, "--protocol", "review", "--topic", "Review the inductive step", "--subject", src, "--source", src),
			"consensus", []string{"reviewer", "responder", "reviewer", "responder", "reviewer"}},
		{startDebate(t, root, "--protocol", "agora", "--topic", "How to prove the identity",
			"--position", "induction=Prove it by induction on n", "--position", "pairing=Prove it by pairing terms"),
			"consensus", []string{"induction", "pairing", "induction"}},
		{startDebate(t, root, "--protocol", "dialectic", "--topic", "Cite a lemma or rewrite the step?"),
			"consensus", []string{"main", "partner", "main"}},
	}
	r := runLoop(t, root, "-j", "2", "--turn-timeout", "1m", "--max-turns", "60")
	wantOutcome(t, r, 0, "solved")
	// A join is a turn of the joiner's role, so each role's count is its
	// participants plus its turns.
	wantByRole := map[string]int{"participant": 6, "reviewer": 4, "responder": 3, "induction": 3, "pairing": 2, "main": 3, "partner": 2}
	for role, n := range wantByRole {
		if r.sum.ByRole[role] != n {
			t.Errorf("run took %d turns of %s; want %d (by role: %v)", r.sum.ByRole[role], role, n, r.sum.ByRole)
		}
	}
	if r.sum.Turns != 23 || r.sum.Failed != 0 || r.sum.Idle != 0 {
		t.Errorf("run took %d turns, %d failed, %d idle; want 23, 0, 0", r.sum.Turns, r.sum.Failed, r.sum.Idle)
	}
	actors := debateTurnActors(t, root)
	for _, w := range debates {
		d := showDebate(t, root, w.id).Debate
		if d.Status != "completed" || d.Outcome == nil || d.Outcome.Outcome != w.outcome {
			t.Errorf("%s (%s) is %s with outcome %+v; want completed, %s", w.id, d.Protocol, d.Status, d.Outcome, w.outcome)
		}
		var roles []string
		for i, turn := range d.Turns {
			roles = append(roles, turn.Role)
			// Participants alternate in join order.
			p := d.Participants[i%len(d.Participants)]
			if turn.N != i+1 || turn.ParticipantID != p.ID || turn.Role != p.Role {
				t.Errorf("%s turn %d: number %d by %s (%s); want %s (%s), whose turn it was", w.id, i+1, turn.N, turn.ParticipantID, turn.Role, p.ID, p.Role)
			}
			// run's actor for a turn is <role>-<worker>: the agent of the
			// writer's role wrote it.
			if a := actors[w.id][turn.N]; !strings.HasPrefix(a, turn.Role+"-") {
				t.Errorf("%s turn %d (%s) was written by actor %q; want the %s agent", w.id, turn.N, turn.Role, a, turn.Role)
			}
		}
		if !slices.Equal(roles, w.roles) {
			t.Errorf("%s turns by %v; want %v", w.id, roles, w.roles)
		}
		if d.Protocol == "dialectic" {
			if len(d.Suggestions) != 1 || d.Suggestions[0].State != "accepted" || d.Suggestions[0].DecidedBy == nil || *d.Suggestions[0].DecidedBy != "decide" {
				t.Errorf("%s suggestions %+v; want one, accepted by decide", w.id, d.Suggestions)
			}
		}
	}
	checkSettled(t, root, r)

	// Every debate is closed: another run has nothing to do.
	again := runLoop(t, root, "--turn-timeout", "1m")
	wantOutcome(t, again, 0, "solved")
	if again.sum.Turns != 0 {
		t.Errorf("a run after every debate closed took %d turns; want 0", again.sum.Turns)
	}
}

// TestRunRefusedDebateTurn: an agent whose turn breaks its protocol's
// rules (an agora counter without evidence) fails that turn, exit 2 with
// the rule on its stderr, and nothing of the debate changes; run does not
// charge the debate an idle turn (a debate has no round budget), gives up
// on the agent after max_agent_failures turns and ends stuck, naming the
// debate and the rule.
func TestRunRefusedDebateTurn(t *testing.T) {
	agents := exampleAgents(t)
	bad := `if [ -n "${PROOFLOOP_JOIN_ROLE:-}" ]; then exec proofloop debate join "$PROOFLOOP_ID" --participant-name "$PROOFLOOP_PARTICIPANT_NAME"; fi; ` +
		`echo '{"signal": "counter", "message": "Pairing is shorter.", "confidence": 0.5}' | proofloop debate turn "$PROOFLOOP_ID" --participant-id "$PROOFLOOP_PARTICIPANT_ID" --input -`
	root := newRoot(t, map[string]any{"agents": map[string]any{"agora": map[string]string{"induction": agents["agora.induction"], "pairing": bad}}})
	id := startDebate(t, root, "--protocol", "agora", "--topic", "How to prove the identity",
		"--position", "induction=Prove it by induction on n", "--position", "pairing=Prove it by pairing terms")

	r := runLoop(t, root, "--turn-timeout", "1m")
	wantOutcome(t, r, 7, "stuck")
	// induction joins and proposes, pairing joins; then pairing's counter
	// fails three times in a row.
	if r.sum.Turns != 6 || r.sum.ByRole["induction"] != 2 || r.sum.ByRole["pairing"] != 4 || r.sum.Failed != 3 || r.sum.Idle != 0 {
		t.Errorf("summary %+v; want 6 turns (2 induction, 4 pairing), 3 failed, 0 idle", r.sum)
	}
	for n := 4; n <= 6; n++ {
		e := r.ended(t, n)
		if e.Role != "pairing" || e.Outcome != "failed" || e.ExitCode == nil || *e.ExitCode != 2 || e.Changed == nil || *e.Changed {
			t.Errorf("turn %d ended %+v; want pairing failed with exit 2, nothing changed", n, e)
		}
	}
	if len(r.sum.GivenUp) != 1 || r.sum.GivenUp[0].Role != "pairing" || !strings.Contains(strings.Join(r.sum.GivenUp[0].StderrTail, "\n"), "evidence: a counter needs evidence") {
		t.Errorf("given up %+v; want the pairing agent, with the rule in its stderr tail", r.sum.GivenUp)
	}
	if len(r.sum.Stuck) != 1 || r.sum.Stuck[0].ID != id || r.sum.Stuck[0].Role != "pairing" {
		t.Errorf("stuck %+v; want %s, waiting for pairing", r.sum.Stuck, id)
	}
	d := showDebate(t, root, id)
	if d.Debate.Status != "open" || len(d.Debate.Turns) != 1 || d.Debate.Turns[0].Role != "induction" || d.Revision != 4 {
		t.Errorf("the debate after the refused turns: %s, revision %d, turns %+v; want open at revision 4 (start, 2 joins, the proposal), only the proposal", d.Debate.Status, d.Revision, d.Debate.Turns)
	}
	checkSettled(t, root, r)
}
