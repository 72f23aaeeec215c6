package store

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/tidwall/gjson"

	"github.com/proofloop/proofloop/model"
)

// checkersLog collects, while the full check scans the log, the records
// its events carry (detail.records of canary-settle and eval events): what
// checkers.jsonl, derived, must hold, in order.
type checkersLog struct{ recs []model.CheckerRecord }

func (c *checkersLog) add(seq int, line []byte, bad FindingFunc) {
	for _, r := range gjson.GetBytes(line, "detail.records").Array() {
		var rec model.CheckerRecord
		if err := json.Unmarshal([]byte(r.Raw), &rec); err != nil {
			bad("event_invalid", EventsFile, seq, "a checker record does not parse: %v", err)
			continue
		}
		c.recs = append(c.recs, rec)
	}
}

// check compares checkers.jsonl with the records of a log whole from its
// first event: a line edited, added or removed by hand is
// checkers_mismatch (`doctor --reindex` writes it again from the log).
func (c *checkersLog) check(s *Store, complete bool, bad FindingFunc) {
	if !complete {
		return
	}
	raw, err := s.root.ReadFile(CheckersFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		bad("unreadable", CheckersFile, 0, "cannot read: %v", err)
		return
	}
	if len(raw) > 0 && raw[len(raw)-1] != '\n' {
		bad("checkers_mismatch", CheckersFile, 0, "the last line has no newline: a write was cut short or the file was edited by hand")
		return
	}
	got, err := ParseCheckerRecords(raw)
	if err != nil {
		bad("schema", CheckersFile, 0, "%v", UnwrapDamage(err))
		return
	}
	if len(got) != len(c.recs) {
		bad("checkers_mismatch", CheckersFile, 0, "it has %d records, the event log's canary-settle and eval events %d: it was edited by hand", len(got), len(c.recs))
		return
	}
	for i := range got {
		a, _ := json.Marshal(got[i])
		b, _ := json.Marshal(c.recs[i])
		if !bytes.Equal(a, b) {
			bad("checkers_mismatch", CheckersFile, 0, "line %d differs from the record the event log carries: it was edited by hand", i+1)
			return
		}
	}
}

// CheckersCommand is the event command of RebuildCheckers.
const CheckersCommand = "checkers-rebuild"

// RebuildCheckers writes checkers.jsonl again from the records the event
// log carries, in one transaction with a checkers-rebuild event, and says
// whether it changed it.
func (s *Store) RebuildCheckers() (bool, error) {
	changed := false
	_, err := s.Update(TxOptions{Command: CheckersCommand}, func(tx *Tx) error {
		var want bytes.Buffer
		err := s.eachEvent(func(line []byte) error {
			for _, r := range gjson.GetBytes(line, "detail.records").Array() {
				var rec model.CheckerRecord
				if err := json.Unmarshal([]byte(r.Raw), &rec); err != nil {
					return damaged(EventsFile, fmt.Errorf("a checker record does not parse: %w", err))
				}
				b, _ := json.Marshal(rec)
				want.Write(append(b, '\n'))
			}
			return nil
		})
		if err != nil {
			return err
		}
		read := tx.src().ReadFile
		got, err := read(CheckersFile)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return damaged(CheckersFile, err)
		}
		if bytes.Equal(got, want.Bytes()) {
			return nil
		}
		changed = true
		tx.Record()
		return tx.WriteFile(CheckersFile, want.Bytes())
	})
	return changed, err
}

// eachEvent calls fn with each line of the log, in order.
func (s *Store) eachEvent(fn func(line []byte) error) error {
	if s.backend != nil {
		return s.backend.Events(0, func(_ int, line []byte) error { return fn(line) })
	}
	f, err := s.OpenEvents()
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for sc.Scan() {
		if err := fn(sc.Bytes()); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return damaged(EventsFile, err)
	}
	return nil
}
