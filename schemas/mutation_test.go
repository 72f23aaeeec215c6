package schemas

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// walk follows a dotted path ("validate.issues.0") through maps and arrays.
func walk(t testing.TB, v any, path []string) any {
	t.Helper()
	for _, s := range path {
		switch n := v.(type) {
		case map[string]any:
			v = n[s]
		case []any:
			i, err := strconv.Atoi(s)
			if err != nil || i >= len(n) {
				t.Fatalf("bad index %q", s)
			}
			v = n[i]
		default:
			t.Fatalf("cannot walk into %T at %q", v, s)
		}
	}
	return v
}

// set sets the value at a dotted path; the last segment is a map key or an
// array index.
func set(path string, val any) func(testing.TB, map[string]any) {
	return func(t testing.TB, m map[string]any) {
		segs := strings.Split(path, ".")
		parent := walk(t, m, segs[:len(segs)-1])
		last := segs[len(segs)-1]
		switch n := parent.(type) {
		case map[string]any:
			n[last] = val
		case []any:
			i, _ := strconv.Atoi(last)
			n[i] = val
		default:
			t.Fatalf("cannot set in %T", parent)
		}
	}
}

// del removes the map key at a dotted path.
func del(path string) func(testing.TB, map[string]any) {
	return func(t testing.TB, m map[string]any) {
		segs := strings.Split(path, ".")
		parent, ok := walk(t, m, segs[:len(segs)-1]).(map[string]any)
		if !ok {
			t.Fatalf("%s: parent is not an object", path)
		}
		if _, ok := parent[segs[len(segs)-1]]; !ok {
			t.Fatalf("%s: no such field in the fixture", path)
		}
		delete(parent, segs[len(segs)-1])
	}
}

// both applies several mutations.
func both(fs ...func(testing.TB, map[string]any)) func(testing.TB, map[string]any) {
	return func(t testing.TB, m map[string]any) {
		for _, f := range fs {
			f(t, m)
		}
	}
}

func paths(fs []Failure) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Path)
	}
	return out
}

// validVariants are documents that pass their schema: a fixture and a change to it.
var validVariants = []struct {
	name string
	kind Kind
	base map[Kind]string
	mut  func(testing.TB, map[string]any)
}{
	{"pending problem may carry nulls", Problem, minimal, both(set("rationale", nil), set("resolution", nil), set("resolved_by", nil), set("solved_at", nil), set("solved_by", nil))},
	{"every statement status", Statement, minimal, set("status", "needs_modification")},
	{"every strategy", Statement, minimal, set("proof_strategy", "construction")},
	{"context may be a statement", Statement, minimal, set("context", "stmt_demo_wrap")},
	{"gap-filling sub-statement", Statement, minimal, both(set("fills_gap_at", 3), set("fills_issue", 1))},
	{"null refutation and proposal", Statement, full, both(set("refutation", nil), set("proposed_modification", nil))},
	{"round 0", Statement, full, set("round", 0)},
	{"actor at 200 characters", Statement, full, set("proof_author", strings.Repeat("a", 200))},
	{"id at 128 characters", Statement, minimal, set("id", "stmt_"+strings.Repeat("x", 123))},
	{"event with no optional fields", Event, full, both(del("actor"), del("lease_holder"), del("detail"))},
	{"event detail is free-form", Event, minimal, set("detail", map[string]any{"x": []any{1, map[string]any{"y": nil}}})},
	{"empty agents", Config, minimal, set("agents", map[string]any{})},
	{"journal mark", Journal, minimal, both(del("event"), del("writes"), set("wal_at", 57))},
	// The bounded names are a pattern and a maxLength, not a {0,39}: a
	// bounded repeat compiles to one copy per count at every start.
	{"agent role name at 40 characters", Config, full, set("agents.a"+strings.Repeat("b", 39), "x")},
	{"agent name at 40 characters", Config, full, set("agents.fix", []any{map[string]any{"name": strings.Repeat("a", 40), "command": "x"}})},
	{"dispute debate id at 128 characters", Statement, full, set("validate.issues.0.dispute", map[string]any{"debate": "deb_" + strings.Repeat("x", 124), "opened_at": ts})},
	{"duration in ms", Config, minimal, set("lock_timeout", "250ms")},
	{"debate invalidated", Debate, minimal, set("status", "invalidated")},
	{"second debate on a topic", Debate, minimal, set("id", "deb_is_p_np_2")},
	{"dialectic user turn and a decided suggestion", Debate, minimal, both(set("protocol", "dialectic"),
		set("turns", []any{map[string]any{"turn_number": 1, "participant_id": "user", "role": "user", "at": ts, "body": "Consider cost."}}),
		set("suggestions", []any{map[string]any{"number": 1, "turn_number": 1, "text": "add a test", "state": "accepted", "decided_by": "ann", "decided_at": ts}}))},
}

