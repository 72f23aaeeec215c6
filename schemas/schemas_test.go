package schemas

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
)

const ts = "2026-11-22T10:04:05Z"

var minimal = map[Kind]string{
	Problem: `{
		"id": "prob_demo", "status": "pending",
		"created_at": "2026-11-22T10:04:05Z", "updated_at": "2026-11-22T10:04:05Z", "revision": 1,
		"objective": "Show that x holds.", "hypothesis": [], "parent": null,
		"preliminaries": [], "progresses": []
	}`,
	Statement: `{
		"id": "stmt_demo_wrap", "status": "pending",
		"created_at": "2026-11-22T10:04:05Z", "updated_at": "2026-11-22T10:04:05Z", "revision": 1,
		"claim": "x holds.", "premises": [], "context": "prob_demo",
		"proof": null, "proof_strategy": null, "proof_revision": 0, "sub_statements": [],
		"validate": {"issues": [], "responses": [], "confirmations": []}
	}`,
	Event:  `{"seq": 1, "time": "2026-11-22T10:04:05Z", "command": "init", "ids": [], "changes": []}`,
	Config: `{"version": 1}`,
	Journal: `{
		"seq": 1, "event": {},
		"writes": [{"path": "config.json", "content": "{\"version\":1}"}],
		"checksum": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	}`,
	Lease: `{"id": "stmt_demo_wrap", "role": "check", "holder": "check-1", "token": "0123456789abcdef0123456789abcdef",
		"claimed_at": "2026-11-22T10:04:05Z", "expires_at": "2026-11-22T10:19:05.123Z"}`,
	Debate: `{
		"id": "deb_is_p_np", "status": "open",
		"created_at": "2026-11-22T10:04:05Z", "updated_at": "2026-11-22T10:04:05Z", "revision": 1,
		"protocol": "socratic", "topic": "Is P = NP?", "topic_slug": "is_p_np", "max_turns": 6,
		"participants": [], "turns": [], "artifact": ".debates/2026-11-22-is-p-np.md"
	}`,
	ProofRevision: `{"revision": 1, "text": "Step 1: Clear.", "strategy": null, "actor": null, "at": "2026-11-22T10:04:05Z", "cause": "complete"}`,
	EvalItem:      `{"id": "f1", "claim": "It holds.", "premises": [], "label": "false", "source": "written for the test"}`,
	CheckerRecord: `{"source": "eval", "at": "2026-11-22T10:04:05Z", "role": "check", "set": "shipped", "counts": {"items": 1, "accepted_correct": 1,
		"rejected_correct": 0, "caught_flawed": 0, "missed_flawed": 0, "located": 0, "proved_false": 0, "shown_false": 0, "proposed_change": 0, "no_verdict": 0}}`,
}

