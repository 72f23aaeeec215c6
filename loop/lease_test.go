package loop_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// claimOut is what `next --claim --json` prints.
type claimOut struct {
	OK   bool `json:"ok"`
	Item *struct {
		ID        string `json:"id"`
		Kind      string `json:"kind"`
		Role      string `json:"role"`
		Reason    string `json:"reason"`
		Lease     string `json:"lease"`
		ExpiresAt string `json:"expires_at"`
	} `json:"item"`
}

// leaseOut is what claim, refresh and release print with --json.
type leaseOut struct {
	OK         bool    `json:"ok"`
	ID         string  `json:"id"`
	Role       string  `json:"role"`
	Holder     string  `json:"holder"`
	Lease      string  `json:"lease"`
	ExpiresAt  string  `json:"expires_at"`
	ReleasedAt *string `json:"released_at"`
}

// TestNextClaimRace starts 24 worker processes at once, each calling
// `next --role prove --claim` until it gets "item":null, on a store where 40
// sub-statements wait for a prover and one problem waits for a solver.
// Every sub-statement must be claimed by exactly one worker, the problem by
// none, and every worker must end on "item":null.
func TestNextClaimRace(t *testing.T) {
	const workers, items = 24, 40
	root := newRoot(t, nil)
	newOdd(t, root)
	var subs []map[string]any
	want := map[string]bool{}
	for i := 1; i <= items; i++ {
		subs = append(subs, map[string]any{"claim": fmt.Sprintf("Case %d of the claim holds.", i), "premises": []string{}})
		want[fmt.Sprintf("stmt_odd_wrap_sub%d", i)] = true
	}
	b, _ := json.Marshal(subs)
	must(t, root, "state-setup-substatement", "--parent-statement-path", "stmt_odd_wrap",
		"--sub-statements", string(b), "--rationale", "One case each.")
	must(t, root, "new-problem", "--name", "side", "--objective", "A problem for the solver only.")

	type claim struct {
		worker, id, token string
	}
	var (
		mu      sync.Mutex
		claims  []claim
		byID    = map[string][]string{} // id -> workers that got it
		start   = make(chan struct{})
		wg      sync.WaitGroup
		failure []string
	)
	for w := 1; w <= workers; w++ {
		holder := fmt.Sprintf("w%d", w)
		wg.Go(func() {
			<-start
			for n := 0; n <= items; n++ {
				r, err := runPL(root, []string{"PROOFLOOP_LOCK_TIMEOUT=60s"}, "next", "--role", "prove", "--claim", "--holder", holder, "--json")
				var out claimOut
				if err == nil {
					err = json.Unmarshal([]byte(r.stdout), &out)
				}
				mu.Lock()
				switch {
				case r.code != 0 || err != nil || !out.OK:
					failure = append(failure, fmt.Sprintf("%v (decode: %v)", r, err))
				case out.Item == nil:
					mu.Unlock()
					return // the items ran out: this worker is done
				default:
					if out.Item.Role != "prove" || out.Item.Kind != "statement" || out.Item.Lease == "" || out.Item.ExpiresAt == "" {
						failure = append(failure, fmt.Sprintf("%s got %+v; want a prove statement with a lease and an expiry", holder, *out.Item))
					}
					claims = append(claims, claim{holder, out.Item.ID, out.Item.Lease})
					byID[out.Item.ID] = append(byID[out.Item.ID], holder)
				}
				mu.Unlock()
				if r.code != 0 || err != nil {
					return
				}
			}
			mu.Lock()
			failure = append(failure, holder+" never got \"item\":null")
			mu.Unlock()
		})
	}
	close(start)
	wg.Wait()
	for _, f := range failure {
		t.Error(f)
	}
	for id, ws := range byID {
		if !want[id] {
			t.Errorf("%s was claimed by %v; want only the %d sub-statements claimed", id, ws, items)
		}
		if len(ws) != 1 {
			t.Errorf("%s was claimed by %v; want exactly one worker", id, ws)
		}
	}
	for id := range want {
		if len(byID[id]) == 0 {
			t.Errorf("%s was claimed by nobody; want exactly one worker", id)
		}
	}
	if len(claims) != items {
		t.Errorf("%d claims in all; want %d", len(claims), items)
	}

	// What the workers were told is what the store holds.
	st := status(t, root)
	for _, c := range claims {
		l := readLease(t, root, c.id)
		if l.Holder != c.worker || l.Token != c.token || l.Role != "prove" || l.ReleasedAt != nil {
			t.Errorf("leases/%s.json = %+v; want a live prove lease of %s with token %s", c.id, l, c.worker, c.token)
		}
		if got := st[c.id].Holder; got != c.worker {
			t.Errorf("status: %s leased to %q; want %q", c.id, got, c.worker)
		}
	}
	_, evs := events(t, root)
	claimed := map[string]int{}
	for _, ev := range evs {
		if ev.Command == "next" {
			for _, id := range ev.IDs {
				claimed[id]++
			}
		}
	}
	if len(claimed) != items || slices.ContainsFunc(slices.Collect(maps.Values(claimed)), func(n int) bool { return n != 1 }) {
		t.Errorf("events.jsonl has claim events %v; want one for each of the %d sub-statements", claimed, items)
	}

	// The problem was never a prover's; a solver still gets it.
	var out claimOut
	must(t, root, "next", "--role", "solve", "--claim", "--holder", "s1", "--json").decode(t, &out)
	if out.Item == nil || out.Item.ID != "prob_side" || out.Item.Role != "solve" {
		t.Errorf("next --role solve --claim: item %+v; want prob_side for solve", out.Item)
	}
}

