package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/tidwall/gjson"
	bolt "go.etcd.io/bbolt"

	"github.com/proofloop/proofloop/internal/pgtest"
)

// The tamper catalog (issue 23 section 3): every way a person or a broken
// tool can change a store behind proofloop's back, each applied to a fresh
// copy of one prepared store and followed by `proofloop doctor --json`
// through the real CLI. doctor must report each one (exit 6, with the
// finding code the case names), except a rewritten log suffix whose hashes
// were recomputed: no self-contained log can tell it from the real one, so
// that case passes doctor and is caught by `doctor --expect-head HASH` with
// the head the user kept. The catalog runs on the file store and, for every
// case that a database can hold, on PostgreSQL (the same edit made to the
// rows).

type tamper struct {
	name string
	// apply damages the store through fs, the store's files or rows.
	apply func(t *testing.T, fs tamperFS)
	// code is the finding doctor must report ("" for the one case only
	// --expect-head catches; "regenerated" for a derived file doctor
	// rewrites).
	code string
	path string // the finding's path, when it matters
	// fileOnly marks damage that a database cannot hold (bytes that are
	// not JSON in a jsonb column, a torn line, the bbolt index, an event
	// order that the seq column fixes).
	fileOnly bool
	// routine is the finding the routine doctor reports instead of code,
	// when it differs: it sees a rewrite of the log up to its verified
	// point as the point's event changed (chain_broken) or gone
	// (event_gap), before it would compare what the rewrite implies.
	routine string
}

// Fixture ids.
const (
	tcStmt   = "stmt_odd_wrap"  // three kept proof revisions, a live lease of alice
	tcStmt2  = "stmt_odd_wrap2" // a released lease of bob
	tcDebate = "deb_keep"
	// tcArtifact is the debate's copy in the project folder (debate start
	// --artifact), beside the root: a case's copy of the root takes it too.
	tcArtifact = "keep.md"
)

