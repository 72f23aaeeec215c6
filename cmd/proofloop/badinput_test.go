package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/proofloop/proofloop/internal/pgtest"
	"github.com/proofloop/proofloop/skills"
	"github.com/proofloop/proofloop/store"
	"github.com/proofloop/proofloop/store/doctor"
	"github.com/proofloop/proofloop/store/pgstore"
)

// The bad-input catalog: every way a caller can get an input wrong, each run
// through the real CLI (in process) with --json on a fresh copy of one
// prepared store. Each entry states the exit code, the JSON error code and
// a regexp for the message, and the test checks that no byte under the root
// changed (issue 10: a refusal writes nothing) and that no entry exited 1
// (exit 1 is for bugs only).
//
// To add an entry for a new command, append to badInputs: args are the
// command line after `--root ROOT --json`; the fixture ids below name a
// statement in each state; $DIR in an argument is a scratch directory
// outside the root holding files; stdin, env and prepare are optional.

// The prepared store (badInputFixture): prob_odd with three wrap-up
// statements.
const (
	bpPending  = "stmt_odd_wrap"  // pending, no proof
	bpAwaiting = "stmt_odd_wrap2" // proof by "prover", awaiting verification
	bpGap      = "stmt_odd_wrap3" // proof by "prover", has_gap: issue 1 by "checker"
)

const bpProof = "Step 1: For n = 1 both sides are 1. Step 2: Adding 2n+1 to n^2 gives (n+1)^2. Step 3: Hence the claim holds."

type badInput struct {
	name    string
	args    []string
	files   map[string]string // written to $DIR before the run
	stdin   io.Reader         // default: empty
	env     map[string]string // PROOFLOOP_* variables for the run
	prepare func(t *testing.T, root string)
	exit    int
	code    string
	msg     string // regexp on error.message
}

// endless is a standard input that never ends, like `yes |`.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'y'
	}
	return len(p), nil
}

func subsJSON(n int) string {
	var b strings.Builder
	b.WriteString("[")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `{"claim": "Lemma %d holds."}`, i+1)
	}
	return b.String() + "]"
}