// TestClaimSameItemRace starts 16 `claim` processes on one item at once:
// exactly one gets the lease; the others are refused with lease_held
// (exit 5) naming the winner.
func TestClaimSameItemRace(t *testing.T) {
	const procs = 16
	root := newRoot(t, nil)
	newOdd(t, root)
	results := make([]result, procs)
	errs := make([]error, procs)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range procs {
		wg.Go(func() {
			<-start
			results[i], errs[i] = runPL(root, []string{"PROOFLOOP_LOCK_TIMEOUT=60s"}, "claim", "stmt_odd_wrap", "--role", "prove", "--holder", fmt.Sprintf("c%d", i), "--json")
		})
	}
	close(start)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var winners []leaseOut
	for _, r := range results {
		if r.code == 0 {
			var out leaseOut
			r.decode(t, &out)
			winners = append(winners, out)
		}
	}
	if len(winners) != 1 {
		t.Fatalf("%d claims succeeded; want exactly 1", len(winners))
	}
	win := winners[0]
	if l := readLease(t, root, "stmt_odd_wrap"); l.Holder != win.Holder || l.Token != win.Lease {
		t.Errorf("leases/stmt_odd_wrap.json = %+v; want the winner %s's lease %s", l, win.Holder, win.Lease)
	}
	for _, r := range results {
		if r.code == 0 {
			continue
		}
		if code := r.errorCode(t); r.code != 5 || code != "lease_held" || !strings.Contains(r.stdout, win.Holder) {
			t.Errorf("%v\nwant exit 5, lease_held, naming %s", r, win.Holder)
		}
	}
}

