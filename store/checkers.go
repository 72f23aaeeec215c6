package store

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/schemas"
	"github.com/tidwall/gjson"
)

// CheckersFile holds the measured figures of the agents (model.
// CheckerRecord), one record a line, appended by the transaction of each
// settled canary and each eval run. It is derived: the event of that
// transaction carries the same record (detail "record" or "records"), and
// doctor compares the two (the routine check from its verified point). status --checkers and the
// verify_min_reliability rule read it, so neither scans the log.
const CheckersFile = "checkers.jsonl"

// CheckerRecords reads checkers.jsonl: none when it does not exist. A last
// line without its newline is an append still being written (readers take
// no lock) and is left out.
func (s *Store) CheckerRecords() ([]model.CheckerRecord, error) {
	if err := s.finishJournal(); err != nil {
		return nil, err
	}
	raw, err := s.src().ReadFile(CheckersFile)
	if err != nil {
		return nil, damaged(CheckersFile, err)
	}
	return ParseCheckerRecords(raw)
}

// CheckerRecords reads checkers.jsonl as the transaction sees it, without
// locking it on a backend (a confirmation only reads it).
func (tx *Tx) CheckerRecords() ([]model.CheckerRecord, error) {
	read := tx.src().ReadFile
	if tx.bt != nil {
		read = tx.bt.Peek
	}
	raw, err := read(CheckersFile)
	if err != nil {
		return nil, damaged(CheckersFile, err)
	}
	return ParseCheckerRecords(raw)
}

// AppendCheckerRecords appends records to checkers.jsonl when the
// transaction commits, and names them in its event (detail "records").
func (tx *Tx) AppendCheckerRecords(recs []model.CheckerRecord) error {
	var b bytes.Buffer
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			return Errorf(CodeInternal, "encode a checker record").Wrap(err)
		}
		if err := schemas.Validate(schemas.CheckerRecord, line); err != nil {
			return Errorf(CodeInternal, "a checker record fails its schema").Wrap(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	tx.Detail("records", recs)
	return tx.AppendFile(CheckersFile, b.Bytes())
}

// ParseCheckerRecords parses the lines of checkers.jsonl.
func ParseCheckerRecords(raw []byte) ([]model.CheckerRecord, error) {
	if i := bytes.LastIndexByte(raw, '\n'); i < len(raw)-1 {
		raw = raw[:i+1]
	}
	var out []model.CheckerRecord
	for n, line := range bytes.SplitAfter(raw, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		if err := schemas.Validate(schemas.CheckerRecord, line); err != nil {
			return nil, damaged(CheckersFile, fmt.Errorf("line %d: %w", n+1, err))
		}
		var r model.CheckerRecord
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, damaged(CheckersFile, fmt.Errorf("line %d: %w", n+1, err))
		}
		out = append(out, r)
	}
	return out, nil
}

// BelowFloor says why a confirmation by the checker l would not count
// toward verify_quorum (model.MinReliability.Uncounted over the figures of
// checkers.jsonl); "" when it counts.
func (tx *Tx) BelowFloor(cfg Config, l model.AgentLabel) (string, error) {
	if cfg.VerifyMinReliability == nil || l.Agent == "" && l.Model == "" {
		return "", nil
	}
	recs, err := tx.CheckerRecords()
	if err != nil {
		return "", err
	}
	return cfg.VerifyMinReliability.Uncounted(model.Measured(recs, model.RoleCheck), l), nil
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