func writeConfig(cfg string) func(t *testing.T, root string) {
	return func(t *testing.T, root string) {
		if err := os.WriteFile(filepath.Join(root, "config.json"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// editDoc replaces the first old with new in the file at rel, by hand.
func editDoc(rel, old, new string) func(t *testing.T, root string) {
	return func(t *testing.T, root string) {
		p := filepath.Join(root, rel)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// prepRun runs one successful command on the copy before the entry runs.
func prepRun(args ...string) func(t *testing.T, root string) {
	return func(t *testing.T, root string) {
		var out, errb bytes.Buffer
		if code := run(append([]string{"--root", root}, args...), strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
	}
}

var (
	confirmAwaiting = []string{"check-confirm-proof", "--statement-path", bpAwaiting}
	rejectAwaiting  = []string{"check-reject-proof", "--statement-path", bpAwaiting, "--error-type", "gap", "--explanation", "Why?"}
	completePending = []string{"state-complete-proof", "--statement-path", bpPending, "--strategy", "induction"}
	patchGap        = []string{"fix-patch-proof", "--statement-path", bpGap, "--actor", "fixer", "--change-description", "Expand."}
	setupSubs       = []string{"state-setup-substatement", "--parent-statement-path", bpPending, "--rationale", "r"}
	a201            = strings.Repeat("x", 201)
)

func with(base []string, more ...string) []string {
	return append(append([]string{}, base...), more...)
}

var badInputs = []badInput{
	// Usage.
	{name: "unknown flag", args: []string{"show", bpPending, "--bogus"}, exit: 2, code: "usage", msg: `unknown flag: --bogus`},
	{name: "unknown command", args: []string{"frobnicate"}, exit: 2, code: "usage", msg: `unknown command "frobnicate"`},
	{name: "missing required flag", args: []string{"state-complete-proof", "--statement-path", bpPending}, exit: 2, code: "invalid_input", msg: `state-complete-proof needs --(strategy|proof-text)`},

	// Ids and paths.
	{name: "bad id", args: []string{"show", "stmt_Odd"}, exit: 2, code: "invalid_input", msg: `invalid id "stmt_Odd"`},
	{name: "dot-dot id", args: []string{"show", "stmt_.."}, exit: 2, code: "invalid_input", msg: `invalid id "stmt_\.\."`},
	{name: "path outside the root", args: []string{"show", "../contents/secret.json"}, exit: 2, code: "invalid_input", msg: `path "\.\./contents/secret\.json" is not a document of the contents root`},
	{name: "dot-dot path in a skill", args: with(completePending[:1], "--statement-path", "statement/../stmt_odd_wrap.json", "--strategy", "induction", "--proof-text", bpProof), exit: 2, code: "invalid_input", msg: `statement_path: path "statement/\.\./stmt_odd_wrap\.json" is not a document of the contents root`},
	{name: "unknown statement", args: []string{"show", "stmt_nope"}, exit: 3, code: "not_found", msg: `no statement stmt_nope`},

	// Workflow rules.
	{name: "wrong status", args: with(confirmAwaiting[:1], "--statement-path", bpPending, "--actor", "checker"), exit: 4, code: "invalid_transition", msg: `cannot act on a statement in status pending`},
	{name: "bad sentence number", args: with(rejectAwaiting, "--actor", "checker", "--sentence-number", "9", "--sentence-text", "Step"), exit: 4, code: "guard_failed", msg: `sentence 9 is out of range: the proof has 3 sentences`},
	{name: "quote not found", args: with(rejectAwaiting, "--actor", "checker", "--sentence-number", "1", "--sentence-text", "nowhere in it"), exit: 4, code: "guard_failed", msg: `sentence_text does not match sentence 1`},
	{name: "unknown issue number", args: with(patchGap, "--issue-number", "9", "--sentence-range", "2", "--replacement-text", "Step 2: x."), exit: 4, code: "guard_failed", msg: `there is no issue 9`},
	{name: "stale --expect-revision", args: with(completePending, "--actor", "prover", "--proof-text", bpProof, "--expect-revision", "5"), exit: 5, code: "conflict", msg: `is at revision 1, not 5`},

	// Parameter values.
	{name: "bad range 5-3", args: with(patchGap, "--issue-number", "1", "--sentence-range", "5-3", "--replacement-text", "Step 2: x."), exit: 2, code: "invalid_input", msg: `sentence_range 5-3 is not a range`},
	{name: "empty text", args: with(completePending, "--actor", "prover", "--proof-text", "  "), exit: 2, code: "invalid_input", msg: `proof_text must not be empty`},
	{name: "bad enum", args: with(completePending[:3], "--strategy", "magic", "--proof-text", bpProof), exit: 2, code: "invalid_input", msg: `strategy "magic" is not accepted`},
	{name: "missing @FILE", args: with(completePending, "--proof-text", "@$DIR/nope.txt"), exit: 2, code: "invalid_input", msg: `cannot read text file`},
	{name: "missing --input file", args: []string{"state-complete-proof", "--input", "$DIR/nope.json"}, exit: 2, code: "invalid_input", msg: `cannot read --input file`},
	{name: "empty --input", args: []string{"state-complete-proof", "--input", "-"}, stdin: strings.NewReader(" \n"), exit: 2, code: "invalid_input", msg: `--input - is empty`},
	{name: "--input not an object", args: []string{"state-complete-proof", "--input", "-"}, stdin: strings.NewReader("[]"), exit: 2, code: "invalid_input", msg: `--input is not a JSON object`},
	{name: "--input nested 20000 deep", args: []string{"state-complete-proof", "--input", "-"},
		exit: 2, code: "invalid_input", msg: `the JSON nests deeper than 64 levels`,
		stdin: strings.NewReader(`{"statement_path":"stmt_odd_wrap","proof_text":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`)},

	// Malformed document on disk: a damaged store, exit 6.
	{name: "malformed JSON document", args: []string{"show", bpPending},
		prepare: func(t *testing.T, root string) {
			if err := os.WriteFile(filepath.Join(root, "statement", bpPending+".json"), []byte(`{"id": "stmt_odd_wrap",`), 0o644); err != nil {
				t.Fatal(err)
			}
		}, exit: 6, code: "store_damaged", msg: `statement/stmt_odd_wrap\.json`},

	// Defect 7: actors.
	{name: "self-confirm as the author", args: with(confirmAwaiting, "--actor", "prover"), exit: 4, code: "guard_failed", msg: `prover wrote proof revision 1`},
	{name: "self-confirm as ' prover'", args: with(confirmAwaiting, "--actor", " prover"), exit: 4, code: "guard_failed", msg: `prover wrote proof revision 1`},
	{name: "self-confirm as 'Prover'", args: with(confirmAwaiting, "--actor", "Prover"), exit: 4, code: "guard_failed", msg: `prover wrote proof revision 1`},
	{name: "self-confirm as fullwidth PROVER", args: with(confirmAwaiting, "--actor", "ＰＲＯＶＥＲ"), exit: 4, code: "guard_failed", msg: `prover wrote proof revision 1`},
	{name: "self-confirm as --actor '' with $PROOFLOOP_ACTOR", args: with(confirmAwaiting, "--actor", ""), env: map[string]string{"PROOFLOOP_ACTOR": " PROVER "}, exit: 4, code: "guard_failed", msg: `prover wrote proof revision 1`},
	{name: "self-reject as 'PROVER'", args: with(rejectAwaiting, "--actor", "PROVER", "--sentence-number", "1", "--sentence-text", "Step 1"), exit: 4, code: "guard_failed", msg: `prover wrote proof revision 1`},
	{name: "201-character actor", args: with(confirmAwaiting, "--actor", a201), exit: 2, code: "invalid_input", msg: `--actor: actor "x+\.\.\." is refused: it has 201 characters, more than the 200 allowed`},
	{name: "201-character actor after trimming spaces", args: []string{"status", "--actor", " " + a201 + " "}, exit: 2, code: "invalid_input", msg: `it has 201 characters`},
	{name: "actor with a control character", args: with(confirmAwaiting, "--actor", "chec\x07ker"), exit: 2, code: "invalid_input", msg: `--actor: the control character U\+0007 at byte 4`},
	{name: "actor with a zero-width space", args: with(confirmAwaiting, "--actor", "pro\u200bver"), exit: 2, code: "invalid_input", msg: `it contains the control character U\+200B`},
	{name: "$PROOFLOOP_ACTOR with a newline", args: confirmAwaiting, env: map[string]string{"PROOFLOOP_ACTOR": "check\ner"}, exit: 2, code: "invalid_input", msg: `\$PROOFLOOP_ACTOR: .* control character U\+000A`},

	// Defect 4: input size.
	{name: "@/dev/zero", args: with(completePending, "--proof-text", "@/dev/zero"), exit: 2, code: "invalid_input", msg: `text file "/dev/zero" is larger than max_input_bytes \(4194304 bytes\)`},
	{name: "endless @-", args: with(completePending, "--proof-text", "@-"), stdin: endless{}, exit: 2, code: "invalid_input", msg: `text from standard input is larger than max_input_bytes \(4194304 bytes\)`},
	{name: "--input /dev/zero", args: []string{"state-complete-proof", "--input", "/dev/zero"}, exit: 2, code: "invalid_input", msg: `--input file "/dev/zero" is larger than max_input_bytes \(4194304 bytes\)`},
	{name: "endless --input -", args: []string{"state-complete-proof", "--input", "-"}, stdin: endless{}, exit: 2, code: "invalid_input", msg: `--input from standard input is larger than max_input_bytes`},
	{name: "new-problem objective @/dev/zero", args: []string{"new-problem", "--name", "even", "--objective", "@/dev/zero"}, exit: 2, code: "invalid_input", msg: `larger than max_input_bytes \(4194304 bytes\)`},
	{name: "decide reason from endless @-", args: []string{"decide", bpPending, "--accept", "--reason", "@-"}, stdin: endless{}, exit: 2, code: "invalid_input", msg: `larger than max_input_bytes`},
	{name: "--sub-statements @/dev/zero", args: with(setupSubs, "--sub-statements", "@/dev/zero"), exit: 2, code: "invalid_input", msg: `larger than max_input_bytes`},
	{name: "file one byte over a small cap", args: with(completePending, "--proof-text", "@$DIR/big.txt"), files: map[string]string{"big.txt": strings.Repeat("z", 1025)},
		prepare: prepRun("config", "set", "max_input_bytes", "1024"), exit: 2, code: "invalid_input", msg: `is larger than max_input_bytes \(1024 bytes\)`},

	// Defect 11: strict JSON.
	{name: "--sub-statements trailing data", args: with(setupSubs, "--sub-statements", `[{"claim": "x"}] trailing`), exit: 2, code: "invalid_input", msg: `trailing data after the JSON value: "trailing"`},
	{name: "--sub-statements unknown key", args: with(setupSubs, "--sub-statements", `[{"claim": "x", "proof": "y"}]`), exit: 2, code: "invalid_input", msg: `unknown key "\[0\]\.proof"`},
	{name: "--sub-statements key in another case", args: with(setupSubs, "--sub-statements", `[{"Claim": "x"}]`), exit: 2, code: "invalid_input", msg: `unknown key "\[0\]\.Claim"`},
	{name: "--sub-statements repeated key", args: with(setupSubs, "--sub-statements", `[{"claim": "x", "claim": "y"}]`), exit: 2, code: "invalid_input", msg: `key "\[0\]\.claim" is given twice`},
	{name: "--input unknown key", args: []string{"state-complete-proof", "--input", "-"},
		stdin: strings.NewReader(`{"statement_path": "stmt_odd_wrap", "strategy": "induction", "proof_text": "x", "author": "me"}`), exit: 2, code: "invalid_input", msg: `--input has an unknown key "author"`},
	{name: "--input trailing data", args: []string{"state-complete-proof", "--input", "-"},
		stdin: strings.NewReader(`{"statement_path": "stmt_odd_wrap", "strategy": "induction", "proof_text": "x"} {}`), exit: 2, code: "invalid_input", msg: `trailing data after the JSON value: "\{\}"`},
	{name: "--input range with an unknown key", args: []string{"fix-patch-proof", "--actor", "fixer", "--input", "-"},
		stdin: strings.NewReader(`{"statement_path": "stmt_odd_wrap3", "issue_number": 1, "sentence_range": {"start": 2, "stop": 3}, "replacement_text": "x", "change_description": "y"}`), exit: 2,
		code: "invalid_input", msg: `sentence_range: unknown key "stop"`},

	// Defect 12: sub-statements per call.
	{name: "51 sub-statements", args: with(setupSubs, "--sub-statements", "@$DIR/subs.json"), files: map[string]string{"subs.json": subsJSON(51)},
		exit: 2, code: "invalid_input", msg: `sub_statements has 51 entries, more than max_substatements \(50\)`},
	{name: "4 sub-statements over a cap of 3", args: with(setupSubs, "--sub-statements", subsJSON(4)), prepare: prepRun("config", "set", "max_substatements", "3"),
		exit: 2, code: "invalid_input", msg: `sub_statements has 4 entries, more than max_substatements \(3\)`},

	// Defect 2: a document with a duplicate key is refused on every read.
	{name: "duplicate key in a document", args: []string{"show", bpPending},
		prepare: editDoc("statement/"+bpPending+".json", `{`, `{"status": "true",`),
		exit:    6, code: "store_damaged", msg: `duplicate object member name "status"`},

	// Defect 8: a holder name is not a credential.
	{name: "second claim by the same holder name without the token", args: []string{"claim", bpPending, "--role", "prove", "--holder", "alice"},
		prepare: prepRun("claim", bpPending, "--role", "prove", "--holder", "alice"),
		exit:    5, code: "lease_held", msg: `stmt_odd_wrap is leased to alice \(role prove\) until 20`},

	// Defect 9: config.json out of range or unknown is a damaged store.
	{name: "lease_ttl 0s", args: []string{"status"}, prepare: writeConfig(`{"version": 1, "lease_ttl": "0s"}`),
		exit: 6, code: "store_damaged", msg: `lease_ttl`},
	{name: "huge lock_timeout", args: []string{"show", bpPending}, prepare: writeConfig(`{"version": 1, "lock_timeout": "87600h"}`),
		exit: 6, code: "store_damaged", msg: `lock_timeout`},
	{name: "unknown config key", args: []string{"status"}, prepare: writeConfig(`{"version": 1, "max_rounds": 5, "verify_quorom": 2}`),
		exit: 6, code: "store_damaged", msg: `verify_quorom`},
	{name: "bad $PROOFLOOP_LOCK_TIMEOUT", args: []string{"status"}, env: map[string]string{"PROOFLOOP_LOCK_TIMEOUT": "soon"},
		exit: 2, code: "usage", msg: `PROOFLOOP_LOCK_TIMEOUT "soon" is not a duration`},

	// Defect 10: a damaged layout is exit 6, not 1.
	{name: "statement folder is a symlink", args: []string{"show", bpPending},
		prepare: func(t *testing.T, root string) {
			moved := filepath.Join(filepath.Dir(root), "statement-elsewhere")
			if err := os.Rename(filepath.Join(root, "statement"), moved); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(moved, filepath.Join(root, "statement")); err != nil {
				t.Fatal(err)
			}
		}, exit: 6, code: "store_damaged", msg: `statement`},
	{name: ".journal is a folder", args: []string{"show", bpPending},
		prepare: func(t *testing.T, root string) {
			if err := os.Mkdir(filepath.Join(root, ".journal"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, exit: 6, code: "store_damaged", msg: `\.journal`},

	// Audit: history and show --at.
	{name: "history --since that is no point", args: []string{"history", bpPending, "--since", "yesterday"},
		exit: 2, code: "usage", msg: `"yesterday" is neither an event seq`},
	{name: "history --since after --until", args: []string{"history", bpPending, "--since", "40", "--until", "10"},
		exit: 2, code: "usage", msg: `--since seq 40 comes after --until seq 10`},
	{name: "show --at a seq too large for a number", args: []string{"show", bpPending, "--at", "99999999999999999999"},
		exit: 2, code: "usage", msg: `"99999999999999999999" is too large to be an event seq`},
	{name: "show --proof-revision 0", args: []string{"show", bpAwaiting, "--proof-revision", "0"},
		exit: 2, code: "usage", msg: `--proof-revision takes a revision number from 1, not 0: its only proof revision is 1`},
	{name: "show --at before the document existed", args: []string{"show", bpPending, "--at", "1"},
		exit: 3, code: "not_found", msg: `did not exist yet at seq 1: it was created at seq 2`},
	{name: "history of an unknown statement", args: []string{"history", "stmt_nope"},
		exit: 3, code: "not_found", msg: `no statement stmt_nope`},

	// Debates (issue 9): the fixture's deb_fixture is socratic, both joined, p1's turn.
	{name: "debate start without --protocol", args: []string{"debate", "start", "--topic", "x"}, exit: 2, code: "usage", msg: `debate start needs --protocol P`},
	{name: "debate start unknown protocol", args: []string{"debate", "start", "--protocol", "duel", "--topic", "x"}, exit: 2, code: "invalid_input", msg: `protocol: "duel" is not a protocol`},
	{name: "debate start agora with one position", args: []string{"debate", "start", "--protocol", "agora", "--topic", "x", "--position", "a=A"}, exit: 2, code: "invalid_input", msg: `agora needs at least 2 positions`},
	{name: "debate start bad position", args: []string{"debate", "start", "--protocol", "agora", "--topic", "x", "--position", "a"}, exit: 2, code: "invalid_input", msg: `--position "a": write ROLE=TEXT`},
	{name: "debate start bad methodology", args: []string{"debate", "start", "--protocol", "agora", "--topic", "x", "--position", "a=A", "--position", "b=B", "--methodology", "vibes"}, exit: 2, code: "invalid_input", msg: `methodology: "vibes" is not accepted`},
	{name: "debate start missing source", args: []string{"debate", "start", "--protocol", "socratic", "--topic", "x", "--source", "$DIR/none.md"}, exit: 2, code: "invalid_input", msg: `cannot read --source file`},
	{name: "debate start --about a non-socratic", args: []string{"debate", "start", "--protocol", "review", "--topic", "x", "--about", bpGap + "#1"}, exit: 2, code: "invalid_input", msg: `only a socratic debate can dispute an issue`},
	{name: "debate start --about malformed", args: []string{"debate", "start", "--protocol", "socratic", "--topic", "x", "--about", bpGap}, exit: 2, code: "invalid_input", msg: `write STATEMENT#ISSUE`},
	{name: "debate start --about a missing issue", args: []string{"debate", "start", "--protocol", "socratic", "--topic", "x", "--about", bpGap + "#9"}, exit: 3, code: "not_found", msg: `has no issue 9`},
	{name: "debate join empty name", args: []string{"debate", "join", "deb_fixture", "--participant-name", " "}, exit: 2, code: "invalid_input", msg: `--participant-name must not be empty`},
	{name: "debate join a statement", args: []string{"debate", "join", bpGap, "--participant-name", "x"}, exit: 2, code: "invalid_input", msg: `is a statement, not a debate`},
	{name: "debate turn unknown key", args: []string{"debate", "turn", "deb_fixture", "--participant-id", "p1", "--input", "-"},
		stdin: strings.NewReader(`{"stance": "OPEN_TO_DEBATE", "mood": "x"}`), exit: 2, code: "invalid_input", msg: `unknown key "mood"`},
	{name: "debate turn key in another case", args: []string{"debate", "turn", "deb_fixture", "--participant-id", "p1", "--input", "-"},
		stdin: strings.NewReader(`{"Stance": "OPEN_TO_DEBATE"}`), exit: 2, code: "invalid_input", msg: `unknown key "Stance"`},
	{name: "debate turn repeated key", args: []string{"debate", "turn", "deb_fixture", "--participant-id", "p1", "--input", "-"},
		stdin: strings.NewReader(`{"stance": "OPEN_TO_DEBATE", "stance": "DISSENTING"}`), exit: 2, code: "invalid_input", msg: `key "stance" is given twice`},
	{name: "debate turn trailing data", args: []string{"debate", "turn", "deb_fixture", "--participant-id", "p1", "--input", "-"},
		stdin: strings.NewReader(`{"stance": "OPEN_TO_DEBATE"} x`), exit: 2, code: "invalid_input", msg: `trailing data after the JSON value`},
	{name: "debate turn endless stdin", args: []string{"debate", "turn", "deb_fixture", "--participant-id", "p1", "--input", "-"},
		stdin: endless{}, exit: 2, code: "invalid_input", msg: `larger than max_input_bytes`},
	{name: "debate turn missing section", args: []string{"debate", "turn", "deb_fixture", "--participant-id", "p1", "--input", "-"},
		stdin: strings.NewReader(`{"stance": "OPEN_TO_DEBATE"}`), exit: 2, code: "invalid_input", msg: `position: is required`},
	{name: "debate turn out of order", args: []string{"debate", "turn", "deb_fixture", "--participant-id", "p2", "--input", "-"},
		stdin: strings.NewReader(`{"stance": "OPEN_TO_DEBATE"}`), exit: 4, code: "invalid_transition", msg: `it is not p2's turn`},
	{name: "debate turn --body on socratic", args: []string{"debate", "turn", "deb_fixture", "--participant-id", "p1", "--body", "hi"}, exit: 2, code: "invalid_input", msg: `body: a socratic turn is a JSON object, not --body text`},
	{name: "debate turn both inputs", args: []string{"debate", "turn", "deb_fixture", "--participant-id", "p1", "--body", "hi", "--input", "-"}, exit: 2, code: "usage", msg: `give either --input`},
	{name: "debate close unknown outcome", args: []string{"debate", "close", "deb_fixture", "--outcome", "WON"}, exit: 2, code: "invalid_input", msg: `"WON" is not an outcome of socratic`},
	{name: "debate close consensus not reached", args: []string{"debate", "close", "deb_fixture", "--outcome", "ACCEPTED_CONSENSUS"}, exit: 4, code: "invalid_transition", msg: `the rule of ACCEPTED_CONSENSUS does not hold`},
	{name: "debate close both", args: []string{"debate", "close", "deb_fixture", "--outcome", "DISSENT", "--discard"}, exit: 2, code: "usage", msg: `give either --outcome O or --discard`},
	{name: "debate wait no participant", args: []string{"debate", "wait", "deb_fixture", "--participant-id", "p7", "--timeout", "1s"}, exit: 2, code: "invalid_input", msg: `"p7" is not a participant of deb_fixture`},
	{name: "debate list bad status", args: []string{"debate", "list", "--status", "done"}, exit: 2, code: "invalid_input", msg: `status`},
	{name: "decide suggestion on a statement", args: []string{"decide", bpGap, "--suggestion", "1", "--accept"}, exit: 2, code: "usage", msg: `decide DEBATE takes --suggestion N`},
	{name: "decide suggestion on socratic", args: []string{"decide", "deb_fixture", "--suggestion", "1", "--accept"}, exit: 2, code: "invalid_input", msg: `suggestion 1 does not exist; this debate has 0`},
	{name: "claim --for-timeout with both joined", args: []string{"claim", "deb_fixture", "--for-timeout", "--holder", "h"}, exit: 4, code: "invalid_transition", msg: `all 2 participants joined`},
}

// badInputFixture builds the prepared store once; each entry runs on a
// copy of it.
func badInputFixture(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "contents")
	for _, args := range [][]string{
		{"init"},
		{"new-problem", "--name", "odd", "--objective", "The sum of the first n odd numbers is n^2."},
		{"prob-wrapup-statement", "--problem-path", "prob_odd", "--claim", "For every n >= 1, 1 + 3 + ... + (2n-1) = n^2.", "--purpose", "The objective."},
		{"prob-wrapup-statement", "--problem-path", "prob_odd", "--claim", "The same, again.", "--purpose", "To be checked."},
		{"prob-wrapup-statement", "--problem-path", "prob_odd", "--claim", "The same, a third time.", "--purpose", "To be patched."},
		{"state-complete-proof", "--actor", "prover", "--statement-path", bpAwaiting, "--strategy", "induction", "--proof-text", bpProof},
		{"state-complete-proof", "--actor", "prover", "--statement-path", bpGap, "--strategy", "induction", "--proof-text", bpProof},
		{"check-reject-proof", "--actor", "checker", "--statement-path", bpGap, "--sentence-number", "2", "--sentence-text", "Adding", "--error-type", "gap", "--explanation", "Expand."},
		{"debate", "start", "--protocol", "socratic", "--topic", "fixture"},
		{"debate", "join", "deb_fixture", "--participant-name", "alice", "--actor", "alice"},
		{"debate", "join", "deb_fixture", "--participant-name", "bob", "--actor", "bob"},
	} {
		var out, errb bytes.Buffer
		if code := run(append([]string{"--root", root}, args...), strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("fixture %v: exit %d\n%s%s", args, code, out.String(), errb.String())
		}
	}
	return root
}

// snapshot maps every file under root to its content (and every directory
// to "dir"), so that any byte written, created or removed shows.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			m[rel] = "dir"
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			m[rel] = "symlink to " + target
			return err
		}
		b, err := os.ReadFile(p)
		m[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestBadInputCatalog(t *testing.T) { badInputCatalog(t, nil) }

// TestBadInputCatalogPostgres runs the catalog on the PostgreSQL store:
// each entry's prepared store is imported into a fresh database, and
// "nothing written" is checked on exports of it before and after. An
// entry whose preparation damages the files by hand cannot be imported
// (import refuses a store that fails doctor) and is skipped, saying so.
func TestBadInputCatalogPostgres(t *testing.T) {
	c, err := cluster.Get()
	if err != nil {
		if os.Getenv(pgtest.RequireEnv) != "" {
			t.Fatalf("no PostgreSQL cluster, and %s is set: %v", pgtest.RequireEnv, err)
		}
		t.Skipf("no PostgreSQL cluster (see the banner above): %v", err)
	}
	badInputCatalog(t, c)
}

func badInputCatalog(t *testing.T, pg *pgtest.Cluster) {
	for _, k := range []string{"PROOFLOOP_ROOT", "PROOFLOOP_ACTOR", "PROOFLOOP_LEASE", "PROOFLOOP_LOCK_TIMEOUT", "PROOFLOOP_STORE"} {
		t.Setenv(k, "")
	}
	fixture := badInputFixture(t)
	exits := map[int][]string{}
	for _, tc := range badInputs {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			root := filepath.Join(dir, "contents")
			copyTree(t, fixture, root)
			for name, content := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			if tc.prepare != nil {
				tc.prepare(t, root)
			}
			snap := snapshot
			if pg != nil {
				dsn := loadPostgres(t, pg, root)
				t.Setenv("PROOFLOOP_STORE", dsn)
				snap = func(t *testing.T, root string) map[string]string {
					dir := filepath.Join(t.TempDir(), "export")
					// The export is the test's, not the entry's: without the
					// entry's bad variables.
					for _, k := range []string{"PROOFLOOP_ACTOR", "PROOFLOOP_LOCK_TIMEOUT"} {
						v := os.Getenv(k)
						os.Setenv(k, "")
						defer os.Setenv(k, v)
					}
					var out, errb bytes.Buffer
					if code := run([]string{"--root", root, "export", "--to", dir}, strings.NewReader(""), &out, &errb); code != 0 {
						t.Fatalf("export: exit %d: %s", code, errb.String())
					}
					return snapshot(t, dir)
				}
			}
			before := snap(t, root)
			args := []string{"--root", root, "--json"}
			for _, a := range tc.args {
				args = append(args, strings.ReplaceAll(a, "$DIR", dir))
			}
			stdin := tc.stdin
			if stdin == nil {
				stdin = strings.NewReader("")
			}
			if sk, ok := stdin.(io.Seeker); ok {
				sk.Seek(0, io.SeekStart) // the catalog runs once per store
			}
			var out, errb bytes.Buffer
			done := make(chan int, 1)
			go func() { done <- run(args, stdin, &out, &errb) }()
			var code int
			select {
			case code = <-done:
			case <-time.After(5 * time.Minute): // hang protection only
				t.Fatalf("%v did not return", tc.args)
			}
			exits[code] = append(exits[code], tc.name)

			var res struct {
				OK    *bool `json:"ok"`
				Error struct {
					Code    string `json:"code"`
					Message string `json:"message"`
					Hint    string `json:"hint"`
				} `json:"error"`
			}
			if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.OK == nil || *res.OK {
				t.Errorf("stdout is not one JSON failure (%v): %q", err, out.String())
			}
			if code != tc.exit || res.Error.Code != tc.code {
				t.Errorf("exit %d, code %q; want %d, %q\nstdout: %s\nstderr: %s", code, res.Error.Code, tc.exit, tc.code, out.String(), errb.String())
			}
			if !regexp.MustCompile(tc.msg).MatchString(res.Error.Message) {
				t.Errorf("message %q; want a match for %q", res.Error.Message, tc.msg)
			}
			// Every refusal says what to do now, in its own terms: not
			// the generic line of its code (issue 22, item 6).
			if h := res.Error.Hint; h == "" || h == skills.CodeHint(store.Code(res.Error.Code)) {
				t.Errorf("hint %q for %q; want a hint of its own", h, res.Error.Message)
			}
			after := snap(t, root)
			for p, b := range after {
				if a, ok := before[p]; !ok {
					t.Errorf("%s was created", p)
				} else if a != b {
					t.Errorf("%s changed", p)
				}
			}
			for p := range before {
				if _, ok := after[p]; !ok {
					t.Errorf("%s was removed", p)
				}
			}
		})
	}
	// Exit 1 is for bugs only: no bad input may produce it.
	if names := exits[1]; len(names) > 0 {
		t.Errorf("these bad inputs exited 1 (internal error): %s", strings.Join(names, "; "))
	}
}

// loadPostgres imports the prepared store at root into a fresh, migrated
// database of c and returns its DSN; it skips the entry when the store
// cannot be imported (it was damaged by hand on purpose).
func loadPostgres(t *testing.T, c *pgtest.Cluster, root string) string {
	t.Helper()
	dsn, err := c.CreateMigratedDB(t.Name())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.DropDB(dsn) })
	b, err := pgstore.Open(dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := store.Import(b, root, doctor.Passes); err != nil {
		t.Skipf("PostgreSQL: the prepared store cannot be imported (damaged by hand on purpose): %v", err)
	}
	return dsn
}