// TestLeaseEnforcement: while a lease is live, a skill on the item needs its
// token (--lease or PROOFLOOP_LEASE); without it, or with another token, it
// exits 5 with lease_held naming the holder and the expiry, and writes
// nothing. A skill that leaves the turn with the same role keeps the lease;
// one that ends the role's turn releases it.
func TestLeaseEnforcement(t *testing.T) {
	root := newRoot(t, nil)
	newOdd(t, root)
	var cl leaseOut
	must(t, root, "claim", "stmt_odd_wrap", "--role", "prove", "--holder", "alice", "--ttl", "10m", "--json").decode(t, &cl)
	if cl.Lease == "" || cl.Holder != "alice" || cl.Role != "prove" || cl.ExpiresAt == "" {
		t.Fatalf("claim printed %+v; want alice's prove lease with a token and an expiry", cl)
	}
	files := []string{"statement/stmt_odd_wrap.json", "problem/prob_odd.json", "events.jsonl", "leases/stmt_odd_wrap.json"}
	snap := snapshot(t, root, files)
	prove := []string{"state-complete-proof", "--statement-path", "stmt_odd_wrap", "--strategy", "induction", "--proof-text", oddProof, "--json"}

	for _, c := range []struct {
		name string
		env  []string
		args []string
	}{
		{"no token", nil, prove},
		{"another token by flag", nil, append([]string{"--lease", "0123456789abcdef0123456789abcdef"}, prove...)},
		{"another token by env", []string{"PROOFLOOP_LEASE=0123456789abcdef0123456789abcdef"}, prove},
		{"the holder's name is no token", []string{"PROOFLOOP_ACTOR=alice"}, prove},
	} {
		r := pl(t, root, c.env, c.args...)
		if code := r.errorCode(t); r.code != 5 || code != "lease_held" {
			t.Errorf("%s: %v\nwant exit 5 with lease_held", c.name, r)
		}
		if !strings.Contains(r.stdout, "alice") || !strings.Contains(r.stdout, cl.ExpiresAt) {
			t.Errorf("%s: stdout %q; want it to name the holder alice and the expiry %s", c.name, r.stdout, cl.ExpiresAt)
		}
		snap.unchanged(t, c.name)
	}
	// The same refusal for every skill, not just this one.
	r := pl(t, root, nil, "state-mark-false", "--statement-path", "stmt_odd_wrap", "--source", "prove", "--counterexample", "none", "--json")
	if code := r.errorCode(t); r.code != 5 || code != "lease_held" {
		t.Errorf("state-mark-false without the token: %v\nwant exit 5 with lease_held", r)
	}
	snap.unchanged(t, "state-mark-false without the token")

	// A lease on the problem covers the problem only.
	must(t, root, "new-problem", "--name", "side", "--objective", "Another problem.")
	var pcl leaseOut
	must(t, root, "claim", "prob_side", "--role", "solve", "--holder", "sol", "--json").decode(t, &pcl)
	// Setting up a subgoal leaves the problem with the solver: the lease holds.
	must(t, root, "--lease", pcl.Lease, "prob-setup-subgoal", "--parent-problem-path", "prob_side",
		"--subproblem-objective", "A smaller case.", "--rationale", "Start small.")
	if l := readLease(t, root, "prob_side"); l.ReleasedAt != nil || l.Token != pcl.Lease {
		t.Errorf("after prob-setup-subgoal (still solve's turn): leases/prob_side.json = %+v; want it live", l)
	}
	if h := status(t, root)["prob_side"].Holder; h != "sol" {
		t.Errorf("status: prob_side leased to %q; want sol while it is still solve's turn", h)
	}
	// Wrapping it up ends the solver's turn: the lease is released. The token
	// comes from PROOFLOOP_LEASE this time.
	r = pl(t, root, []string{"PROOFLOOP_LEASE=" + pcl.Lease}, "prob-wrapup-statement", "--problem-path", "prob_side",
		"--claim", "Another claim.", "--purpose", "The objective.", "--json")
	if r.code != 0 {
		t.Fatalf("%v\nwant exit 0 with the token in PROOFLOOP_LEASE", r)
	}
	if l := readLease(t, root, "prob_side"); l.ReleasedAt == nil {
		t.Errorf("after prob-wrapup-statement ended solve's turn: leases/prob_side.json = %+v; want released_at set", l)
	}

	// With the token the prover's skill goes through and, since it is then the
	// checker's turn, releases the lease.
	r = pl(t, root, []string{"PROOFLOOP_ACTOR=alice"}, append([]string{"--lease", cl.Lease}, prove...)...)
	if r.code != 0 {
		t.Fatalf("%v\nwant exit 0 with the token in --lease", r)
	}
	l := readLease(t, root, "stmt_odd_wrap")
	if l.ReleasedAt == nil || l.Token != cl.Lease || l.Holder != "alice" {
		t.Errorf("after the turn ended: leases/stmt_odd_wrap.json = %+v; want alice's lease with released_at set", l)
	}
	st := status(t, root)["stmt_odd_wrap"]
	if st.Holder != "" || st.Expires != "" || st.Role != "check" || st.Status != "awaiting_verification" {
		t.Errorf("status: stmt_odd_wrap = %+v; want awaiting_verification, check's turn, no lease holder", st)
	}
	_, evs := events(t, root)
	last := evs[len(evs)-1]
	if last.Command != "state-complete-proof" || last.LeaseHolder == nil || *last.LeaseHolder != "alice" {
		t.Errorf("last event = %+v; want state-complete-proof with lease_holder alice", last)
	}

	// It is no longer the prover's turn: claiming for prove is refused (exit
	// 4) and writes nothing.
	snap = snapshot(t, root, files)
	r = pl(t, root, nil, "claim", "stmt_odd_wrap", "--role", "prove", "--holder", "alice", "--json")
	if code := r.errorCode(t); r.code != 4 || code != "invalid_transition" {
		t.Errorf("%v\nwant exit 4 with invalid_transition: it is check's turn", r)
	}
	snap.unchanged(t, "claim by the wrong role")

	// The checker's lease: another holder is refused, and so is the same
	// holder name without the token (a name is not a credential: issue 10,
	// defect 8): exit 5 lease_held, saying who holds it and until when. With
	// the token, claiming again is a refresh (same token, later expiry).
	var ck leaseOut
	must(t, root, "claim", "stmt_odd_wrap", "--role", "check", "--holder", "bob", "--ttl", "1m", "--json").decode(t, &ck)
	snap = snapshot(t, root, files)
	r = pl(t, root, nil, "claim", "stmt_odd_wrap", "--role", "check", "--holder", "carol", "--json")
	if code := r.errorCode(t); r.code != 5 || code != "lease_held" || !strings.Contains(r.stdout, "bob") {
		t.Errorf("%v\nwant exit 5 with lease_held naming bob", r)
	}
	snap.unchanged(t, "claim while bob holds the lease")
	r = pl(t, root, nil, "claim", "stmt_odd_wrap", "--role", "check", "--holder", "bob", "--ttl", "1h", "--json")
	if code := r.errorCode(t); r.code != 5 || code != "lease_held" || !strings.Contains(r.stdout, "leased to bob") || !strings.Contains(r.stdout, ck.ExpiresAt) {
		t.Errorf("%v\nwant exit 5 with lease_held naming bob and the expiry %s: the name bob is not a credential", r, ck.ExpiresAt)
	}
	snap.unchanged(t, "claim by bob's name without his token")
	var again leaseOut
	must(t, root, "claim", "stmt_odd_wrap", "--role", "check", "--holder", "bob", "--ttl", "1h", "--lease", ck.Lease, "--json").decode(t, &again)
	if again.Lease != ck.Lease || !later(t, again.ExpiresAt, ck.ExpiresAt) {
		t.Errorf("bob claiming again got %+v; want his token %s with an expiry after %s", again, ck.Lease, ck.ExpiresAt)
	}
}

