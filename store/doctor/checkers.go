package doctor

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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
	if raw, ok := readCheckers(s, bad); ok {
		c.compare(raw, 0, "the event log's canary-settle and eval events", bad)
	}
}

// checkSince is the routine check's: checkers.jsonl up to the size the
// last clean check recorded still has the SHA-256 it had, and what follows
// is the records of the events after the point, in order (c holds those).
func (c *checkersLog) checkSince(s *checker, pt *point, bad findingFunc) {
	raw, ok := readCheckers(s, bad)
	if !ok {
		return
	}
	if int64(len(raw)) < pt.checkersSize || model.SHA256Hex(string(raw[:pt.checkersSize])) != pt.checkersHash {
		bad("checkers_mismatch", store.CheckersFile, 0, "its first %d bytes are not what the last clean check verified: a line was edited or removed by hand", pt.checkersSize)
		return
	}
	head := raw[:pt.checkersSize]
	c.compare(raw[pt.checkersSize:], bytes.Count(head, []byte("\n")), "the canary-settle and eval events since the last clean check", bad)
}

// readCheckers reads checkers.jsonl whole (none when it does not exist):
// under the doctor's lock, a last line without its newline is damage.
func readCheckers(s *checker, bad findingFunc) ([]byte, bool) {
	raw, err := s.Root().ReadFile(store.CheckersFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		bad("unreadable", store.CheckersFile, 0, "cannot read: %v", err)
		return nil, false
	}
	if len(raw) > 0 && raw[len(raw)-1] != '\n' {
		bad("checkers_mismatch", store.CheckersFile, 0, "the last line has no newline: a write was cut short or the file was edited by hand")
		return nil, false
	}
	return raw, true
}

// compare holds the lines of raw, which begin at line skipped+1 of the
// file, to c's records; whose says where those come from.
func (c *checkersLog) compare(raw []byte, skipped int, whose string, bad findingFunc) {
	got, err := store.ParseCheckerRecords(raw)
	if err != nil {
		bad("schema", store.CheckersFile, 0, "%v", store.UnwrapDamage(err))
		return
	}
	if len(got) != len(c.recs) {
		after := ""
		if skipped > 0 {
			after = fmt.Sprintf(" after line %d", skipped)
		}
		bad("checkers_mismatch", store.CheckersFile, 0, "it has %d records%s, %s %d: it was edited by hand", len(got), after, whose, len(c.recs))
		return
	}
	for i := range got {
		a, _ := json.Marshal(got[i])
		b, _ := json.Marshal(c.recs[i])
		if !bytes.Equal(a, b) {
			bad("checkers_mismatch", store.CheckersFile, 0, "line %d differs from the record the event log carries: it was edited by hand", skipped+i+1)
			return
		}
	}
}
