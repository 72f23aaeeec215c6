package doctor

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"

	"github.com/proofloop/proofloop/store"

	"github.com/tidwall/gjson"

	"github.com/proofloop/proofloop/model"
)

// checkersLog collects, while the full check scans the log, the records
// its events carry (detail.records of canary-settle and eval events): what
// checkers.jsonl, derived, must hold, in order.
type checkersLog struct{ recs []model.CheckerRecord }

func (c *checkersLog) add(seq int, line []byte, bad findingFunc) {
	for _, r := range gjson.GetBytes(line, "detail.records").Array() {
		var rec model.CheckerRecord
		if err := json.Unmarshal([]byte(r.Raw), &rec); err != nil {
			bad("event_invalid", store.EventsFile, seq, "a checker record does not parse: %v", err)
			continue
		}
		c.recs = append(c.recs, rec)
	}
}

// check compares checkers.jsonl with the records of a log whole from its
// first event: a line edited, added or removed by hand is
// checkers_mismatch (`doctor --reindex` writes it again from the log).
func (c *checkersLog) check(s *checker, complete bool, bad findingFunc) {
	if !complete {
		return
	}
	raw, err := s.Root().ReadFile(store.CheckersFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		bad("unreadable", store.CheckersFile, 0, "cannot read: %v", err)
		return
	}
	if len(raw) > 0 && raw[len(raw)-1] != '\n' {
		bad("checkers_mismatch", store.CheckersFile, 0, "the last line has no newline: a write was cut short or the file was edited by hand")
		return
	}
	got, err := store.ParseCheckerRecords(raw)
	if err != nil {
		bad("schema", store.CheckersFile, 0, "%v", store.UnwrapDamage(err))
		return
	}
	if len(got) != len(c.recs) {
		bad("checkers_mismatch", store.CheckersFile, 0, "it has %d records, the event log's canary-settle and eval events %d: it was edited by hand", len(got), len(c.recs))
		return
	}
	for i := range got {
		a, _ := json.Marshal(got[i])
		b, _ := json.Marshal(c.recs[i])
		if !bytes.Equal(a, b) {
			bad("checkers_mismatch", store.CheckersFile, 0, "line %d differs from the record the event log carries: it was edited by hand", i+1)
			return
		}
	}
}
