package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// checkLedger checks the store against every call that ran to its end and
// returns the number of successful mutating calls. A call that failed must
// have left no trace. A successful call must be found exactly where its
// --json output says:
//   - check-reject-proof: issue issue_number of its statement is its own
//     (its text and actor), and each statement has exactly as many issues as
//     successful rejections;
//   - fix-patch-proof, fix-create-substatement and state-mark-false --source
//     fix: response response_number is its own, and each statement has
//     exactly as many responses as such calls;
//   - every id reported in created exists, was reported once, holds the
//     call's text and names the call's target as parent or context; every
//     document in the store was reported by some call;
//   - each document's revision is 1 + the number of successful calls that
//     wrote it after creating it; no two successful calls report the same
//     revision of a document; with --expect-revision N the call reports N+1;
//   - the event that wrote each reported revision is the call's (command,
//     actor, status left), and there is one event per successful call.
func checkLedger(t *testing.T, snap *snapshot, calls []*call) int {
	t.Helper()
	idx := snap.eventIndex()
	writes := map[string]int{}
	createdBy := map[string]*call{}
	revBy := map[docKey]*call{}
	issues, responses, proofs, confirms := map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}
	want := map[string]int{} // command and actor -> successful calls
	successes := 0
	eventIs := func(k *call, key docKey, status string) {
		ev := idx[key]
		switch {
		case ev == nil:
			t.Errorf("no event wrote revision %d of %s, which this call reports: %v", key.rev, key.id, k)
		case ev.Command != k.Skill || ev.Actor == nil || *ev.Actor != k.Actor:
			t.Errorf("event %d (%s by %v) wrote revision %d of %s, which this call reports: %v", ev.Seq, ev.Command, deref(ev.Actor), key.rev, key.id, k)
		default:
			for _, ch := range ev.Changes {
				if ch.ID == key.id && status != "" && ch.After != status {
					t.Errorf("event %d left %s %s; the call reports %s: %v", ev.Seq, key.id, ch.After, status, k)
				}
			}
		}
	}
	for _, k := range calls {
		if k.Killed || !mutating(k.Skill) {
			continue
		}
		if !k.ok() {
			if ids := snap.containing(k.Token); k.Token != "" && len(ids) > 0 {
				t.Errorf("a call that failed left its text in %v: %v", ids, k)
			}
			continue
		}
		successes++
		want[k.Skill+" by "+k.Actor]++
		for _, cr := range k.Out.Created {
			if prev := createdBy[cr.ID]; prev != nil {
				t.Errorf("%s was reported created twice:\n%v\n%v", cr.ID, prev, k)
			}
			createdBy[cr.ID] = k
			writes[cr.ID]++
			kind := strings.SplitN(cr.ID, "_", 2)[0]
			if want := map[string]string{"prob": "problem/", "stmt": "statement/"}[kind] + cr.ID + ".json"; cr.Path != want {
				t.Errorf("created %s reported at %s, want %s", cr.ID, cr.Path, want)
			}
			raw, ok := snap.raw[cr.ID]
			if !ok {
				t.Errorf("created %s does not exist: %v", cr.ID, k)
				continue
			}
			if !strings.Contains(raw, k.Token) {
				t.Errorf("created %s does not hold the text of the call that reports it: %v", cr.ID, k)
			}
			if p, ok := snap.problems[cr.ID]; ok && k.Target != "" && (p.Parent == nil || *p.Parent != k.Target) {
				t.Errorf("created %s has parent %v, want %s", cr.ID, deref(p.Parent), k.Target)
			}
			if st, ok := snap.statements[cr.ID]; ok && st.Context != k.Target {
				t.Errorf("created %s has context %s, want %s", cr.ID, st.Context, k.Target)
			}
			eventIs(k, docKey{cr.ID, 1}, "")
		}
		if k.Target == "" {
			continue
		}
		writes[k.Target]++
		st := snap.statements[k.Target]
		if k.Out.ID == k.Target {
			key := docKey{k.Target, k.Out.Revision}
			if prev := revBy[key]; prev != nil {
				t.Errorf("lost update: two successful calls both report revision %d of %s:\n%v\n%v", key.rev, key.id, prev, k)
			}
			revBy[key] = k
			if k.Expect >= 0 && k.Out.Revision != k.Expect+1 {
				t.Errorf("call with --expect-revision %d reports revision %d: %v", k.Expect, k.Out.Revision, k)
			}
			eventIs(k, key, k.Out.Status)
		}
		if st == nil {
			continue // a problem: wrap-up and subgoal were checked through created
		}
		switch k.Skill {
		case "check-reject-proof", "reopen":
			issues[k.Target]++
			n := k.Out.IssueNumber
			if n < 1 || n > len(st.Validate.Issues) {
				t.Errorf("reported issue %d of %s does not exist (it has %d): %v", n, k.Target, len(st.Validate.Issues), k)
			} else if is := st.Validate.Issues[n-1]; !strings.Contains(is.Explanation, k.Token) || deref(is.Actor) != k.Actor {
				t.Errorf("issue %d of %s is %q by %s, not this call's: %v", n, k.Target, is.Explanation, deref(is.Actor), k)
			}
		case "fix-patch-proof", "fix-create-substatement", "state-mark-false":
			if k.Skill == "state-mark-false" {
				if st.Status != "false" || st.Counterexample == nil || !strings.Contains(*st.Counterexample, k.Token) {
					t.Errorf("%s is %s with counterexample %q after this call: %v", k.Target, st.Status, deref(st.Counterexample), k)
				}
				if argValue(k.Args, "--source") != "fix" {
					break
				}
			}
			if k.Skill == "fix-patch-proof" {
				proofs[k.Target]++
			}
			responses[k.Target]++
			n := k.Out.ResponseNumber
			if n < 1 || n > len(st.Validate.Responses) {
				t.Errorf("reported response %d of %s does not exist (it has %d): %v", n, k.Target, len(st.Validate.Responses), k)
				break
			}
			r := st.Validate.Responses[n-1]
			wantType := map[string]string{"fix-patch-proof": "patch", "fix-create-substatement": "substatement", "state-mark-false": "false"}[k.Skill]
			b, _ := json.Marshal(r)
			if r.Type != wantType || !strings.Contains(string(b), k.Token) || deref(r.Actor) != k.Actor {
				t.Errorf("response %d of %s is %s, not this call's: %v", n, k.Target, b, k)
			}
			if k.Skill == "fix-create-substatement" {
				if len(k.Out.Created) != 1 || k.Out.Created[0].ID != k.Out.SubStatementID || r.SubStatementID != k.Out.SubStatementID {
					t.Errorf("response %d of %s names sub-statement %s; the call reports %s and created %v: %v", n, k.Target, r.SubStatementID, k.Out.SubStatementID, k.Out.Created, k)
				} else if c := snap.statements[r.SubStatementID]; c == nil || c.FillsGapAt == nil {
					t.Errorf("gap-filling sub-statement %s is missing or has no fills_gap_at", r.SubStatementID)
				}
			}
		case "state-complete-proof":
			proofs[k.Target]++
		case "check-confirm-proof":
			confirms[k.Target]++
			found := 0
			for _, c := range st.Validate.Confirmations {
				if c.VerificationSummary != nil && strings.Contains(*c.VerificationSummary, k.Token) && deref(c.Actor) == k.Actor {
					found++
				}
			}
			if found != 1 {
				t.Errorf("%s holds %d confirmations of this call, want 1: %v", k.Target, found, k)
			}
		case "state-setup-substatement":
			var ids []string
			for _, cr := range k.Out.Created {
				ids = append(ids, cr.ID)
			}
			if len(ids) == 0 || strings.Join(ids, ",") != strings.Join(k.Out.SubStatements, ",") {
				t.Errorf("created %v but reports sub_statements %v: %v", ids, k.Out.SubStatements, k)
			}
		}
	}
	for _, id := range sortedKeys(snap.raw) {
		rev, _ := snap.revision(id)
		if rev != writes[id] {
			t.Errorf("%s is at revision %d, but %d successful calls wrote it (creation included)", id, rev, writes[id])
		}
		if createdBy[id] == nil {
			t.Errorf("%s exists, but no successful call reported creating it", id)
		}
		st := snap.statements[id]
		if st == nil {
			continue
		}
		for r := 2; r <= rev; r++ {
			if revBy[docKey{id, r}] == nil {
				t.Errorf("no successful call reports revision %d of %s (it is at %d)", r, id, rev)
			}
		}
		if got := len(st.Validate.Issues); got != issues[id] {
			t.Errorf("%s has %d issues; %d rejections succeeded", id, got, issues[id])
		}
		if got := len(st.Validate.Responses); got != responses[id] {
			t.Errorf("%s has %d responses; %d responding calls succeeded", id, got, responses[id])
		}
		if st.ProofRevision != proofs[id] {
			t.Errorf("%s is at proof revision %d; %d proofs and patches succeeded", id, st.ProofRevision, proofs[id])
		}
		if got := len(st.Validate.Confirmations); got != confirms[id] {
			t.Errorf("%s has %d confirmations; %d confirmations succeeded", id, got, confirms[id])
		}
	}
	for id := range createdBy {
		if _, ok := snap.raw[id]; !ok {
			t.Errorf("%s was reported created but does not exist", id)
		}
	}
	if len(snap.events) != successes {
		t.Errorf("events.jsonl has %d lines; %d mutating calls succeeded", len(snap.events), successes)
	}
	got := map[string]int{}
	for _, ev := range snap.events {
		got[ev.Command+" by "+deref(ev.Actor)]++
	}
	for key, n := range want {
		if got[key] != n {
			t.Errorf("events.jsonl has %d events %s; %d such calls succeeded", got[key], key, n)
		}
	}
	for key, n := range got {
		if want[key] == 0 {
			t.Errorf("events.jsonl has %d events %s; no such call succeeded", n, key)
		}
	}
	return successes
}

func deref(s *string) string {
	if s == nil {
		return "<null>"
	}
	return *s
}

// argValue returns the value after flag in args, or "".
func argValue(args []string, flag string) string {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == flag {
			return args[i+1]
		}
	}
	return ""
}
