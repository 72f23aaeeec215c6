package doctor

import (
	"fmt"

	"github.com/proofloop/proofloop/store"
)

// Finding is one thing doctor found wrong, at a root-relative path. Code
// names the kind of damage (see FindingCodes); Seq is the first event where
// the damage shows, when there is one.
type Finding struct {
	Code    string `json:"code"`
	Path    string `json:"path"`
	Message string `json:"message"`
	Seq     int    `json:"seq,omitempty"`
}

// FindingCodes lists every kind of damage doctor reports, with what it
// means. `doctor --json` gives each finding its code.
var FindingCodes = map[string]string{
	"unreadable":         "a file or folder cannot be read or listed",
	"unexpected_file":    "a file that does not belong where it is",
	"not_strict_json":    "a duplicate object key or data after the JSON value",
	"schema":             "a file does not parse or fails its JSON Schema",
	"wrong_id":           "a document's id field is not its file name",
	"duplicate_number":   "two issues or two responses of a statement carry the same number",
	"bad_reference":      "a link between documents is missing or one-sided",
	"revision_mismatch":  "a document's revision is not the one the event log says it reached",
	"replay_mismatch":    "a document differs from the replay of the event log's patches",
	"event_invalid":      "a line of events.jsonl is not an event",
	"event_gap":          "event seqs do not count up by one: lines were deleted, emptied or moved",
	"chain_broken":       "an event's hash or prev does not match: a line was edited, removed or moved",
	"event_quarantined":  "a torn event line that no journal covered was moved to events.quarantine.jsonl",
	"config":             "config.json is damaged or out of range",
	"lease":              "a lease file is damaged",
	"revisions_missing":  "a statement keeps its proof revisions but its proofs/<id>.jsonl file is gone",
	"revisions_mismatch": "the kept proof revisions do not count up to the statement's proof",
	"issue_quote":        "an issue's sentence_text is not at its sentence in the proof revision it cites",
	"dependency_cycle":   "problems and statements depend on each other in a cycle",
	"head_mismatch":      "the event log does not pass through the head hash given to --expect-head: its events up to that one were rewritten",
	"index_mismatch":     "the derived index differs from its documents and the log (`doctor --reindex` rebuilds it)",
	"formal_verdict":     "a kernel's recorded verdict does not match the formal texts it names by their hashes, or its stage",
	"checkers_mismatch":  "checkers.jsonl differs from the records of the event log's canary-settle and eval events (`doctor --reindex` writes it again)",
}

// Report is what doctor did and found. Problems and Statements count the
// document files present, damaged ones included.
type Report struct {
	Recovery   store.Recovery `json:"-"`
	Journal    string         `json:"journal"` // none, finished or discarded
	Swept      []string       `json:"swept"`
	Problems   int            `json:"problems"`
	Statements int            `json:"statements"`
	Events     int            `json:"events"`
	Log        LogReport      `json:"log"`
	Index      string         `json:"index"` // consistent, or rebuilt and why
	Debates    int            `json:"debates,omitempty"`
	// Transcripts lists the debate transcripts doctor rewrote because they
	// were missing or stale (a transcript is derived from its debate).
	Transcripts []string  `json:"transcripts_regenerated,omitempty"`
	Findings    []Finding `json:"findings"`
	// Mode is full, routine, quick, or "full: no verified point" (a
	// routine check with no usable point to start from).
	Mode string `json:"mode"`
	// Since is the seq of the verified point a routine check started from,
	// and Rechecked the documents it read because they changed since.
	Since        int `json:"since,omitempty"`
	Rechecked    int `json:"rechecked,omitempty"`
	logSize      int64
	stamps       map[string]fileStamp // the files' fingerprints a routine check took
	digests      map[string]uint64    // the index digests a routine check took
	indexVersion string
}

// newReport is an empty report of a check that found rec of the journal.
func newReport(rec store.Recovery) *Report {
	r := &Report{Recovery: rec, Journal: "none", Swept: []string{}, Findings: []Finding{}}
	switch {
	case rec.Finished:
		r.Journal = fmt.Sprintf("finished transaction %d", rec.Seq)
	case rec.Found:
		r.Journal = "discarded: " + rec.Discarded
	}
	return r
}

// bad reports a finding (a findingFunc).
func (r *Report) bad(code, p string, seq int, format string, args ...any) {
	r.Findings = append(r.Findings, Finding{code, p, fmt.Sprintf(format, args...), seq})
}

// The modes of Report.Mode.
const (
	ModeFull        = "full"
	ModeFullNoPoint = "full: no verified point"
	ModeRoutine     = "routine"
	ModeQuick       = "quick"
)