var full = map[Kind]string{
	Problem: `{
		"id": "prob_demo_sub1", "status": "solved",
		"created_at": "2026-11-22T10:04:05Z", "updated_at": "2026-11-22T11:04:05.123456789Z", "revision": 7,
		"objective": "Show that x holds.", "hypothesis": ["n is a natural number", "n > 2"],
		"parent": "prob_demo",
		"preliminaries": ["prob_demo_sub1_sub1", "prob_demo_sub1_sub2"],
		"progresses": ["stmt_demo_sub1_wrap", "stmt_demo_sub1_wrap2"],
		"rationale": "Splitting off the small cases.",
		"resolution": "Immediate from the wrap-up statement.",
		"resolved_by": "stmt_demo_sub1_wrap2",
		"solved_at": "2026-11-22T11:04:05Z",
		"solved_by": "agent-solve-1"
	}`,
	Statement: `{
		"id": "stmt_demo_wrap", "status": "has_gap",
		"created_at": "2026-11-22T10:04:05Z", "updated_at": "2026-11-22T12:00:00.5Z", "revision": 12,
		"claim": "For all n > 2, x(n) holds.", "premises": ["n is a natural number"],
		"purpose": "Settles the objective directly.", "rationale": "The claim is the objective.",
		"context": "prob_demo",
		"proof": "Step 1: Let n > 2. Step 2: Then x(n) by Lemma 3. Hence the claim.",
		"proof_strategy": "direct", "proof_revision": 3, "proof_author": "agent-prove-1",
		"round": 2,
		"sub_statements": ["stmt_demo_wrap_sub1", "stmt_demo_wrap_fix1"],
		"fills_gap_at": null, "fills_issue": null,
		"counterexample": null,
		"refutation": {"source": "fix", "issue_number": 1, "response_number": 3, "actor": "agent-fix-1", "at": "2026-11-22T10:04:05Z"},
		"proposed_modification": {
			"type": "strengthen_premises", "claim": null, "premises": ["n is odd"],
			"rationale": "Even n fails.", "source": "prove", "issue_number": null, "response_number": null,
			"previous_status": "pending", "actor": null, "proposed_at": "2026-11-22T10:04:05Z"
		},
		"modification_history": [{
			"decision": "accepted", "type": "weaken_conclusion",
			"claim_before": "x(n) for all n", "premises_before": [],
			"claim_after": "For all n > 2, x(n) holds.", "premises_after": null,
			"rationale": "n = 1 fails.", "reason": "Agreed.", "decided_at": "2026-11-22T10:04:05Z", "actor": "human"
		}, {
			"decision": "rejected", "type": "add_condition",
			"claim_before": "x", "premises_before": ["p"], "decided_at": "2026-11-22T10:04:05Z"
		}],
		"verified_at": null, "verification_summary": null,
		"validate": {
			"issues": [{
				"issue_number": 1, "sentence": 2, "sentence_text": "by Lemma 3", "error_type": "gap",
				"explanation": "Lemma 3 needs n odd.", "suggested_fix": "Treat even n separately.",
				"created_at": "2026-11-22T10:04:05Z", "actor": "agent-check-1", "round": 1, "proof_revision": 1
			}, {
				"issue_number": 2, "sentence": 1, "sentence_text": "Let n > 2.", "error_type": "wrong_target",
				"explanation": "The claim is about all n.", "suggested_fix": null,
				"created_at": "2026-11-22T10:04:05Z", "round": 2, "proof_revision": 2
			}],
			"responses": [{
				"response_number": 1, "issue_addressed": 1, "issues_addressed": [1], "type": "substatement",
				"created_at": "2026-11-22T10:04:05Z", "actor": "agent-fix-1",
				"sub_statement_id": "stmt_demo_wrap_fix1", "purpose": "Covers even n.", "gap_location": 2
			}, {
				"response_number": 2, "issue_addressed": 1, "issues_addressed": [1, 2], "type": "patch",
				"created_at": "2026-11-22T10:04:05Z", "actor": null,
				"sentence_range": {"start": 2, "end": 3}, "change_description": "Cite the fix statement.",
				"replacement_text": "Then x(n) by stmt_demo_wrap_fix1.", "proof_revision": 3
			}, {
				"response_number": 3, "issue_addressed": 2, "issues_addressed": [2], "type": "false",
				"created_at": "2026-11-22T10:04:05Z", "counterexample": "n = 4."
			}, {
				"response_number": 4, "issue_addressed": 2, "issues_addressed": [2], "type": "modification",
				"created_at": "2026-11-22T10:04:05Z",
				"proposal": {"type": "strengthen_premises", "claim": null, "premises": ["n is odd"], "rationale": "Even n fails."}
			}],
			"confirmations": [{
				"actor": "agent-check-2", "proof_revision": 3, "verification_summary": "All steps checked.",
				"created_at": "2026-11-22T10:04:05Z"
			}, {"proof_revision": 2, "created_at": "2026-11-22T10:04:05Z"}]
		}
	}`,
	Event: `{
		"seq": 42, "time": "2026-11-22T10:04:05.001Z", "actor": "agent-fix-1", "command": "fix-create-substatement",
		"ids": ["stmt_demo_wrap", "stmt_demo_wrap_fix1"],
		"changes": [
			{"id": "stmt_demo_wrap", "kind": "statement", "before": "has_gap", "after": "awaiting_substatements", "revision": 9},
			{"id": "stmt_demo_wrap_fix1", "kind": "statement", "before": null, "after": "pending", "revision": 1},
			{"id": "prob_demo", "kind": "problem", "after": "solved", "revision": 3}
		],
		"lease_holder": "lease-abc",
		"detail": {"issue_number": 1, "nested": {"anything": [1, "two", null]}, "0": "numeric keys are fine"}
	}`,
	Config: `{
		"version": 1, "max_rounds": 8, "verify_quorum": 2, "forbid_self_check": false,
		"lease_ttl": "1h", "lock_timeout": "500ms",
		"agents": {"solve": "agent-solve", "prove": "agent-prove", "check": "agent-check", "fix": "agent-fix"}
	}`,
	Journal: `{
		"seq": 9,
		"event": {"seq": 9, "time": "2026-11-22T10:04:05Z", "command": "x", "ids": [], "changes": []},
		"writes": [
			{"path": "problem/prob_demo.json", "content": "{}"},
			{"path": "statement/stmt_demo_wrap.json", "content": ""},
			{"path": "config.json", "content": "{\"version\":1}"}
		],
		"checksum": "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
	}`,
	Lease: `{"id": "prob_demo", "role": "solve", "holder": "solve-1", "token": "0123456789abcdef0123456789abcdef",
		"claimed_at": "2026-11-22T10:04:05Z", "expires_at": "2026-11-22T10:19:05Z", "released_at": "2026-11-22T10:05:00Z"}`,
	Debate: `{
		"id": "deb_cache_policy_2", "status": "completed",
		"created_at": "2026-11-22T10:04:05Z", "updated_at": "2026-11-22T10:30:00.25Z", "revision": 6,
		"protocol": "agora", "topic": "Cache policy", "topic_slug": "cache_policy", "subject": null,
		"methodology": "fact-based", "source": {"path": "notes/cache.md", "sha256": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"},
		"positions": [{"role": "pro", "text": "Use LRU."}, {"role": "con", "text": "Use LFU."}],
		"max_turns": 20,
		"participants": [
			{"participant_id": "p1", "name": "alice", "role": "pro", "harness": "Claude Code", "model_id": "opus", "joined_at": "2026-11-22T10:04:06Z"},
			{"participant_id": "p2", "name": "bob", "role": "con", "joined_at": "2026-11-22T10:05:00Z"}
		],
		"turns": [
			{"turn_number": 1, "participant_id": "p1", "role": "pro", "at": "2026-11-22T10:10:00Z",
			 "signal": "propose", "message": "LRU fits the access pattern.", "confidence": 0.8, "target": null,
			 "evidence": [{"source": "trace.csv", "content": "90% recency hits", "confidence": 0.7}]},
			{"turn_number": 2, "participant_id": "p2", "role": "con", "at": "2026-11-22T10:20:00Z",
			 "signal": "approve", "message": "Agreed.", "confidence": 1, "target": "proposal-pro",
			 "evidence": [{"source": "trace.csv", "content": "few repeats", "confidence": 0.5}]},
			{"turn_number": 3, "participant_id": "p1", "role": "pro", "at": "2026-11-22T10:30:00Z",
			 "signal": "no-change", "message": "Nothing to add.", "confidence": 0.9,
			 "evidence": [{"source": "trace.csv", "content": "stable", "confidence": 0}]}
		],
		"outcome": {"outcome": "consensus", "reason": "every participant approves or accepts the proposal of pro",
			"at": "2026-11-22T10:30:00.25Z", "summary": null, "actor": null},
		"artifact": ".debates/2026-11-22-cache-policy.md",
		"flags": {"mediator_needed_at": "2026-11-22T10:25:00Z"}
	}`,
	ProofRevision: `{"revision": 4, "text": "Step 1: Let n > 2. Step 2: Then x(n).", "strategy": "direct", "actor": "fix-1",
		"at": "2026-11-22T10:04:05.5Z", "cause": "patch", "issues": [2, 3], "response_number": 3}`,
	EvalItem: `{"id": "flawed_1", "claim": "For every n >= 1, n^2 >= n.", "premises": ["n is an integer"], "proof": "Since n >= 1, n^2 = n n >= n. Hence the claim.",
		"strategy": "direct", "label": "flawed", "flawed_sentences": [1], "category": "missing edge case", "source": "written for the test"}`,
	CheckerRecord: `{"source": "canary", "at": "2026-11-22T10:04:05Z", "role": "check", "agent": "yes", "model": "m1", "label": "proofloop", "actor": "check-yes-1",
		"set": "canaries.jsonl", "counts": {"items": 1, "accepted_correct": 0, "rejected_correct": 0, "caught_flawed": 0, "missed_flawed": 1, "located": 0,
		"proved_false": 0, "shown_false": 0, "proposed_change": 0, "no_verdict": 0}, "canary": {"item": "c1", "label": "flawed", "category": "circular reasoning",
		"flawed_sentences": [2], "problem": "prob_x", "statement": "stmt_x_wrap", "verdict": "accepted", "planted_at": "2026-11-22T10:04:00Z", "run": "20261122T100400000Z"}}`,
}