var tamperCatalog = []tamper{
	// Documents.
	{name: "document field edited", apply: edit("statement/"+tcStmt+".json", `"claim": "For every`, `"claim": "For all`), code: "replay_mismatch", path: "statement/" + tcStmt + ".json"},
	{name: "document revision bumped", apply: edit("problem/prob_odd.json", `"revision": 3`, `"revision": 4`), code: "revision_mismatch"},
	{name: "document status out of schema", apply: edit("statement/"+tcStmt2+".json", `"status": "pending"`, `"status": "done"`), code: "schema"},
	{name: "document not JSON", apply: edit("statement/"+tcStmt2+".json", `"status": "pending"`, `"status": `), code: "schema", fileOnly: true},
	{name: "document with a duplicate key", apply: edit("statement/"+tcStmt2+".json", `"status": "pending"`, `"status": "pending", "status": "true"`), code: "not_strict_json"},
	{name: "document id field changed", apply: edit("statement/"+tcStmt2+".json", `"id": "`+tcStmt2+`"`, `"id": "stmt_odd_wrap9"`), code: "wrong_id"},
	{name: "document removed", apply: remove("statement/" + tcStmt2 + ".json"), code: "replay_mismatch"},
	{name: "document made by hand", apply: copyDoc("problem/prob_odd.json", "problem/prob_evn.json", `"prob_odd"`, `"prob_evn"`), code: "replay_mismatch", path: "problem/prob_evn.json"},
	{name: "document link removed", apply: edit("statement/"+tcStmt2+".json", `"context": "prob_odd"`, `"context": "prob_evn"`), code: "bad_reference", path: "statement/" + tcStmt2 + ".json"},
	{name: "issue quote edited", apply: edit("statement/"+tcStmt+".json", `"sentence_text": "Adding"`, `"sentence_text": "Removing"`), code: "issue_quote"},
	{name: "document timestamp edited", apply: edit("statement/"+tcStmt+".json", `"created_at": "2026`, `"created_at": "2025`), code: "replay_mismatch"},
	{name: "unexpected file among documents", apply: write("statement/notes.txt", "hello\n"), code: "unexpected_file", fileOnly: true},

	// Events, without and with a recomputed hash.
	{name: "event edited, hash kept", apply: editEvent(2, `"actor":"`, `"actor":"x`, false), code: "chain_broken"},
	{name: "event edited, its hash recomputed", apply: editEvent(3, `"actor":"`, `"actor":"x`, true), code: "chain_broken"},
	{name: "last event's patch edited, hash recomputed", apply: editEvent(-1, `"alice"`, `"carol"`, true), code: "lease", path: "leases/" + tcStmt + ".json", routine: "chain_broken"},
	{name: "event removed from the middle", apply: dropEvent(3), code: "event_gap"},
	{name: "last event removed (a claim)", apply: dropEvent(-4), code: "lease", routine: "event_gap"},
	{name: "events swapped", apply: swapEvents(3, 4), code: "event_gap", fileOnly: true},
	{name: "event duplicated", apply: dupEvent(3), code: "event_gap", fileOnly: true},
	{name: "garbage line appended", apply: appendLog("not an event\n"), code: "event_invalid", fileOnly: true},
	{name: "torn last line", apply: appendLog(`{"seq":99,"time":`), code: "event_invalid", fileOnly: true},
	{name: "forged config-set event appended with its hash", apply: forgeConfigEvent, code: "config"},
	{name: "log suffix rewritten with recomputed hashes", apply: rewriteSuffix, code: "", routine: "chain_broken"},

	// Kept proof revisions, at every position.
	{name: "kept revision 1 of 3 edited", apply: editLine("proofs/"+tcStmt+".jsonl", 0, `Hence the claim.`, `Thus the claim.`), code: "revisions_mismatch"},
	{name: "kept revision 2 of 3 edited", apply: editLine("proofs/"+tcStmt+".jsonl", 1, `"strategy":"induction"`, `"strategy":"direct"`), code: "revisions_mismatch"},
	{name: "kept revision 3 of 3 edited", apply: editLine("proofs/"+tcStmt+".jsonl", 2, `by induction`, `by magic`), code: "revisions_mismatch"},
	{name: "kept revision's actor edited", apply: editLine("proofs/"+tcStmt+".jsonl", 1, `"actor":"fixer"`, `"actor":"prover"`), code: "revisions_mismatch"},
	{name: "kept revision's time edited", apply: editLine("proofs/"+tcStmt+".jsonl", 0, `"at":"2026`, `"at":"2025`), code: "revisions_mismatch"},
	{name: "kept revision removed", apply: editLine("proofs/"+tcStmt+".jsonl", 1, "", "DROP"), code: "revisions_mismatch"},
	{name: "kept revision with a duplicate key, the forged text first", apply: editLine("proofs/"+tcStmt+".jsonl", 2, `{`, keptForgery), code: "schema", path: "proofs/" + tcStmt + ".jsonl"},
	{name: "kept revisions file removed", apply: remove("proofs/" + tcStmt + ".jsonl"), code: "revisions_missing"},
	{name: "kept revisions of no statement", apply: copyFile("proofs/"+tcStmt+".jsonl", "proofs/stmt_odd_wrap7.jsonl"), code: "unexpected_file"},

	// Leases.
	{name: "lease holder changed", apply: edit("leases/"+tcStmt+".json", `"holder": "alice"`, `"holder": "mallory"`), code: "lease", path: "leases/" + tcStmt + ".json"},
	{name: "lease token changed", apply: editToken, code: "lease"},
	{name: "lease expiry extended", apply: edit("leases/"+tcStmt+".json", `"expires_at": "2`, `"expires_at": "3`), code: "lease"},
	{name: "released lease revived", apply: unrelease, code: "lease", path: "leases/" + tcStmt2 + ".json"},
	{name: "lease forged for an unclaimed item", apply: copyDoc("leases/"+tcStmt+".json", "leases/prob_odd.json", `"`+tcStmt+`"`, `"prob_odd"`), code: "lease", path: "leases/prob_odd.json"},
	{name: "live lease removed", apply: remove("leases/" + tcStmt + ".json"), code: "lease"},
	{name: "lease not JSON", apply: edit("leases/"+tcStmt+".json", `"holder": "alice"`, `"holder": `), code: "lease"},

	// config.json.
	{name: "forbid_self_check turned off", apply: edit("config.json", `"forbid_self_check": true`, `"forbid_self_check": false`), code: "config"},
	{name: "verify_quorum raised by hand", apply: edit("config.json", `"verify_quorum": 1`, `"verify_quorum": 3`), code: "config"},
	{name: "a config-set value reverted by hand", apply: edit("config.json", `"max_rounds": 6`, `"max_rounds": 5`), code: "config"},
	{name: "an agent added by hand", apply: edit("config.json", `"agents": {}`, `"agents": {"check": "sh evil.sh"}`), code: "config"},
	{name: "config out of range", apply: edit("config.json", `"lease_ttl": "15m"`, `"lease_ttl": "0s"`), code: "config"},

	// The derived index, the quarantine, debates.
	{name: "index row edited", apply: editIndex, code: "index_mismatch"},
	{name: "quarantined torn line", apply: write("events.quarantine.jsonl", `{"quarantined_at":"2026-11-25T10:00:00Z","offset":10,"after_seq":3,"seq":null,"bytes":"{\"seq\""}`+"\n"), code: "event_quarantined", fileOnly: true},
	{name: "debate turn edited", apply: edit("debate/"+tcDebate+".json", `Keep it.`, `Drop it.`), code: "replay_mismatch", path: "debate/" + tcDebate + ".json"},
	{name: "debate removed", apply: remove("debate/" + tcDebate + ".json"), code: "replay_mismatch"},
	{name: "transcript edited", apply: editTranscript, code: "regenerated", fileOnly: true},
	// On PostgreSQL every doctor is the full check, which rewrote the copy
	// before N14 too.
	{name: "debate's project copy (--artifact) edited", apply: editArtifact, code: "regenerated", fileOnly: true},
}

