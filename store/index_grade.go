package store

import (
	"slices"

	"github.com/proofloop/proofloop/model"
)

// The grade's inputs that an index row carries (Row.Kernel, Row.Counted):
// what the grade of a true statement is derived from when the rows are
// read (loop.Proved), with fully_proved.

// countedLabels are the checkers of a true statement's counted
// confirmations of its proof revision, each once; nil when it is not true
// or when one of them names no agent or model (then nothing about it is
// measured).
func countedLabels(st *model.Statement) []model.AgentLabel {
	if st.Status != model.StatementTrue {
		return nil
	}
	var out []model.AgentLabel
	for _, c := range st.Validate.Confirmations {
		if c.ProofRevision != st.ProofRevision || c.Uncounted != "" {
			continue
		}
		if c.Agent == "" && c.Model == "" {
			return nil
		}
		if !slices.Contains(out, c.AgentLabel) {
			out = append(out, c.AgentLabel)
		}
	}
	return out
}