// decode parses a fixture; it fails the test on bad fixtures.
func decode(t testing.TB, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("bad fixture: %v\n%s", err, s)
	}
	return m
}

func TestValidDocuments(t *testing.T) {
	for _, k := range Kinds() {
		for name, doc := range map[string]string{"minimal": minimal[k], "full": full[k]} {
			t.Run(string(k)+"/"+name, func(t *testing.T) {
				if err := Validate(k, []byte(doc)); err != nil {
					t.Fatalf("valid %s document rejected: %v", name, err)
				}
			})
		}
	}
}

func TestSources(t *testing.T) {
	for _, k := range Kinds() {
		src := Source(k)
		var s map[string]any
		if err := json.Unmarshal(src, &s); err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		if s["$schema"] != "http://json-schema.org/draft-07/schema#" {
			t.Errorf("%s: $schema is %v", k, s["$schema"])
		}
		if s["description"] == nil || s["title"] == nil {
			t.Errorf("%s: no title or description", k)
		}
		if _, err := oracleSchema(k); err != nil {
			t.Errorf("%s: %v", k, err)
		}
		// Every field is documented.
		for _, p := range undocumented(s, "$") {
			t.Errorf("%s: %s has no description", k, p)
		}
	}
}

// undocumented lists the properties without a description, skipping the
// if/then blocks, which only restate fields declared elsewhere.
func undocumented(s map[string]any, at string) []string {
	var out []string
	if props, ok := s["properties"].(map[string]any); ok {
		for name, p := range props {
			ps, _ := p.(map[string]any)
			if _, ok := ps["description"]; !ok {
				out = append(out, at+"."+name)
			}
			out = append(out, undocumented(ps, at+"."+name)...)
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		out = append(out, undocumented(items, at+"[]")...)
	}
	if defs, ok := s["definitions"].(map[string]any); ok {
		for name, d := range defs {
			ds, _ := d.(map[string]any)
			out = append(out, undocumented(ds, "#/definitions/"+name)...)
		}
	}
	slices.Sort(out)
	return out
}

func TestConcurrentFirstUse(t *testing.T) {
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k := Kinds()[i%len(Kinds())]
			if err := Validate(k, []byte(full[k])); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
}

// bigStatement is a valid statement of about 5 KB.
func bigStatement(tb testing.TB) []byte {
	m := decode(tb, full[Statement])
	m["proof"] = strings.Repeat("Step 1: Since n > 2, we have $n^2 > 4$ by monotonicity. ", 20)
	v := m["validate"].(map[string]any)
	issues := v["issues"].([]any)
	for i := 3; i <= 6; i++ {
		issues = append(issues, map[string]any{
			"issue_number": i, "sentence": i, "sentence_text": "by monotonicity", "error_type": "unjustified_leap",
			"explanation": "Monotonicity of the square needs n positive; say so.", "suggested_fix": nil,
			"created_at": ts, "actor": "agent-check-3", "round": 2, "proof_revision": 2,
		})
	}
	v["issues"] = issues
	doc, _ := json.Marshal(m)
	return doc
}

func TestBigStatement(t *testing.T) {
	doc := bigStatement(t)
	if len(doc) < 4500 || len(doc) > 6000 {
		t.Fatalf("benchmark document is %d bytes, want about 5 KB", len(doc))
	}
	if err := Validate(Statement, doc); err != nil {
		t.Fatal(err)
	}
}

func BenchmarkValidateStatement(b *testing.B) {
	doc := bigStatement(b)
	if err := Validate(Statement, doc); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := Validate(Statement, doc); err != nil {
			b.Fatal(err)
		}
	}
}
