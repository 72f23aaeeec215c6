package store

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/schemas"
)

// ProofsDir holds the kept proof revisions, one file per statement.
const ProofsDir = "proofs"

// ProofsFile is the file of a statement's kept proof revisions.
func ProofsFile(id string) string { return ProofsDir + "/" + id + ".jsonl" }

// ProofRevisions reads the kept proof revisions of a statement, oldest
// first; none when the file does not exist (no revision kept yet). Every
// line is checked against its schema. A last line without its newline is
// an append still being written by a commit (readers take no lock): it is
// left out here, and doctor, under the lock, reports it.
func (s *Store) ProofRevisions(id string) ([]model.ProofRevision, error) {
	if _, err := model.KindOf(id); err != nil {
		return nil, Errorf(CodeInvalidInput, "%v", err)
	}
	if err := s.finishJournal(); err != nil {
		return nil, err
	}
	raw, err := s.src().ReadFile(ProofsFile(id))
	if err != nil {
		return nil, damaged(ProofsFile(id), err)
	}
	if raw == nil {
		return nil, nil
	}
	if i := bytes.LastIndexByte(raw, '\n'); i < len(raw)-1 {
		raw = raw[:i+1]
	}
	kept, err := ParseProofRevisions(raw)
	if err != nil {
		return nil, damaged(ProofsFile(id), err)
	}
	return kept, nil
}

// ProofRevisions reads the kept proof revisions of a statement inside the
// transaction (under its lock, or through the backend's transaction), as
// they were before it: what the transaction appends shows only after its
// commit. The engine reads them when a level of escalation ends, to keep
// every revision of the abandoned approach in its dead end.
func (tx *Tx) ProofRevisions(id string) ([]model.ProofRevision, error) {
	raw, err := tx.src().ReadFile(ProofsFile(id))
	if err != nil {
		return nil, damaged(ProofsFile(id), err)
	}
	kept, err := ParseProofRevisions(raw)
	if err != nil {
		return nil, damaged(ProofsFile(id), err)
	}
	return kept, nil
}

// ParseProofRevisions parses the lines of a proofs file, each strict JSON
// (CheckJSON) that passes its schema.
func ParseProofRevisions(raw []byte) ([]model.ProofRevision, error) {
	var kept []model.ProofRevision
	for i, line := range bytes.SplitAfter(raw, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		// Strict first: with a key given twice, gjson and the schema read
		// the first value and Unmarshal the last, so a forged "text"
		// before the true one passed every check and was exported.
		if err := CheckJSON(bytes.TrimSuffix(line, []byte("\n"))); err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		if err := schemas.Validate(schemas.ProofRevision, line); err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		var r model.ProofRevision
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		kept = append(kept, r)
	}
	return kept, nil
}

// KeepProofRevision appends a proof revision to the statement's proofs
// file in the transaction, and sets revisions_kept_from on the statement's
// first kept revision. d is the statement, changed in the same transaction.
func (tx *Tx) KeepProofRevision(d *Doc, r model.ProofRevision) error {
	b, err := json.Marshal(r)
	if err != nil {
		return Errorf(CodeInternal, "keep proof revision").Wrap(err)
	}
	if err := tx.AppendFile(ProofsFile(d.ID), append(b, '\n')); err != nil {
		return err
	}
	if d.Get("revisions_kept_from").Int() == 0 {
		return d.Set("revisions_kept_from", r.Revision)
	}
	return nil
}
