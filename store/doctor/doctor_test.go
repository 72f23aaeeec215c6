package doctor

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// File store only: these tests damage the store by hand (a document, the
// log, index.db edited on disk) to show that doctor finds it. The doctor of
// a clean store on every backend is in the conformance suite (storetest).

// damageStore is a small store with some history: prob_x with a wrap-up
// statement that has two issues, and a few more writes. It returns the
// store, its folder and the seq of its last event.
func damageStore(t *testing.T) (*store.Store, string, int) {
	t.Helper()
	s, dir := testStore(t)
	mustCreate(t, s, "prob_x")
	_, err := s.Update(store.TxOptions{Command: "test-wrap"}, func(tx *store.Tx) error {
		p, err := tx.Get("prob_x")
		if err != nil {
			return err
		}
		proof := "First sentence. Second sentence."
		st := model.Statement{Status: model.StatementHasGap, Claim: "C.", Premises: []string{}, Context: "prob_x",
			Proof: &proof, ProofRevision: 1, Round: 1, SubStatements: []string{},
			Validate: model.Validate{Issues: []model.Issue{
				{IssueNumber: 1, Sentence: 1, SentenceText: "First", ErrorType: "gap", Explanation: "e", CreatedAt: store.Timestamp(t0), Round: 1, ProofRevision: 1},
				{IssueNumber: 2, Sentence: 2, SentenceText: "Second", ErrorType: "gap", Explanation: "e", CreatedAt: store.Timestamp(t0), Round: 1, ProofRevision: 1},
			}, Responses: []model.Response{}, Confirmations: []model.Confirmation{}}}
		if _, err := tx.Create("stmt_x_wrap", st); err != nil {
			return err
		}
		return p.Set("progresses.-1", "stmt_x_wrap")
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"a", "b"} {
		_, err := s.Update(store.TxOptions{Command: "test-hyp"}, func(tx *store.Tx) error {
			d, err := tx.Get("prob_x")
			if err != nil {
				return err
			}
			return d.Set("hypothesis.-1", h)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return s, dir, 4
}

// reseal recomputes a log line's hash after an edit of its bytes, as a
// careful forger would.
func reseal(line []byte) []byte {
	body := append(bytes.Clone(line[:len(line)-store.HashSuffixLen]), '}')
	sum := sha256.Sum256(body)
	return append(body[:len(body)-1], []byte(`,"hash":"`+hex.EncodeToString(sum[:])+`"}`)...)
}

func editLines(t *testing.T, dir string, edit func(lines [][]byte) [][]byte) {
	t.Helper()
	raw := readFile(t, dir, store.EventsFile)
	lines := bytes.Split(bytes.TrimSuffix(raw, []byte("\n")), []byte("\n"))
	out := bytes.Join(edit(lines), []byte("\n"))
	if err := os.WriteFile(filepath.Join(dir, store.EventsFile), append(out, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

func editFile(t *testing.T, dir, name string, edit func(string) string) {
	t.Helper()
	p := filepath.Join(dir, name)
	before := string(readFile(t, dir, name))
	after := edit(before)
	if after == before {
		t.Fatalf("the edit of %s changed nothing", name)
	}
	if err := os.WriteFile(p, []byte(after), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDoctorFindsDamage: each kind of damage is reported with its own code,
// at the right file, and at the first event where it shows. Most of these
// went unnoticed before (issue 10 defect 2, issue 14).
func TestDoctorFindsDamage(t *testing.T) {
	const prob, stmt = "problem/prob_x.json", "statement/stmt_x_wrap.json"
	for _, c := range []struct {
		name     string
		damage   func(t *testing.T, dir string)
		code     string
		path     string
		seq      int    // 0: any
		verified int    // the last verified seq; -1: do not check
		message  string // a part of the message
	}{
		{"duplicate key", func(t *testing.T, dir string) {
			editFile(t, dir, prob, func(s string) string { return strings.Replace(s, "{", `{"status": "solved",`, 1) })
		}, "not_strict_json", prob, 0, 4, `duplicate object member name "status"`},
		{"trailing data", func(t *testing.T, dir string) {
			editFile(t, dir, prob, func(s string) string { return s + "{}" })
		}, "schema", prob, 0, 4, "after top-level value"},
		{"revision lower than the log", func(t *testing.T, dir string) {
			editFile(t, dir, prob, func(s string) string { return strings.Replace(s, `"revision": 4`, `"revision": 3`, 1) })
		}, "revision_mismatch", prob, 4, 4, "its revision is 3, but the event log says it reached revision 4"},
		{"duplicate issue number", func(t *testing.T, dir string) {
			editFile(t, dir, stmt, func(s string) string { return strings.Replace(s, `"issue_number": 2`, `"issue_number": 1`, 1) })
		}, "duplicate_number", stmt, 0, 4, "issue number 1 is used twice"},
		{"hand-edited proof", func(t *testing.T, dir string) {
			editFile(t, dir, stmt, func(s string) string { return strings.Replace(s, "Second sentence.", "Second sentence, improved.", 1) })
		}, "replay_mismatch", stmt, 2, 4, "replace /proof"},
		{"document made by hand", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "problem", "prob_y.json"), readFile(t, dir, "problem/prob_x.json"), 0o644)
			editFile(t, dir, "problem/prob_y.json", func(s string) string { return strings.Replace(s, "prob_x", "prob_y", 1) })
		}, "replay_mismatch", "problem/prob_y.json", 0, 4, "never records it"},
		{"deleted event line", func(t *testing.T, dir string) {
			editLines(t, dir, func(l [][]byte) [][]byte { return append(l[:1:1], l[2:]...) })
		}, "event_gap", store.EventsFile, 3, 1, "events 2-2 are missing"},
		{"deleted event line breaks the chain", func(t *testing.T, dir string) {
			editLines(t, dir, func(l [][]byte) [][]byte { return append(l[:1:1], l[2:]...) })
		}, "chain_broken", store.EventsFile, 3, 1, "prev does not match"},
		{"emptied event line", func(t *testing.T, dir string) {
			editLines(t, dir, func(l [][]byte) [][]byte { l[1] = nil; return l })
		}, "event_invalid", store.EventsFile, 2, 1, "line 2 is not an event"},
		{"line that is not an event", func(t *testing.T, dir string) {
			editLines(t, dir, func(l [][]byte) [][]byte { l[2] = []byte(`{"hello": "world"}`); return l })
		}, "event_invalid", store.EventsFile, 3, 2, "line 3 is not an event"},
		{"edited event line", func(t *testing.T, dir string) {
			editLines(t, dir, func(l [][]byte) [][]byte {
				l[2] = bytes.Replace(l[2], []byte("test-hyp"), []byte("test-hyq"), 1)
				return l
			})
		}, "chain_broken", store.EventsFile, 3, 2, "its hash does not match its bytes"},
		{"edited event line with its hash recomputed", func(t *testing.T, dir string) {
			editLines(t, dir, func(l [][]byte) [][]byte {
				l[2] = reseal(bytes.Replace(l[2], []byte("test-hyp"), []byte("test-hyq"), 1))
				return l
			})
		}, "chain_broken", store.EventsFile, 4, 3, "prev does not match the line before it"},
		{"reordered pair of lines", func(t *testing.T, dir string) {
			editLines(t, dir, func(l [][]byte) [][]byte { l[2], l[3] = l[3], l[2]; return l })
		}, "event_gap", store.EventsFile, 3, -1, "lines were moved"},
		{"config out of range", func(t *testing.T, dir string) {
			editFile(t, dir, store.ConfigFile, func(s string) string { return strings.Replace(s, `"15m"`, `"0s"`, 1) })
		}, "config", store.ConfigFile, 0, 4, "lease_ttl"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, dir, last := damageStore(t)
			if r := doctorClean(t, s); r.Log.VerifiedSeq != last || r.Log.ChainFrom != 1 || r.Log.Replayed != 2 {
				t.Fatalf("before the damage: log report %+v; want verified to seq %d from 1, 2 replayed", r.Log, last)
			}
			c.damage(t, dir)
			r, err := Full(s)
			if err != nil {
				t.Fatal(err)
			}
			var found *Finding
			for i, f := range r.Findings {
				if f.Code == c.code && f.Path == c.path && (c.seq == 0 || f.Seq == c.seq) && strings.Contains(f.Message, c.message) {
					found = &r.Findings[i]
				}
			}
			if found == nil {
				t.Errorf("doctor findings %+v; want %s at %s (seq %d) saying %q", r.Findings, c.code, c.path, c.seq, c.message)
			}
			if c.verified >= 0 && r.Log.VerifiedSeq != c.verified {
				t.Errorf("verified seq %d; want %d", r.Log.VerifiedSeq, c.verified)
			}
			if _, ok := FindingCodes[c.code]; !ok {
				t.Errorf("code %s is not in FindingCodes", c.code)
			}
		})
	}
}

// TestDoctorCountsDamagedDocuments: the totals count every document file,
// damaged ones included (issue 11 item 7).
func TestDoctorCountsDamagedDocuments(t *testing.T) {
	s, dir, _ := damageStore(t)
	editFile(t, dir, "statement/stmt_x_wrap.json", func(s string) string { return s[:len(s)/2] })
	r, err := Full(s)
	if err != nil {
		t.Fatal(err)
	}
	if r.Problems != 1 || r.Statements != 1 {
		t.Errorf("doctor counts %d problems, %d statements; want 1 and 1", r.Problems, r.Statements)
	}
}

// TestDamagedLayoutIsStoreDamaged: a statement/ folder that is a symlink,
// or a .journal that is a folder, is a damaged store, never an internal
// error (issue 10 defect 10).
func TestDamagedLayoutIsStoreDamaged(t *testing.T) {
	t.Run("journal folder", func(t *testing.T) {
		s, dir, _ := damageStore(t)
		os.Mkdir(filepath.Join(dir, store.JournalFile), 0o755)
		_, err := s.Read("prob_x")
		wantCode(t, "Read with .journal a folder", err, store.CodeStoreDamaged)
		_, err = s.Update(store.TxOptions{Command: "test"}, func(tx *store.Tx) error { return nil })
		wantCode(t, "Update with .journal a folder", err, store.CodeStoreDamaged)
	})
	t.Run("statement symlink", func(t *testing.T) {
		s, dir, _ := damageStore(t)
		other := t.TempDir()
		os.Rename(filepath.Join(dir, "statement"), filepath.Join(other, "statement"))
		os.Symlink(filepath.Join(other, "statement"), filepath.Join(dir, "statement"))
		_, err := s.Read("stmt_x_wrap")
		wantCode(t, "Read through a symlinked statement/", err, store.CodeStoreDamaged)
		_, err = s.List(model.KindStatement)
		wantCode(t, "List of a symlinked statement/", err, store.CodeStoreDamaged)
	})
}

// TestDoctorFindsIndexTampering: an index row edited, deleted or added by
// hand, or a turn key planted, is reported as index_mismatch; `Reindex`
// repairs it (issue 12).
func TestDoctorFindsIndexTampering(t *testing.T) {
	for _, c := range []struct {
		name    string
		tamper  func(btx *bolt.Tx) error
		message string
	}{
		{"row edited", func(btx *bolt.Tx) error {
			b := btx.Bucket([]byte("items"))
			return b.Put([]byte("stmt_x_wrap"), bytes.Replace(b.Get([]byte("stmt_x_wrap")), []byte(`"has_gap"`), []byte(`"true"`), 1))
		}, "the row of stmt_x_wrap differs from its documents"},
		{"row deleted", func(btx *bolt.Tx) error {
			return btx.Bucket([]byte("items")).Delete([]byte("stmt_x_wrap"))
		}, "the index has no row for stmt_x_wrap"},
		{"row added", func(btx *bolt.Tx) error {
			return btx.Bucket([]byte("items")).Put([]byte("stmt_ghost"), []byte(`{"id":"stmt_ghost"}`))
		}, "the index has a row for stmt_ghost, which is not a document"},
		{"turn key planted", func(btx *bolt.Tx) error {
			return btx.Bucket([]byte("turn")).Put([]byte("check\x009999\x00prob_x"), nil)
		}, `lists "check 9999 prob_x" as actionable`},
		{"event offset deleted", func(btx *bolt.Tx) error {
			return btx.Bucket([]byte("events")).Delete([]byte("prob_x\x00000000000001"))
		}, "1 event offsets of the index differ from the log"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, dir, _ := damageStore(t)
			db, err := bolt.Open(filepath.Join(dir, store.IndexFile), 0o644, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := db.Update(c.tamper); err != nil {
				t.Fatal(err)
			}
			db.Close()
			r, err := Full(s)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Findings) != 1 || r.Findings[0].Code != "index_mismatch" || !strings.Contains(r.Findings[0].Message, c.message) {
				t.Errorf("doctor findings %+v; want one index_mismatch saying %q", r.Findings, c.message)
			}
			if _, err := s.Reindex(); err != nil {
				t.Fatal(err)
			}
			doctorClean(t, s)
		})
	}
}

// TestIndexRebuiltWhenMissing: a store without an index (written before it
// existed, or with index.db deleted) gets one on first use, and the rows
// agree with the documents.
func TestIndexRebuiltWhenMissing(t *testing.T) {
	s, dir, _ := damageStore(t)
	os.Remove(filepath.Join(dir, store.IndexFile))
	var row *store.Row
	err := s.View(func(v *store.IndexView) error {
		var err error
		row, err = v.Row("stmt_x_wrap")
		return err
	})
	if err != nil || row == nil || row.Role != model.RoleFix || row.Parent != "prob_x" || row.Depth != 1 || row.Root != "prob_x" {
		t.Errorf("View after deleting the index: row %+v, %v; want stmt_x_wrap's turn fix, under prob_x at depth 1", row, err)
	}
	doctorClean(t, s)
}