// TestLeaseRefreshRelease: refresh moves expires_at on, release ends the
// lease; both need the lease's own token.
func TestLeaseRefreshRelease(t *testing.T) {
	root := newRoot(t, nil)
	newOdd(t, root)
	var cl leaseOut
	must(t, root, "claim", "stmt_odd_wrap", "--role", "prove", "--holder", "alice", "--ttl", "1m", "--json").decode(t, &cl)
	files := []string{"statement/stmt_odd_wrap.json", "events.jsonl", "leases/stmt_odd_wrap.json"}

	snap := snapshot(t, root, files)
	r := pl(t, root, nil, "refresh", "stmt_odd_wrap", "--lease", "0123456789abcdef0123456789abcdef", "--ttl", "1h", "--json")
	if code := r.errorCode(t); r.code != 5 || code != "lease_held" || !strings.Contains(r.stdout, "alice") {
		t.Errorf("refresh with another token: %v\nwant exit 5 with lease_held naming alice", r)
	}
	r = pl(t, root, nil, "refresh", "stmt_odd_wrap", "--json")
	if code := r.errorCode(t); r.code != 2 || code != "usage" {
		t.Errorf("refresh without a token: %v\nwant exit 2 with usage", r)
	}
	snap.unchanged(t, "refused refreshes")

	var ref leaseOut
	must(t, root, "refresh", "stmt_odd_wrap", "--lease", cl.Lease, "--ttl", "1h", "--json").decode(t, &ref)
	l := readLease(t, root, "stmt_odd_wrap")
	if ref.Lease != cl.Lease || l.ExpiresAt != ref.ExpiresAt || l.Token != cl.Lease || l.ReleasedAt != nil {
		t.Errorf("after refresh: printed %+v, leases/stmt_odd_wrap.json %+v; want the same token, live, expiring at the printed time", ref, l)
	}
	// A 1h lease refreshed a moment after a 1m one ends at least 50m later.
	if !later(t, ref.ExpiresAt, addTime(t, cl.ExpiresAt, 50*time.Minute)) {
		t.Errorf("refresh --ttl 1h: expires_at %s; want more than 50m after the claim's %s", ref.ExpiresAt, cl.ExpiresAt)
	}
	if h := status(t, root)["stmt_odd_wrap"]; h.Holder != "alice" || h.Expires != ref.ExpiresAt {
		t.Errorf("status after refresh: %+v; want alice until %s", h, ref.ExpiresAt)
	}

	snap = snapshot(t, root, files)
	r = pl(t, root, nil, "release", "stmt_odd_wrap", "--lease", "0123456789abcdef0123456789abcdef", "--json")
	if code := r.errorCode(t); r.code != 5 || code != "lease_held" {
		t.Errorf("release with another token: %v\nwant exit 5 with lease_held", r)
	}
	snap.unchanged(t, "refused release")

	var rel leaseOut
	must(t, root, "release", "stmt_odd_wrap", "--json", "--lease", cl.Lease).decode(t, &rel)
	if l := readLease(t, root, "stmt_odd_wrap"); rel.ReleasedAt == nil || l.ReleasedAt == nil {
		t.Errorf("after release: printed %+v, leases/stmt_odd_wrap.json %+v; want released_at set", rel, l)
	}
	if h := status(t, root)["stmt_odd_wrap"].Holder; h != "" {
		t.Errorf("status after release: leased to %q; want no holder", h)
	}
	// The released token is dead: refresh and release are refused
	// (conflict), and the skill goes through without any token.
	for _, cmd := range []string{"refresh", "release"} {
		r := pl(t, root, nil, cmd, "stmt_odd_wrap", "--lease", cl.Lease, "--json")
		if code := r.errorCode(t); r.code != 5 || code != "conflict" {
			t.Errorf("%s after release: %v\nwant exit 5 with conflict", cmd, r)
		}
	}
	must(t, root, "state-complete-proof", "--statement-path", "stmt_odd_wrap", "--strategy", "induction", "--proof-text", oddProof)
}