// keptForgery starts a kept revision line with a second "text" (N13):
// gjson and the schema read the first value, Unmarshal the last, so every
// doctor passed it and export --to copied it.
const keptForgery = `{"text":"Step 1: Forged.",`

// tamperFS is the store's files as the catalog edits them: a root's files,
// or the rows of a PostgreSQL store.
type tamperFS interface {
	read(t *testing.T, p string) string
	write(t *testing.T, p, content string)
	remove(t *testing.T, p string)
	root() string // the file store's folder; "" on PostgreSQL
}

func edit(p, old, new string) func(*testing.T, tamperFS) {
	return func(t *testing.T, fs tamperFS) {
		s := fs.read(t, p)
		if !strings.Contains(s, old) {
			t.Fatalf("%s does not contain %q:\n%s", p, old, s)
		}
		fs.write(t, p, strings.Replace(s, old, new, 1))
	}
}

func write(p, content string) func(*testing.T, tamperFS) {
	return func(t *testing.T, fs tamperFS) { fs.write(t, p, content) }
}

func remove(p string) func(*testing.T, tamperFS) {
	return func(t *testing.T, fs tamperFS) { fs.remove(t, p) }
}

func copyFile(from, to string) func(*testing.T, tamperFS) {
	return func(t *testing.T, fs tamperFS) { fs.write(t, to, fs.read(t, from)) }
}

func copyDoc(from, to, old, new string) func(*testing.T, tamperFS) {
	return func(t *testing.T, fs tamperFS) { fs.write(t, to, strings.ReplaceAll(fs.read(t, from), old, new)) }
}

// editLine edits line n (from 0) of a JSON-lines file; new "DROP" removes it.
func editLine(p string, n int, old, new string) func(*testing.T, tamperFS) {
	return func(t *testing.T, fs tamperFS) {
		lines := strings.SplitAfter(fs.read(t, p), "\n")
		switch {
		case new == "DROP":
			lines = slices.Delete(lines, n, n+1)
		case !strings.Contains(lines[n], old):
			t.Fatalf("line %d of %s does not contain %q: %s", n, p, old, lines[n])
		default:
			lines[n] = strings.Replace(lines[n], old, new, 1)
		}
		fs.write(t, p, strings.Join(lines, ""))
	}
}

func logLines(t *testing.T, fs tamperFS) []string {
	return strings.Split(strings.TrimSuffix(fs.read(t, "events.jsonl"), "\n"), "\n")
}

func putLog(t *testing.T, fs tamperFS, lines []string) {
	fs.write(t, "events.jsonl", strings.Join(lines, "\n")+"\n")
}

func at(lines []string, i int) int {
	if i < 0 {
		return len(lines) + i
	}
	return i
}