func TestValidVariants(t *testing.T) {
	for _, c := range validVariants {
		t.Run(c.name, func(t *testing.T) {
			m := decode(t, c.base[c.kind])
			c.mut(t, m)
			doc, _ := json.Marshal(m)
			if err := Validate(c.kind, doc); err != nil {
				t.Fatalf("rejected: %v", err)
			}
		})
	}
}

// invalidDocuments are documents that fail their schema: a fixture, a change to it, and the failures.
var invalidDocuments = []struct {
	name  string
	kind  Kind
	base  map[Kind]string
	mut   func(testing.TB, map[string]any)
	paths []string // every failure path, sorted
	msg   string   // a part of the first failure's message
}{
	// problem
	{"problem missing id", Problem, minimal, del("id"), []string{"$.id"}, "is required"},
	{"problem missing hypothesis", Problem, full, del("hypothesis"), []string{"$.hypothesis"}, "is required"},
	{"problem missing parent", Problem, minimal, del("parent"), []string{"$.parent"}, "is required"},
	{"problem bad status", Problem, minimal, set("status", "done"), []string{"$.status"}, `must be one of "pending", "solved", not "done"`},
	{"problem bad id", Problem, minimal, set("id", "stmt_demo"), []string{"$.id"}, "must be a problem id"},
	{"problem id with upper case", Problem, minimal, set("id", "prob_Demo"), []string{"$.id"}, "problem id"},
	{"problem id too long", Problem, minimal, set("id", "prob_"+strings.Repeat("x", 124)), []string{"$.id"}, "at most 128 characters"},
	{"problem empty objective", Problem, minimal, set("objective", ""), []string{"$.objective"}, "must not be empty"},
	{"problem objective wrong type", Problem, minimal, set("objective", 3), []string{"$.objective"}, "must be a string, not an integer"},
	{"problem hypothesis not strings", Problem, full, set("hypothesis.1", 2), []string{"$.hypothesis[1]"}, "must be a string"},
	{"problem bad parent", Problem, full, set("parent", "demo"), []string{"$.parent"}, "problem id"},
	{"problem bad preliminary", Problem, full, set("preliminaries.1", "stmt_x"), []string{"$.preliminaries[1]"}, "problem id"},
	{"problem duplicate preliminaries", Problem, full, set("preliminaries.1", "prob_demo_sub1_sub1"), []string{"$.preliminaries"}, "must not repeat"},
	{"problem duplicate progresses", Problem, full, set("progresses.1", "stmt_demo_sub1_wrap"), []string{"$.progresses"}, "must not repeat"},
	{"problem bad progress", Problem, full, set("progresses.0", "prob_x"), []string{"$.progresses[0]"}, "statement id"},
	{"problem bad created_at", Problem, minimal, set("created_at", "2026-11-22 10:04:05"), []string{"$.created_at"}, "UTC timestamp"},
	{"problem timestamp with offset", Problem, minimal, set("updated_at", "2026-11-22T10:04:05+01:00"), []string{"$.updated_at"}, "UTC timestamp"},
	{"problem revision 0", Problem, minimal, set("revision", 0), []string{"$.revision"}, "must be at least 1, not 0"},
	{"problem negative revision", Problem, minimal, set("revision", -1), []string{"$.revision"}, "at least 1"},
	{"problem fractional revision", Problem, minimal, set("revision", 1.5), []string{"$.revision"}, "must be an integer, not a number"},
	{"problem additional property", Problem, minimal, set("owner", "me"), []string{"$.owner"}, "not allowed"},
	{"problem actor too long", Problem, full, set("solved_by", strings.Repeat("a", 201)), []string{"$.solved_by"}, "at most 200"},
	{"problem actor wrong type", Problem, full, set("solved_by", false), []string{"$.solved_by"}, "must be a string or null, not a boolean"},
	{"solved problem missing resolution", Problem, full, del("resolution"), []string{"$.resolution"}, "is required"},
	{"solved problem null resolved_by", Problem, full, set("resolved_by", nil), []string{"$.resolved_by"}, "must be a string, not null"},
	{"solved problem missing solved_at", Problem, full, del("solved_at"), []string{"$.solved_at"}, "is required"},
	{"solved problem bad solved_at", Problem, full, set("solved_at", "yesterday"), []string{"$.solved_at"}, "UTC timestamp"},
	{"solved problem bad resolved_by", Problem, full, set("resolved_by", "prob_x"), []string{"$.resolved_by"}, "statement id"},
	{"solved problem with nothing set", Problem, minimal, set("status", "solved"), []string{"$.resolution", "$.resolved_by", "$.solved_at"}, "is required"},
	{"root not an object", Problem, minimal, func(t testing.TB, m map[string]any) { clear(m) }, []string{"$.created_at", "$.hypothesis", "$.id", "$.objective", "$.parent", "$.preliminaries", "$.progresses", "$.revision", "$.status", "$.updated_at"}, "is required"},

	// statement: top level
	{"statement missing claim", Statement, minimal, del("claim"), []string{"$.claim"}, "is required"},
	{"statement missing validate", Statement, minimal, del("validate"), []string{"$.validate"}, "is required"},
	{"statement missing proof", Statement, minimal, del("proof"), []string{"$.proof"}, "is required"},
	{"statement missing proof_strategy", Statement, minimal, del("proof_strategy"), []string{"$.proof_strategy"}, "is required"},
	{"statement missing sub_statements", Statement, minimal, del("sub_statements"), []string{"$.sub_statements"}, "is required"},
	{"statement bad status", Statement, minimal, set("status", "awaiting_substatement"), []string{"$.status"}, `"awaiting_substatements"`},
	{"statement problem status", Statement, minimal, set("status", "solved"), []string{"$.status"}, "must be one of"},
	{"statement bad strategy", Statement, full, set("proof_strategy", "magic"), []string{"$.proof_strategy"}, "must be one of"},
	{"statement strategy wrong type", Statement, full, set("proof_strategy", 1), []string{"$.proof_strategy"}, "must be a string or null"},
	{"statement bad id", Statement, minimal, set("id", "stmt-demo"), []string{"$.id"}, "statement id"},
	{"statement bad context", Statement, minimal, set("context", "demo"), []string{"$.context"}, "problem or statement id"},
	{"statement negative proof_revision", Statement, minimal, set("proof_revision", -1), []string{"$.proof_revision"}, "at least 0"},
	{"statement negative round", Statement, full, set("round", -1), []string{"$.round"}, "at least 0"},
	{"statement revision string", Statement, minimal, set("revision", "1"), []string{"$.revision"}, "must be an integer, not a string"},
	{"statement fills_gap_at 0", Statement, minimal, set("fills_gap_at", 0), []string{"$.fills_gap_at"}, "at least 1"},
	{"statement fills_issue 0", Statement, minimal, set("fills_issue", 0), []string{"$.fills_issue"}, "at least 1"},
	{"statement premises null", Statement, minimal, set("premises", nil), []string{"$.premises"}, "must be an array, not null"},
	{"statement duplicate sub_statements", Statement, full, set("sub_statements.1", "stmt_demo_wrap_sub1"), []string{"$.sub_statements"}, "items 0 and 1"},
	{"statement bad sub_statement id", Statement, full, set("sub_statements.0", "prob_demo"), []string{"$.sub_statements[0]"}, "statement id"},
	{"statement bad verified_at", Statement, minimal, set("verified_at", "2026-11-22"), []string{"$.verified_at"}, "UTC timestamp"},
	{"statement bad proof_author", Statement, full, set("proof_author", 7), []string{"$.proof_author"}, "string or null"},
	{"statement additional property", Statement, full, set("notes", "x"), []string{"$.notes"}, "not allowed"},

	// statement: refutation and modifications
	{"refutation bad source", Statement, full, set("refutation.source", "check"), []string{"$.refutation.source"}, `"prove", "fix"`},
	{"refutation missing at", Statement, full, del("refutation.at"), []string{"$.refutation.at"}, "is required"},
	{"refutation issue 0", Statement, full, set("refutation.issue_number", 0), []string{"$.refutation.issue_number"}, "at least 1"},
	{"refutation extra field", Statement, full, set("refutation.by", "x"), []string{"$.refutation.by"}, "not allowed"},
	{"refutation not an object", Statement, full, set("refutation", "x"), []string{"$.refutation"}, "must be an object or null, not a string"},
	{"proposal bad type", Statement, full, set("proposed_modification.type", "rewrite"), []string{"$.proposed_modification.type"}, "strengthen_premises"},
	{"proposal bad source", Statement, full, set("proposed_modification.source", "solve"), []string{"$.proposed_modification.source"}, "must be one of"},
	{"proposal bad previous_status", Statement, full, set("proposed_modification.previous_status", "solved"), []string{"$.proposed_modification.previous_status"}, "must be one of"},
	{"proposal missing rationale", Statement, full, del("proposed_modification.rationale"), []string{"$.proposed_modification.rationale"}, "is required"},
	{"proposal missing proposed_at", Statement, full, del("proposed_modification.proposed_at"), []string{"$.proposed_modification.proposed_at"}, "is required"},
	{"proposal premises not strings", Statement, full, set("proposed_modification.premises.0", 1), []string{"$.proposed_modification.premises[0]"}, "must be a string"},
	{"history bad decision", Statement, full, set("modification_history.0.decision", "maybe"), []string{"$.modification_history[0].decision"}, `"accepted", "rejected"`},
	{"history bad type", Statement, full, set("modification_history.1.type", "x"), []string{"$.modification_history[1].type"}, "must be one of"},
	{"history missing claim_before", Statement, full, del("modification_history.1.claim_before"), []string{"$.modification_history[1].claim_before"}, "is required"},
	{"history missing premises_before", Statement, full, del("modification_history.0.premises_before"), []string{"$.modification_history[0].premises_before"}, "is required"},
	{"history bad decided_at", Statement, full, set("modification_history.0.decided_at", "now"), []string{"$.modification_history[0].decided_at"}, "UTC timestamp"},

	// statement: validate
	{"validate missing confirmations", Statement, minimal, del("validate.confirmations"), []string{"$.validate.confirmations"}, "is required"},
	{"validate extra field", Statement, minimal, set("validate.notes", []any{}), []string{"$.validate.notes"}, "not allowed"},
	{"issue missing sentence_text", Statement, full, del("validate.issues.0.sentence_text"), []string{"$.validate.issues[0].sentence_text"}, "is required"},
	{"issue empty sentence_text", Statement, full, set("validate.issues.1.sentence_text", ""), []string{"$.validate.issues[1].sentence_text"}, "must not be empty"},
	{"issue sentence 0", Statement, full, set("validate.issues.0.sentence", 0), []string{"$.validate.issues[0].sentence"}, "at least 1"},
	{"issue sentence string", Statement, full, set("validate.issues.0.sentence", "2"), []string{"$.validate.issues[0].sentence"}, "must be an integer"},
	{"issue bad error_type", Statement, full, set("validate.issues.1.error_type", "typo"), []string{"$.validate.issues[1].error_type"}, "unjustified_leap"},
	{"issue missing explanation", Statement, full, del("validate.issues.0.explanation"), []string{"$.validate.issues[0].explanation"}, "is required"},
	{"issue missing round", Statement, full, del("validate.issues.0.round"), []string{"$.validate.issues[0].round"}, "is required"},
	{"issue missing proof_revision", Statement, full, del("validate.issues.0.proof_revision"), []string{"$.validate.issues[0].proof_revision"}, "is required"},
	{"issue round 0", Statement, full, set("validate.issues.0.round", 0), []string{"$.validate.issues[0].round"}, "at least 1"},
	{"issue bad created_at", Statement, full, set("validate.issues.1.created_at", "2026-11-22T10:04:05"), []string{"$.validate.issues[1].created_at"}, "UTC timestamp"},
	{"issue extra field", Statement, full, set("validate.issues.0.priority", "high"), []string{"$.validate.issues[0].priority"}, "not allowed"},
	{"issue bad severity", Statement, full, set("validate.issues.0.severity", "high"), []string{"$.validate.issues[0].severity"}, "must be one of"},
	{"revision bad cause", ProofRevision, full, set("cause", "decide"), []string{"$.cause"}, "must be one of"},
	{"revision missing text", ProofRevision, minimal, del("text"), []string{"$.text"}, "is required"},
	{"revision zero", ProofRevision, minimal, set("revision", 0), []string{"$.revision"}, "at least 1"},
	{"response bad type", Statement, full, set("validate.responses.0.type", "rewrite"), []string{"$.validate.responses[0].type"}, `"patch", "substatement", "false", "modification"`},
	{"response missing issue_addressed", Statement, full, del("validate.responses.2.issue_addressed"), []string{"$.validate.responses[2].issue_addressed"}, "is required"},
	{"response missing issues_addressed", Statement, full, del("validate.responses.2.issues_addressed"), []string{"$.validate.responses[2].issues_addressed"}, "is required"},
	{"response empty issues_addressed", Statement, full, set("validate.responses.2.issues_addressed", []any{}), []string{"$.validate.responses[2].issues_addressed"}, "must not be empty"},
	{"response issues_addressed 0", Statement, full, set("validate.responses.1.issues_addressed.1", 0), []string{"$.validate.responses[1].issues_addressed[1]"}, "at least 1"},
	{"response missing created_at", Statement, full, del("validate.responses.3.created_at"), []string{"$.validate.responses[3].created_at"}, "is required"},
	{"patch missing sentence_range", Statement, full, del("validate.responses.1.sentence_range"), []string{"$.validate.responses[1].sentence_range"}, "is required"},
	{"patch missing change_description", Statement, full, del("validate.responses.1.change_description"), []string{"$.validate.responses[1].change_description"}, "is required"},
	{"patch missing proof_revision", Statement, full, del("validate.responses.1.proof_revision"), []string{"$.validate.responses[1].proof_revision"}, "is required"},
	{"patch range missing end", Statement, full, del("validate.responses.1.sentence_range.end"), []string{"$.validate.responses[1].sentence_range.end"}, "is required"},
	{"patch range start 0", Statement, full, set("validate.responses.1.sentence_range.start", 0), []string{"$.validate.responses[1].sentence_range.start"}, "at least 1"},
	{"substatement missing sub_statement_id", Statement, full, del("validate.responses.0.sub_statement_id"), []string{"$.validate.responses[0].sub_statement_id"}, "is required"},
	{"substatement bad sub_statement_id", Statement, full, set("validate.responses.0.sub_statement_id", "stmt demo"), []string{"$.validate.responses[0].sub_statement_id"}, "statement id"},
	{"substatement gap_location 0", Statement, full, set("validate.responses.0.gap_location", 0), []string{"$.validate.responses[0].gap_location"}, "at least 1"},
	{"false missing counterexample", Statement, full, del("validate.responses.2.counterexample"), []string{"$.validate.responses[2].counterexample"}, "is required"},
	{"modification missing proposal", Statement, full, del("validate.responses.3.proposal"), []string{"$.validate.responses[3].proposal"}, "is required"},
	{"modification proposal bad type", Statement, full, set("validate.responses.3.proposal.type", "x"), []string{"$.validate.responses[3].proposal.type"}, "must be one of"},
	{"modification proposal missing rationale", Statement, full, del("validate.responses.3.proposal.rationale"), []string{"$.validate.responses[3].proposal.rationale"}, "is required"},
	{"type change needs the new type's fields", Statement, full, set("validate.responses.2.type", "patch"), []string{"$.validate.responses[2].change_description", "$.validate.responses[2].proof_revision", "$.validate.responses[2].sentence_range"}, "is required"},
	{"confirmation missing proof_revision", Statement, full, del("validate.confirmations.1.proof_revision"), []string{"$.validate.confirmations[1].proof_revision"}, "is required"},
	{"confirmation negative proof_revision", Statement, full, set("validate.confirmations.0.proof_revision", -2), []string{"$.validate.confirmations[0].proof_revision"}, "at least 0"},
	{"confirmation bad created_at", Statement, full, set("validate.confirmations.0.created_at", ""), []string{"$.validate.confirmations[0].created_at"}, "UTC timestamp"},

	// event
	{"event missing seq", Event, minimal, del("seq"), []string{"$.seq"}, "is required"},
	{"event seq 0", Event, minimal, set("seq", 0), []string{"$.seq"}, "at least 1"},
	{"event bad time", Event, minimal, set("time", "10:04"), []string{"$.time"}, "UTC timestamp"},
	{"event missing changes", Event, minimal, del("changes"), []string{"$.changes"}, "is required"},
	{"event bad id", Event, full, set("ids.1", "../etc/passwd"), []string{"$.ids[1]"}, "problem, statement or debate id"},
	{"event bad change kind", Event, full, set("changes.0.kind", "config"), []string{"$.changes[0].kind"}, `"problem", "statement"`},
	{"event bad before", Event, full, set("changes.0.before", "opened"), []string{"$.changes[0].before"}, "must be one of"},
	{"event null after", Event, full, set("changes.1.after", nil), []string{"$.changes[1].after"}, "must be a string, not null"},
	{"event bad after", Event, full, set("changes.2.after", "closed"), []string{"$.changes[2].after"}, "must be one of"},
	{"event change missing revision", Event, full, del("changes.2.revision"), []string{"$.changes[2].revision"}, "is required"},
	{"event change revision 0", Event, full, set("changes.0.revision", 0), []string{"$.changes[0].revision"}, "at least 1"},
	{"event change extra field", Event, full, set("changes.0.path", "x"), []string{"$.changes[0].path"}, "not allowed"},
	{"event detail not an object", Event, full, set("detail", "x"), []string{"$.detail"}, "must be an object"},
	{"event empty command", Event, minimal, set("command", ""), []string{"$.command"}, "must not be empty"},
	{"event numeric-looking key", Event, minimal, set("0", 1), []string{`$["0"]`}, "not allowed"},
	{"event key with a dot", Event, minimal, func(t testing.TB, m map[string]any) { m["a.b"] = 1 }, []string{`$["a.b"]`}, "not allowed"},

	// config
	{"config missing version", Config, full, del("version"), []string{"$.version"}, "is required"},
	{"config version 2", Config, minimal, set("version", 2), []string{"$.version"}, "must be 1, not 2"},
	{"config max_rounds 0", Config, full, set("max_rounds", 0), []string{"$.max_rounds"}, "at least 1"},
	{"config verify_quorum string", Config, full, set("verify_quorum", "2"), []string{"$.verify_quorum"}, "must be an integer"},
	{"config forbid_self_check string", Config, full, set("forbid_self_check", "yes"), []string{"$.forbid_self_check"}, "must be a boolean"},
	{"config bad lease_ttl", Config, full, set("lease_ttl", "15 minutes"), []string{"$.lease_ttl"}, "must be a duration"},
	{"config bad lock_timeout", Config, full, set("lock_timeout", "1.5s"), []string{"$.lock_timeout"}, "must be a duration"},
	{"config bad agent role name", Config, full, set("agents.Judge", "x"), []string{"$.agents", "$.agents"}, "does not match"},
	{"config max_rounds above its bound", Config, full, set("max_rounds", 1001), []string{"$.max_rounds"}, ""},
	{"config agent role name of 41 characters", Config, full, set("agents.a"+strings.Repeat("b", 40), "x"), []string{"$.agents", "$.agents"}, ""},
	{"dispute debate id of 129 characters", Statement, full, set("validate.issues.0.dispute", map[string]any{"debate": "deb_" + strings.Repeat("x", 125), "opened_at": ts}), []string{"$.validate.issues[0].dispute.debate"}, ""},
	{"config agent name of 41 characters", Config, full, set("agents.fix", []any{map[string]any{"name": strings.Repeat("a", 41), "command": "x"}}), []string{"$.agents.fix", "$.agents.fix[0].name"}, "one and only one"},
	{"config agent neither a command nor a list", Config, full, set("agents.fix", 1), []string{"$.agents.fix", "$.agents.fix"}, "one and only one"},
	{"config agent of a list without a command", Config, full, set("agents.fix", []any{map[string]any{"name": "a"}}), []string{"$.agents.fix", "$.agents.fix[0].command"}, "one and only one"},
	{"config unknown setting", Config, minimal, set("max_round", 3), []string{"$.max_round"}, "not allowed"},

	// journal
	{"journal missing checksum", Journal, minimal, del("checksum"), []string{"$.checksum"}, "is required"},
	{"journal bad checksum", Journal, minimal, set("checksum", strings.Repeat("A", 64)), []string{"$.checksum"}, "64 lowercase hex digits"},
	{"journal short checksum", Journal, minimal, set("checksum", "abc"), []string{"$.checksum"}, "64 lowercase hex digits"},
	{"journal event not an object", Journal, minimal, set("event", "{}"), []string{"$.event"}, "must be an object"},
	{"journal no writes", Journal, minimal, set("writes", []any{}), []string{"$.writes"}, "must not be empty"},
	{"journal path escapes", Journal, full, set("writes.1.path", "statement/../../etc.json"), []string{"$.writes[1].path"}, "statement/<id>.json"},
	{"journal path for lock file", Journal, full, set("writes.2.path", ".lock"), []string{"$.writes[2].path"}, "config.json"},
	{"journal write missing content", Journal, full, del("writes.0.content"), []string{"$.writes[0].content"}, "is required"},
	{"journal seq 0", Journal, minimal, set("seq", 0), []string{"$.seq"}, "at least 1"},
	{"journal without its writes or a mark", Journal, minimal, del("writes"), []string{"$.writes"}, "is required"},
	{"journal mark at 0", Journal, minimal, both(del("event"), del("writes"), set("wal_at", 0)), []string{"$.wal_at"}, "at least 1"},
	// debate
	{"debate bad id", Debate, minimal, set("id", "stmt_x"), []string{"$.id"}, "must be a debate id"},
	{"debate bad status", Debate, minimal, set("status", "closed"), []string{"$.status"}, `must be one of "open", "completed", "invalidated"`},
	{"debate unknown protocol", Debate, minimal, set("protocol", "duel"), []string{"$.protocol"}, "must be one of"},
	{"debate missing turns", Debate, minimal, del("turns"), []string{"$.turns"}, "is required"},
	{"debate bad artifact", Debate, minimal, set("artifact", "debates/x.md"), []string{"$.artifact"}, "must be a transcript path"},
	{"agora without positions", Debate, full, del("positions"), []string{"$.positions"}, "is required"},
	{"agora with one position", Debate, full, set("positions", []any{map[string]any{"role": "pro", "text": "x"}}), []string{"$.positions"}, ""},
	{"debate confidence above 1", Debate, full, set("turns.0.confidence", 1.5), []string{"$.turns[0].confidence"}, "at most 1"},
	{"debate evidence confidence below 0", Debate, full, set("turns.1.evidence.0.confidence", -0.5), []string{"$.turns[1].evidence[0].confidence"}, "at least 0"},
	{"debate bad signal", Debate, full, set("turns.0.signal", "veto"), []string{"$.turns[0].signal"}, "must be one of"},
	{"debate bad target", Debate, full, set("turns.1.target", "pro"), []string{"$.turns[1].target"}, "turn-N or proposal-<role>"},
	{"debate bad participant id", Debate, full, set("participants.1.participant_id", "bob"), []string{"$.participants[1].participant_id"}, "must match"},
	{"debate unknown turn field", Debate, full, set("turns.0.mood", "good"), []string{"$.turns[0].mood"}, "unknown field"},
	{"debate short source hash", Debate, full, set("source.sha256", "abc"), []string{"$.source.sha256"}, "64 lowercase hex digits"},
	{"debate outcome out of range", Debate, full, set("outcome.outcome", "won"), []string{"$.outcome.outcome"}, "must be one of"},
}

func TestInvalidDocuments(t *testing.T) {
	for _, c := range invalidDocuments {
		t.Run(c.name, func(t *testing.T) {
			m := decode(t, c.base[c.kind])
			c.mut(t, m)
			doc, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			err = Validate(c.kind, doc)
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("want a *ValidationError, got %v\n%s", err, doc)
			}
			if ve.Kind != c.kind {
				t.Errorf("kind %q, want %q", ve.Kind, c.kind)
			}
			if got := paths(ve.Failures); !slices.Equal(got, c.paths) {
				t.Fatalf("paths %q, want %q\n%v", got, c.paths, err)
			}
			if !strings.Contains(ve.Failures[0].Message, c.msg) {
				t.Errorf("message %q does not contain %q", ve.Failures[0].Message, c.msg)
			}
		})
	}
}
