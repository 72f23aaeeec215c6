package loop_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/sjson"
)

// Stores written before leases and seats recorded their actor keep working
// (DESIGN.md "Identity"): a lease without an actor binds none, so the
// declared actor acts under it as before; a seat without an actor is bound
// to the actor of its next turn, under the one-seat-per-actor rule.

// stripJSON deletes paths from a JSON file of the root, as a file written
// before the field existed would lack them.
func stripJSON(t *testing.T, file string, paths ...string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, p := range paths {
		if s, err = sjson.Delete(s, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(file, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLeaseWithoutActorBindsNone(t *testing.T) {
	root := newRoot(t, nil)
	newOdd(t, root)
	var cl leaseOut
	must(t, root, "--json", "claim", "stmt_odd_wrap", "--role", "prove", "--holder", "alice").decode(t, &cl)
	proof := []string{"state-complete-proof", "--statement-path", "stmt_odd_wrap", "--strategy", "direct",
		"--proof-text", "It is clear. Hence it holds.", "--lease", cl.Lease, "--actor", "bob"}
	// With its actor recorded, the lease refuses bob.
	if r := pl(t, root, nil, proof...); r.code != 2 || !strings.Contains(r.stderr, "claimed by alice") {
		t.Fatalf("%v\nwant exit 2: the lease is alice's", r)
	}
	stripJSON(t, filepath.Join(root, "leases", "stmt_odd_wrap.json"), "actor")
	must(t, root, proof...)
	if got := strings.TrimSpace(must(t, root, "show", "stmt_odd_wrap", "--field", "proof_author").stdout); got != "bob" {
		t.Fatalf("proof_author %q; want bob, the declared actor under a lease without one", got)
	}
}

func TestSeatWithoutActorBoundAtItsNextTurn(t *testing.T) {
	root := newRoot(t, nil)
	must(t, root, "debate", "start", "--protocol", "dialectic", "--topic", "legacy")
	must(t, root, "debate", "join", "deb_legacy", "--participant-name", "main", "--actor", "ann")
	must(t, root, "debate", "join", "deb_legacy", "--participant-name", "partner", "--actor", "ben")
	stripJSON(t, filepath.Join(root, "debate", "deb_legacy.json"), "participants.0.actor", "participants.1.actor")

	must(t, root, "debate", "turn", "deb_legacy", "--participant-id", "p1", "--actor", "ann", "--body", "One.")
	// ann now holds p1: the other seat is not hers to bind.
	if r := pl(t, root, nil, "debate", "turn", "deb_legacy", "--participant-id", "p2", "--actor", "ann", "--body", "Two."); r.code != 4 || !strings.Contains(r.stderr, "seat refused") {
		t.Fatalf("%v\nwant exit 4: ann already holds p1", r)
	}
	must(t, root, "debate", "turn", "deb_legacy", "--participant-id", "p2", "--actor", "ben", "--body", "Two.")
	if r := pl(t, root, nil, "debate", "turn", "deb_legacy", "--participant-id", "p1", "--actor", "ben", "--body", "Three."); r.code != 4 {
		t.Fatalf("%v\nwant exit 4: p1 is ann's now", r)
	}
	show := must(t, root, "--json", "debate", "show", "deb_legacy").stdout
	for _, want := range []string{`"name":"main","role":"main","actor":"ann"`, `"name":"partner","role":"partner","actor":"ben"`} {
		if !strings.Contains(show, want) {
			t.Errorf("debate show lacks %s:\n%s", want, show)
		}
	}
}

// TestRunAgentCannotActAsAnother: run claims each item in its agent's name,
// so an agent that declares another actor under its lease (by flag or by
// $PROOFLOOP_ACTOR) is refused and writes nothing.
func TestRunAgentCannotActAsAnother(t *testing.T) {
	root := newRoot(t, map[string]any{"agents": map[string]string{"prove": testAgent("impostor")}})
	newOdd(t, root)
	r := runLoop(t, root, "--turn-timeout", "1m", "--max-turns", "1")
	if r.sum.Turns != 1 || r.sum.Failed != 1 {
		t.Fatalf("run: %+v; want 1 failed turn", r.sum)
	}
	if got := fieldOf(t, root, "stmt_odd_wrap", "status"); got != "pending" {
		t.Errorf("stmt_odd_wrap status = %s; want pending: the impostor wrote nothing", got)
	}
	_, evs := events(t, root)
	for _, ev := range evs {
		if ev.Command == "state-complete-proof" {
			t.Errorf("event %d: state-complete-proof by %s; want none", ev.Seq, deref(ev.Actor))
		}
		if ev.Command == "next" && (ev.Actor == nil || *ev.Actor != "prove-1") {
			t.Errorf("event %d: run claimed as %s; want prove-1, the agent's name", ev.Seq, deref(ev.Actor))
		}
	}
	logs, _ := filepath.Glob(filepath.Join(root, r.sum.Logs, "*-prove-stmt_odd_wrap.log"))
	if len(logs) != 1 {
		t.Fatalf("turn logs %v; want one", logs)
	}
	log := readFile(t, logs[0])
	for _, want := range []string{"as check-1 by flag: exit 2", "as check-1 by environment: exit 2", "claimed by prove-1: it cannot act as check-1"} {
		if !strings.Contains(log, want) {
			t.Errorf("turn log lacks %q:\n%s", want, log)
		}
	}
}

// TestConsentUnderLeaseIsTheHolders: a dialectic suggestion decided under a
// participant's lease is decided by that participant; another declared
// actor with the lease is refused, and the suggestion stays pending.
func TestConsentUnderLeaseIsTheHolders(t *testing.T) {
	root := newRoot(t, nil)
	must(t, root, "debate", "start", "--protocol", "dialectic", "--topic", "consent")
	must(t, root, "debate", "join", "deb_consent", "--participant-name", "main", "--actor", "ann")
	must(t, root, "debate", "turn", "deb_consent", "--participant-id", "p1", "--actor", "ann", "--body", "One.")
	must(t, root, "debate", "join", "deb_consent", "--participant-name", "partner", "--actor", "ben")
	must(t, root, "debate", "turn", "deb_consent", "--participant-id", "p2", "--actor", "ben", "--body", "Two.", "--suggestion", "Do it.")
	var cl leaseOut
	must(t, root, "--json", "claim", "deb_consent", "--role", "main", "--holder", "ann").decode(t, &cl)
	if r := pl(t, root, nil, "decide", "deb_consent", "--suggestion", "1", "--accept", "--lease", cl.Lease, "--actor", "a-person"); r.code != 2 || !strings.Contains(r.stderr, "claimed by ann") {
		t.Fatalf("%v\nwant exit 2: the lease is ann's", r)
	}
	if got := strings.TrimSpace(must(t, root, "show", "deb_consent", "--field", "suggestions.0.state").stdout); got != "pending" {
		t.Fatalf("suggestion %s; want pending", got)
	}
	must(t, root, "decide", "deb_consent", "--suggestion", "1", "--accept", "--actor", "a-person")
	if got := strings.TrimSpace(must(t, root, "show", "deb_consent", "--field", "suggestions.0.decided_by").stdout); got != "a-person" {
		t.Fatalf("decided_by %s; want a-person, who gave the consent without a lease", got)
	}
}