// reseal recomputes a line's hash, with prev as its prev (the hash covers
// the line without its hash field, which is last).
func reseal(line, prev string) string {
	body := line[:strings.LastIndex(line, `,"hash":"`)]
	i := strings.LastIndex(body, `"prev":"`)
	j := strings.Index(body[i+len(`"prev":"`):], `"`)
	body = body[:i] + `"prev":"` + prev + `"` + body[i+len(`"prev":"`)+j+1:]
	sum := sha256.Sum256([]byte(body + "}"))
	return body + `,"hash":"` + hex.EncodeToString(sum[:]) + `"}`
}

func hashOf(line string) string { return gjson.Get(line, "hash").String() }

// editEvent edits event i (from 0; negative from the end); with rehash it
// recomputes that line's hash (and only that one).
func editEvent(i int, old, new string, rehash bool) func(*testing.T, tamperFS) {
	return func(t *testing.T, fs tamperFS) {
		lines := logLines(t, fs)
		i := at(lines, i)
		if !strings.Contains(lines[i], old) {
			t.Fatalf("event line %d does not contain %q: %s", i, old, lines[i])
		}
		lines[i] = strings.ReplaceAll(lines[i], old, new)
		if rehash {
			lines[i] = reseal(lines[i], gjson.Get(lines[i], "prev").String())
		}
		putLog(t, fs, lines)
	}
}

func dropEvent(i int) func(*testing.T, tamperFS) {
	return func(t *testing.T, fs tamperFS) {
		lines := logLines(t, fs)
		if i == -4 { // the last event: a claim, so no document moves back
			putLog(t, fs, lines[:len(lines)-1])
			return
		}
		putLog(t, fs, slices.Delete(lines, i, i+1))
	}
}

func swapEvents(i, j int) func(*testing.T, tamperFS) {
	return func(t *testing.T, fs tamperFS) {
		lines := logLines(t, fs)
		lines[i], lines[j] = lines[j], lines[i]
		putLog(t, fs, lines)
	}
}

func dupEvent(i int) func(*testing.T, tamperFS) {
	return func(t *testing.T, fs tamperFS) {
		lines := logLines(t, fs)
		putLog(t, fs, slices.Insert(lines, i, lines[i]))
	}
}

func appendLog(s string) func(*testing.T, tamperFS) {
	return func(t *testing.T, fs tamperFS) { fs.write(t, "events.jsonl", fs.read(t, "events.jsonl")+s) }
}

// forgeConfigEvent appends a config-set event, correctly chained, that the
// config.json does not reflect.
func forgeConfigEvent(t *testing.T, fs tamperFS) {
	lines := logLines(t, fs)
	last := lines[len(lines)-1]
	seq := gjson.Get(last, "seq").Int() + 1
	line := fmt.Sprintf(`{"seq":%d,"time":"2026-11-25T12:00:00Z","actor":"mallory","command":"config-set","ids":[],"changes":[],"lease_holder":null,"detail":{"after":false,"before":true,"key":"forbid_self_check"},"prev":"","hash":"%s"}`, seq, strings.Repeat("0", 64))
	putLog(t, fs, append(lines, reseal(line, hashOf(last))))
}

// rewriteSuffix rewrites the actor of the last events and recomputes
// their hashes: a valid chain that only --expect-head tells apart.
func rewriteSuffix(t *testing.T, fs tamperFS) {
	lines := logLines(t, fs)
	for i := len(lines) - 3; i < len(lines); i++ {
		// The same length, so that no offset moves: only the bytes change.
		lines[i] = strings.Replace(lines[i], `"time":"2026`, `"time":"2025`, 1)
		lines[i] = reseal(lines[i], hashOf(lines[i-1]))
	}
	putLog(t, fs, lines)
}

func editToken(t *testing.T, fs tamperFS) {
	p := "leases/" + tcStmt + ".json"
	s := fs.read(t, p)
	tok := gjson.Get(s, "token").String()
	fs.write(t, p, strings.Replace(s, tok, strings.Repeat("0", len(tok)), 1))
}

func unrelease(t *testing.T, fs tamperFS) {
	p := "leases/" + tcStmt2 + ".json"
	var m map[string]any
	if err := json.Unmarshal([]byte(fs.read(t, p)), &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "released_at")
	m["expires_at"] = "2099-01-01T00:00:00.000Z"
	b, _ := json.MarshalIndent(m, "", "  ")
	fs.write(t, p, string(b)+"\n")
}

