package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/proofloop/proofloop/internal/pgtest"
)

// TestEditedTurnRefusesTheNextWrite (issue 37 S26): a debate whose earlier
// turn was edited behind proofloop's back fails its own integrity check
// (its turn digests), so the next turn, close or decision on it is
// refused (exit 6, store_damaged, naming the turn) and writes nothing;
// doctor reports the same edit. On the file store and on PostgreSQL (the
// same edit made to the row).
func TestEditedTurnRefusesTheNextWrite(t *testing.T) {
	for _, k := range []string{"PROOFLOOP_ROOT", "PROOFLOOP_ACTOR", "PROOFLOOP_LEASE", "PROOFLOOP_LOCK_TIMEOUT", "PROOFLOOP_STORE"} {
		t.Setenv(k, "")
	}
	fixture := filepath.Join(t.TempDir(), "contents")
	for _, args := range [][]string{
		{"init"},
		{"debate", "start", "--protocol", "dialectic", "--topic", "Keep", "--actor", "ann"},
		{"debate", "join", "deb_keep", "--participant-name", "ann", "--actor", "ann"},
		{"debate", "join", "deb_keep", "--participant-name", "bob", "--actor", "bob"},
		{"debate", "turn", "deb_keep", "--participant-id", "p1", "--actor", "ann", "--body", "Keep it."},
		{"debate", "turn", "deb_keep", "--participant-id", "p2", "--actor", "bob", "--body", "Why?", "--suggestion", "Measure."},
	} {
		var out, errb bytes.Buffer
		if code := run(append([]string{"--root", fixture}, args...), strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("fixture %v: exit %d\n%s%s", args, code, out.String(), errb.String())
		}
	}
	stores := map[string]func(t *testing.T, root string) tamperFS{"file": func(_ *testing.T, root string) tamperFS { return fileFS(root) }}
	if c, err := cluster.Get(); err == nil {
		stores["postgres"] = func(t *testing.T, root string) tamperFS { return pgStore(t, c, fixture) }
	} else if os.Getenv(pgtest.RequireEnv) != "" {
		t.Fatalf("no PostgreSQL cluster, and %s is set: %v", pgtest.RequireEnv, err)
	}
	for name, open := range stores {
		t.Run(name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "contents")
			copyTree(t, fixture, root)
			fs := open(t, root)
			doc := fs.read(t, "debate/deb_keep.json")
			forged := strings.Replace(doc, "Keep it.", "Drop it.", 1)
			if forged == doc {
				t.Fatalf("the fixture's debate has no turn saying Keep it.: %s", doc)
			}
			fs.write(t, "debate/deb_keep.json", forged)
			events := fs.read(t, "events.jsonl")
			for _, args := range [][]string{
				{"debate", "turn", "deb_keep", "--participant-id", "p1", "--actor", "ann", "--body", "Again."},
				{"decide", "deb_keep", "--suggestion", "1", "--accept", "--actor", "dee"},
				{"debate", "close", "deb_keep", "--outcome", "invalidated", "--summary", "s"},
			} {
				var out, errb bytes.Buffer
				code := run(append([]string{"--root", root}, args...), strings.NewReader(""), &out, &errb)
				if code != 6 || !strings.Contains(errb.String(), "deb_keep: turn 1 is not as it was written") {
					t.Errorf("%v on the edited debate: exit %d\n%s; want 6 naming turn 1", args, code, errb.String())
				}
			}
			if got := fs.read(t, "debate/deb_keep.json"); got != forged {
				t.Errorf("the refused calls wrote the debate:\n%s", got)
			}
			if got := fs.read(t, "events.jsonl"); got != events {
				t.Errorf("the refused calls wrote events")
			}
			if r := doctorJSON(t, []string{"--root", root}, "--full"); r.code != 6 {
				t.Errorf("doctor --full on the edited debate: exit %d; want 6\n%s", r.code, r.raw)
			}
		})
	}
}

// pgStore loads the store of root into a fresh database, points the
// commands at it ($PROOFLOOP_STORE) and returns its rows to edit.
func pgStore(t *testing.T, c *pgtest.Cluster, root string) tamperFS {
	dsn := loadPostgres(t, c, root)
	t.Setenv("PROOFLOOP_STORE", dsn)
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return pgFS{conn}
}
