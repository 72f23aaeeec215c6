package store

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/schemas"
)

// CheckersFile holds the measured figures of the agents (model.
// CheckerRecord), one record a line, appended by the transaction of each
// settled canary and each eval run. It is derived: the event of that
// transaction carries the same record (detail "record" or "records"), and
// doctor --full compares the two. status --checkers and the
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