// TestLeaseExpiry: a lease past its expires_at is ignored by next --claim,
// claim, status and the skills; its token can no longer refresh it.
func TestLeaseExpiry(t *testing.T) {
	root := newRoot(t, nil)
	newOdd(t, root)
	var cl leaseOut
	must(t, root, "claim", "stmt_odd_wrap", "--role", "prove", "--holder", "alice", "--ttl", "200ms", "--json").decode(t, &cl)
	sleepPast(t, cl.ExpiresAt)

	if h := status(t, root)["stmt_odd_wrap"]; h.Holder != "" || h.Role != "prove" {
		t.Errorf("status after expiry: %+v; want prove's turn with no lease holder", h)
	}
	r := pl(t, root, nil, "refresh", "stmt_odd_wrap", "--lease", cl.Lease, "--json")
	if code := r.errorCode(t); r.code != 5 || code != "conflict" {
		t.Errorf("refresh of an expired lease: %v\nwant exit 5 with conflict", r)
	}
	var out claimOut
	must(t, root, "next", "--role", "prove", "--claim", "--holder", "bob", "--ttl", "200ms", "--json").decode(t, &out)
	if out.Item == nil || out.Item.ID != "stmt_odd_wrap" || out.Item.Lease == cl.Lease {
		t.Fatalf("next --claim after alice's lease expired: item %+v; want stmt_odd_wrap with a new token", out.Item)
	}
	sleepPast(t, out.Item.ExpiresAt)
	var c2 leaseOut
	must(t, root, "claim", "stmt_odd_wrap", "--role", "prove", "--holder", "carol", "--ttl", "200ms", "--json").decode(t, &c2)
	if c2.Holder != "carol" || c2.Lease == out.Item.Lease {
		t.Errorf("claim after bob's lease expired: %+v; want carol with a new token", c2)
	}
	sleepPast(t, c2.ExpiresAt)
	// No token is needed once the lease expired.
	must(t, root, "state-complete-proof", "--statement-path", "stmt_odd_wrap", "--strategy", "induction", "--proof-text", oddProof)
	if st := status(t, root)["stmt_odd_wrap"]; st.Status != "awaiting_verification" || st.Holder != "" {
		t.Errorf("status after the skill: %+v; want awaiting_verification with no lease holder", st)
	}
}

// snapshotFiles holds the bytes of some files of a root, to show that a
// refused command wrote nothing.
type snapshotFiles struct {
	root  string
	files map[string]string
}

func snapshot(t *testing.T, root string, files []string) snapshotFiles {
	t.Helper()
	s := snapshotFiles{root, map[string]string{}}
	for _, f := range files {
		s.files[f] = readFile(t, filepath.Join(root, f))
	}
	return s
}

func (s snapshotFiles) unchanged(t *testing.T, after string) {
	t.Helper()
	for f, was := range s.files {
		if now := readFile(t, filepath.Join(s.root, f)); now != was {
			t.Errorf("after %s: %s changed; want it untouched\nwas: %s\nnow: %s", after, f, was, now)
		}
	}
}

func parseTime(t *testing.T, s string) time.Time {
	t.Helper()
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("timestamp %q: %v", s, err)
	}
	return tm
}

// later reports whether timestamp a is after b (or equal, for the same
// instant reported twice).
func later(t *testing.T, a, b string) bool {
	t.Helper()
	return !parseTime(t, a).Before(parseTime(t, b))
}

func addTime(t *testing.T, s string, d time.Duration) string {
	t.Helper()
	return parseTime(t, s).Add(d).Format(time.RFC3339Nano)
}

// sleepPast waits until the wall clock is past the timestamp: waiting for a
// lease to expire, not a timing assertion.
func sleepPast(t *testing.T, ts string) {
	t.Helper()
	time.Sleep(time.Until(parseTime(t, ts)) + 50*time.Millisecond)
}