func editIndex(t *testing.T, fs tamperFS) {
	if g, ok := fs.(pgFS); ok {
		ctx := context.Background()
		var v []byte
		if err := g.conn.QueryRow(ctx, `SELECT value FROM index_kv WHERE bucket = 'items' AND key = $1`, []byte(tcStmt2)).Scan(&v); err != nil {
			t.Fatal(err)
		}
		v = bytes.Replace(v, []byte(`"pending"`), []byte(`"true"`), 1)
		if _, err := g.conn.Exec(ctx, `UPDATE index_kv SET value = $2 WHERE bucket = 'items' AND key = $1`, []byte(tcStmt2), v); err != nil {
			t.Fatal(err)
		}
		return
	}
	db, err := bolt.Open(filepath.Join(fs.root(), "index.db"), 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("items"))
		v := b.Get([]byte(tcStmt2))
		if v == nil {
			return fmt.Errorf("no index row for %s", tcStmt2)
		}
		return b.Put([]byte(tcStmt2), bytes.Replace(v, []byte(`"pending"`), []byte(`"true"`), 1))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// editArtifact edits the debate's copy in the project folder: plain doctor
// left it as it was, only --full rewrote it (N14).
func editArtifact(t *testing.T, fs tamperFS) {
	p := filepath.Join(filepath.Dir(fs.root()), tcArtifact)
	if _, err := os.Stat(p); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("# Outcome: forged\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func editTranscript(t *testing.T, fs tamperFS) {
	m, _ := filepath.Glob(filepath.Join(fs.root(), ".debates", "*.md"))
	if len(m) != 1 {
		t.Fatalf("want one transcript, have %v", m)
	}
	if err := os.WriteFile(m[0], []byte("# Outcome: forged\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fileFS is a file store's root.
type fileFS string

func (f fileFS) read(t *testing.T, p string) string {
	b, err := os.ReadFile(filepath.Join(string(f), p))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func (f fileFS) write(t *testing.T, p, s string) {
	if err := os.WriteFile(filepath.Join(string(f), p), []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (f fileFS) remove(t *testing.T, p string) {
	if err := os.Remove(filepath.Join(string(f), p)); err != nil {
		t.Fatal(err)
	}
}

func (f fileFS) root() string { return string(f) }

// pgFS is a PostgreSQL store's rows: documents, events and files.
type pgFS struct {
	conn *pgx.Conn
}

func docID(p string) (string, bool) {
	dir, file, ok := strings.Cut(p, "/")
	if !ok || !slices.Contains([]string{"problem", "statement", "debate"}, dir) {
		return "", false
	}
	return strings.TrimSuffix(file, ".json"), true
}

func (g pgFS) read(t *testing.T, p string) string {
	ctx := context.Background()
	var s string
	var err error
	switch id, isDoc := docID(p); {
	case p == "events.jsonl":
		rows, qerr := g.conn.Query(ctx, `SELECT line FROM events ORDER BY seq`)
		if qerr != nil {
			t.Fatal(qerr)
		}
		lines, cerr := pgx.CollectRows(rows, pgx.RowTo[string])
		if cerr != nil {
			t.Fatal(cerr)
		}
		return strings.Join(lines, "\n") + "\n"
	case isDoc:
		err = g.conn.QueryRow(ctx, `SELECT raw FROM documents WHERE id = $1`, id).Scan(&s)
	default:
		var b []byte
		err = g.conn.QueryRow(ctx, `SELECT content FROM files WHERE name = $1`, p).Scan(&b)
		s = string(b)
	}
	if err != nil {
		t.Fatalf("read %s: %v", p, err)
	}
	return s
}

func (g pgFS) write(t *testing.T, p, s string) {
	ctx := context.Background()
	var err error
	switch id, isDoc := docID(p); {
	case p == "events.jsonl":
		if _, err = g.conn.Exec(ctx, `DELETE FROM events`); err != nil {
			break
		}
		for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
			if _, err = g.conn.Exec(ctx, `INSERT INTO events (seq, line) VALUES ($1, $2)`, gjson.Get(l, "seq").Int(), l); err != nil {
				break
			}
		}
	case isDoc:
		kind, _, _ := strings.Cut(p, "/")
		_, err = g.conn.Exec(ctx, `INSERT INTO documents (id, kind, revision, raw) VALUES ($1, $2, $3, $4)
			ON CONFLICT (id) DO UPDATE SET raw = EXCLUDED.raw`, id, kind, max(1, gjson.Get(s, "revision").Int()), s)
	default:
		_, err = g.conn.Exec(ctx, `INSERT INTO files (name, content) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET content = EXCLUDED.content`, p, []byte(s))
	}
	if err != nil {
		t.Fatalf("write %s: %v", p, err)
	}
}

func (g pgFS) remove(t *testing.T, p string) {
	ctx := context.Background()
	var err error
	if id, isDoc := docID(p); isDoc {
		_, err = g.conn.Exec(ctx, `DELETE FROM documents WHERE id = $1`, id)
	} else {
		_, err = g.conn.Exec(ctx, `DELETE FROM files WHERE name = $1`, p)
	}
	if err != nil {
		t.Fatalf("remove %s: %v", p, err)
	}
}

func (pgFS) root() string { return "" }

// tamperFixture builds the prepared store: a problem with two wrap-up
// statements, the first patched twice (three kept revisions) and leased
// to alice, the second's lease of bob released, a config-set event and a
// dialectic debate with one turn.
func tamperFixture(t *testing.T) (root, head string) {
	t.Helper()
	root = filepath.Join(t.TempDir(), "contents")
	proof := "Step 1: For n = 1 both sides are 1. Step 2: Adding 2n+1 to n^2 gives (n+1)^2. Step 3: Hence the claim."
	for _, args := range [][]string{
		{"init"},
		{"config", "set", "max_rounds", "6"},
		{"new-problem", "--name", "odd", "--objective", "The sum of the first n odd numbers is n^2."},
		{"prob-wrapup-statement", "--problem-path", "prob_odd", "--claim", "For every n >= 1, 1 + 3 + ... + (2n-1) = n^2.", "--purpose", "The objective."},
		{"prob-wrapup-statement", "--problem-path", "prob_odd", "--claim", "The same, again.", "--purpose", "A second try."},
		{"state-complete-proof", "--actor", "prover", "--statement-path", tcStmt, "--strategy", "induction", "--proof-text", proof},
		{"check-reject-proof", "--actor", "checker", "--statement-path", tcStmt, "--sentence-number", "2", "--sentence-text", "Adding", "--error-type", "gap", "--explanation", "Expand."},
		{"fix-patch-proof", "--actor", "fixer", "--statement-path", tcStmt, "--issue-number", "1", "--sentence-range", "2", "--replacement-text", "Step 2: Adding 2n+1 to n^2 gives n^2 + 2n + 1 = (n+1)^2.", "--change-description", "Expand."},
		{"check-reject-proof", "--actor", "checker", "--statement-path", tcStmt, "--sentence-number", "3", "--sentence-text", "Hence", "--error-type", "gap", "--explanation", "Say why."},
		{"fix-patch-proof", "--actor", "fixer", "--statement-path", tcStmt, "--issue-number", "2", "--sentence-range", "3", "--replacement-text", "Step 3: Hence the claim, by induction.", "--change-description", "Name the method."},
		{"debate", "start", "--protocol", "dialectic", "--topic", "Keep", "--artifact", filepath.Join(filepath.Dir(root), tcArtifact)},
		{"debate", "join", tcDebate, "--participant-name", "main"},
		{"debate", "turn", tcDebate, "--participant-id", "p1", "--body", "Keep it."},
		{"claim", tcStmt2, "--role", "prove", "--holder", "bob"},
		{"release", tcStmt2, "--force"},
		{"claim", tcStmt, "--role", "check", "--holder", "alice", "--ttl", "1h"},
	} {
		var out, errb bytes.Buffer
		if code := run(append([]string{"--root", root}, args...), strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("fixture %v: exit %d\n%s%s", args, code, out.String(), errb.String())
		}
	}
	r := doctorJSON(t, []string{"--root", root})
	if !r.OK {
		t.Fatalf("the fixture does not pass doctor: %+v", r)
	}
	return root, r.Report.Log.VerifiedHash
}

type doctorOut struct {
	OK     bool `json:"ok"`
	Error  struct{ Code, Message string }
	Report struct {
		Findings    []struct{ Code, Path, Message string } `json:"findings"`
		Transcripts []string                               `json:"transcripts_regenerated"`
		Mode        string                                 `json:"mode"`
		Rechecked   int                                    `json:"rechecked"`
		Log         struct {
			VerifiedHash string `json:"verified_hash"`
		} `json:"log"`
	} `json:"report"`
	code int
	raw  string
}

func doctorJSON(t *testing.T, args []string, more ...string) doctorOut {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append(append(args, "--json", "doctor"), more...), strings.NewReader(""), &out, &errb)
	var r doctorOut
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("doctor: exit %d, stdout is not JSON (%v): %s%s", code, err, out.String(), errb.String())
	}
	r.code, r.raw = code, out.String()
	return r
}

func TestTamperCatalog(t *testing.T) { tamperCatalogRun(t, nil) }

// TestTamperCatalogPostgres runs the catalog's cases that a database can
// hold on the PostgreSQL store: the fixture is imported into a fresh
// database per case, and the case's edit is made to its rows.
func TestTamperCatalogPostgres(t *testing.T) {
	c, err := cluster.Get()
	if err != nil {
		if os.Getenv(pgtest.RequireEnv) != "" {
			t.Fatalf("no PostgreSQL cluster, and %s is set: %v", pgtest.RequireEnv, err)
		}
		t.Skipf("no PostgreSQL cluster (see the banner above): %v", err)
	}
	tamperCatalogRun(t, c)
}

func tamperCatalogRun(t *testing.T, pg *pgtest.Cluster) {
	for _, k := range []string{"PROOFLOOP_ROOT", "PROOFLOOP_ACTOR", "PROOFLOOP_LEASE", "PROOFLOOP_LOCK_TIMEOUT", "PROOFLOOP_STORE"} {
		t.Setenv(k, "")
	}
	if len(tamperCatalog) < 30 {
		t.Fatalf("the catalog has %d cases; the issue asks for at least 30", len(tamperCatalog))
	}
	fixture, head := tamperFixture(t)
	caught, ran := 0, 0
	for _, tc := range tamperCatalog {
		for _, mode := range []string{"full", "routine"} {
			t.Run(mode+"/"+tc.name, func(t *testing.T) {
				if pg != nil && tc.fileOnly {
					t.Skip("the damage is of a file that PostgreSQL does not hold that way")
				}
				root := filepath.Join(t.TempDir(), "contents")
				copyTree(t, fixture, root)
				copyArtifact(t, fixture, root)
				args := []string{"--root", root}
				var fs tamperFS = fileFS(root)
				if pg != nil {
					dsn := loadPostgres(t, pg, fixture)
					t.Setenv("PROOFLOOP_STORE", dsn)
					conn, err := pgx.Connect(context.Background(), dsn)
					if err != nil {
						t.Fatal(err)
					}
					defer conn.Close(context.Background())
					fs = pgFS{conn}
				}
				flags := []string{"--full"}
				want := tc.code
				if mode == "routine" {
					// The verified point is taken on this copy, before the
					// tamper: the copy's files are new, so the fixture's
					// point would recheck everything.
					if r := doctorJSON(t, args); !r.OK {
						t.Fatalf("doctor before the tamper: %s", r.raw)
					}
					flags = nil
					if tc.routine != "" && pg == nil {
						want = tc.routine
					}
				}
				tc.apply(t, fs)
				ran++
				r := doctorJSON(t, args, flags...)
				switch wantMode := map[bool]string{true: "full", false: mode}[pg != nil]; {
				case r.Report.Mode != wantMode:
					// On PostgreSQL every doctor is the full check.
					t.Errorf("doctor %v ran in mode %q, want %q\n%s", flags, r.Report.Mode, wantMode, r.raw)
					return
				case mode == "routine" && pg == nil && r.Report.Rechecked > 3:
					t.Errorf("the routine doctor rechecked %d documents; one tamper changes at most 3\n%s", r.Report.Rechecked, r.raw)
				}
				switch want {
				case "":
					// The one case no self-contained log can catch: the full
					// doctor passes, and --expect-head with the kept head
					// does not.
					if r.code != 0 {
						t.Errorf("doctor: exit %d; a rewritten suffix with recomputed hashes is a valid chain\n%s", r.code, r.raw)
					}
					r = doctorJSON(t, args, append(flags, "--expect-head", head)...)
					if r.code != 6 || r.Error.Code != "store_damaged" || !strings.Contains(r.Error.Message, "does not pass through the head you kept") || !hasFinding(r, "head_mismatch", "") {
						t.Errorf("doctor --expect-head: exit %d, want 6 with head_mismatch\n%s", r.code, r.raw)
						return
					}
				case "regenerated":
					if r.code != 0 || len(r.Report.Transcripts) != 1 {
						t.Errorf("doctor: exit %d, want 0 with the transcript regenerated\n%s", r.code, r.raw)
						return
					}
				default:
					path := tc.path
					if want != tc.code {
						path = ""
					}
					if r.code != 6 || r.Error.Code != "store_damaged" || !hasFinding(r, want, path) {
						t.Errorf("doctor %v: exit %d; want 6 with a %s finding at %q\n%s", flags, r.code, want, path, r.raw)
						return
					}
				}
				caught++
			})
		}
	}
	t.Logf("tamper catalog: %d cases in 2 modes, %d runs on this store, %d caught (the rewritten suffix by --expect-head after --full)", len(tamperCatalog), ran, caught)
	if pg != nil {
		t.Run("import refuses a hand-edited config.json", func(t *testing.T) { importRefusesTamper(t, pg, fixture) })
	}
}

// importRefusesTamper: import requires doctor to pass, so a file store whose
// config.json was edited by hand (issue 23 W1) is refused, and the database
// stays empty.
func importRefusesTamper(t *testing.T, pg *pgtest.Cluster, fixture string) {
	root := filepath.Join(t.TempDir(), "contents")
	copyTree(t, fixture, root)
	edit("config.json", `"forbid_self_check": true`, `"forbid_self_check": false`)(t, fileFS(root))
	dsn, err := pg.CreateDB(t.Name())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pg.DropDB(dsn) })
	var out, errb bytes.Buffer
	if code := run([]string{"--store", dsn, "--root", t.TempDir(), "db", "migrate"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("db migrate: exit %d: %s", code, errb.String())
	}
	out.Reset()
	code := run([]string{"--store", dsn, "--root", t.TempDir(), "--json", "import", "--from", root}, strings.NewReader(""), &out, &errb)
	if code != 6 || !strings.Contains(out.String(), `"code":"store_damaged"`) || !strings.Contains(out.String(), "does not pass doctor") || !strings.Contains(out.String(), "forbid_self_check") {
		t.Errorf("import of a store with a hand-edited config.json: exit %d, want 6 naming forbid_self_check\n%s", code, out.String())
	}
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM events`).Scan(&n); err != nil || n != 0 {
		t.Errorf("the refused import left %d events (%v)", n, err)
	}
}

func hasFinding(r doctorOut, code, path string) bool {
	for _, f := range r.Report.Findings {
		if f.Code == code && (path == "" || f.Path == path) {
			return true
		}
	}
	return false
}

// copyArtifact copies the fixture's project copy of its debate beside the
// root copied from it.
func copyArtifact(t *testing.T, fixture, root string) {
	b, err := os.ReadFile(filepath.Join(filepath.Dir(fixture), tcArtifact))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(root), tcArtifact), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestExportRefusesForgedKeptRevision (N13): export --to checks its copy
// with the full doctor, which reads kept revisions strictly, so a kept line
// with a forged first "text" is reported (exit 6), not copied as the
// store's history.
func TestExportRefusesForgedKeptRevision(t *testing.T) {
	for _, k := range []string{"PROOFLOOP_ROOT", "PROOFLOOP_ACTOR", "PROOFLOOP_LEASE", "PROOFLOOP_STORE"} {
		t.Setenv(k, "")
	}
	fixture, _ := tamperFixture(t)
	root := filepath.Join(t.TempDir(), "contents")
	copyTree(t, fixture, root)
	editLine("proofs/"+tcStmt+".jsonl", 2, `{`, keptForgery)(t, fileFS(root))
	var out, errb bytes.Buffer
	code := run([]string{"--root", root, "--json", "export", "--to", filepath.Join(t.TempDir(), "backup")}, strings.NewReader(""), &out, &errb)
	var r doctorOut
	json.Unmarshal(out.Bytes(), &r)
	if code != 6 || r.Error.Code != "store_damaged" || !strings.Contains(out.String(), `"path":"proofs/`+tcStmt+`.jsonl"`) || !strings.Contains(out.String(), "duplicate") {
		t.Errorf("export --to of a store with a forged kept revision: exit %d; want 6 naming the proofs file's duplicate key\n%s%s", code, out.String(), errb.String())
	}
}
