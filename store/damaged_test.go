package store

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestDamagedKeepsALostConnection: a backend read that failed because the
// connection was lost (TestServerKilledPostgres met it reading config.json
// during the outage) stays exit 5, retry later, not exit 6 store_damaged.
func TestDamagedKeepsALostConnection(t *testing.T) {
	for _, code := range []Code{CodeConflict, CodeLockTimeout} {
		err := damaged(ConfigFile, Errorf(code, "read %s: the connection to PostgreSQL failed", ConfigFile))
		if err.Code != code {
			t.Errorf("damaged(config.json, a %s error).Code = %s; want %s", code, err.Code, code)
		}
	}
	if err := damaged(ConfigFile, errors.New("unexpected end of JSON input")); err.Code != CodeStoreDamaged {
		t.Errorf("damaged(config.json, a parse error).Code = %s; want %s", err.Code, CodeStoreDamaged)
	}
}

// TestWrapKeepsALostConnection: Tx.Create's "stat ID" wraps its read as
// internal; TestServerKilledPostgres met a lost connection there as exit 1.
func TestWrapKeepsALostConnection(t *testing.T) {
	lost := Errorf(CodeConflict, "read stmt_s_wrap41: the connection to PostgreSQL failed").WithHint("retry")
	if err := Errorf(CodeInternal, "stat stmt_s_wrap41").Wrap(lost); err.Code != CodeConflict || err.Hint != "retry" {
		t.Errorf("internal wrapping a lost connection = %s (hint %q); want conflict with its hint", err.Code, err.Hint)
	}
	if err := Errorf(CodeInternal, "encode").Wrap(errors.New("bad")); err.Code != CodeInternal {
		t.Errorf("internal wrapping a plain error = %s; want internal", err.Code)
	}
}

// TestDuplicateKeyRefusedOnRead: a document with a duplicate key is refused
// by every reader, not only by doctor: two JSON readers would see two
// different documents.
func TestDuplicateKeyRefusedOnRead(t *testing.T) {
	s, dir := testStore(t)
	mustCreate(t, s, "prob_x")
	p := filepath.Join(dir, "problem", "prob_x.json")
	if err := os.WriteFile(p, bytes.Replace(readFile(t, dir, "problem/prob_x.json"), []byte("{"), []byte(`{"status": "solved",`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)
	_, err := s.Read("prob_x")
	wantCode(t, "Read of a document with a duplicate key", err, CodeStoreDamaged)
	_, err = s.Update(TxOptions{Command: "test"}, func(tx *Tx) error {
		_, err := tx.Get("prob_x")
		return err
	})
	wantCode(t, "Get of a document with a duplicate key", err, CodeStoreDamaged)
	sameFiles(t, dir, before)
}
