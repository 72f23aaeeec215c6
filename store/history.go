package store

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/tidwall/gjson"
	"github.com/tidwall/pretty"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/schemas"
)

// Step is one change of one document in the event log: the event that made
// it, the change itself, and the document as it was just before and just
// after (rebuilt from the patches; nil where the log cannot tell: before
// the document existed, after it was deleted, or for history written before
// patches were kept).
type Step struct {
	Event         Event
	Change        Change
	Before, After json.RawMessage
}

// History lists every change of document id, oldest first. It reads only
// that document's events, through the index's offsets: O(its events), not
// O(the log).
func (s *Store) History(id string) ([]Step, error) {
	if _, err := model.KindOf(id); err != nil {
		return nil, Errorf(CodeUsage, "%v", err)
	}
	var locs []EventLoc
	if err := s.View(func(v *IndexView) error {
		var err error
		locs, err = v.Events(id)
		return err
	}); err != nil {
		return nil, err
	}
	if len(locs) == 0 {
		if _, err := s.Read(id); err != nil {
			return nil, err
		}
		return nil, nil // made before the log recorded it (or by hand)
	}
	lines, err := s.eventLines(locs)
	if err != nil {
		return nil, err
	}
	steps := make([]Step, 0, len(locs))
	var state json.RawMessage // nil: unknown or absent
	known := true             // every patch so far was kept
	for i, l := range locs {
		buf := lines[i]
		var ev Event
		if err := json.Unmarshal(buf, &ev); err != nil || ev.Seq != l.Seq {
			return nil, damaged(IndexFile, fmt.Errorf("the index places seq %d of %s at offset %d, where the log has something else", l.Seq, id, l.Offset)).
				WithHint("run `proofloop doctor --reindex` to rebuild the index from the documents and the log")
		}
		i := changeIndex(ev, id)
		if i < 0 && slices.Contains(ev.IDs, id) {
			continue // a lease event (claim, release) names the item without changing it
		}
		if i < 0 {
			return nil, damaged(IndexFile, fmt.Errorf("seq %d does not change %s", l.Seq, id)).
				WithHint("run `proofloop doctor --reindex` to rebuild the index from the documents and the log")
		}
		c := ev.Changes[i]
		st := Step{Event: ev, Change: c, Before: state}
		switch {
		case c.Deleted:
			state = nil
		case len(c.Patch) == 0:
			known, state = false, nil
		case known:
			from := state
			if from == nil {
				from = json.RawMessage("{}")
			}
			next, err := applyPatch(from, c.Patch)
			if err != nil {
				return nil, damaged(EventsFile, fmt.Errorf("the patch of seq %d does not apply to %s as the log rebuilds it: %w", l.Seq, id, err))
			}
			state = next
		}
		st.After = state
		steps = append(steps, st)
	}
	return steps, nil
}

// eventLines reads the event lines at locs. The log only grows, and the
// lines the index names were committed before the index said so: no lock
// is needed to read them.
func (s *Store) eventLines(locs []EventLoc) ([][]byte, error) {
	if s.backend != nil {
		seqs := make([]int, len(locs))
		for i, l := range locs {
			seqs[i] = l.Seq
		}
		return s.backend.EventLines(seqs)
	}
	log, err := s.OpenEvents()
	if err != nil {
		return nil, err
	}
	defer log.Close()
	out := make([][]byte, len(locs))
	for i, l := range locs {
		out[i] = make([]byte, l.Len)
		if _, err := log.ReadAt(out[i], l.Offset); err != nil {
			return nil, damaged(EventsFile, fmt.Errorf("read seq %d at offset %d: %w", l.Seq, l.Offset, err))
		}
	}
	return out, nil
}

// Point is a moment of the log: event Seq, or (Seq 0) the time Time, or
// (Day) the whole UTC day of Time.
type Point struct {
	Seq  int
	Time time.Time
	Day  bool
}

// End is the last moment p covers: its Time, or the end of its Day.
func (p Point) End() time.Time {
	if p.Day {
		return p.Time.AddDate(0, 0, 1).Add(-time.Nanosecond)
	}
	return p.Time
}

// CheckRange refuses a from that comes after to, when the two can be
// compared without the log (two seqs, or two times): such a range holds no
// event, and saying so beats an empty answer that looks like "no change".
func CheckRange(from, to Point, fromFlag, toFlag string) error {
	var after bool
	switch {
	case from.Time.IsZero() && to.Time.IsZero():
		after = from.Seq > to.Seq
	case !from.Time.IsZero() && !to.Time.IsZero():
		after = from.Time.After(to.End())
	}
	if after {
		return Errorf(CodeUsage, "%s %s comes after %s %s: no event is in that range", fromFlag, from, toFlag, to).
			WithHint(fmt.Sprintf("swap them, or give %s a point before %s", fromFlag, toFlag))
	}
	return nil
}

// ParsePoint reads a point as a seq ("42"), an RFC 3339 time
// ("2026-11-22T10:04:08Z") or a date ("2026-11-22").
func ParsePoint(v string) (Point, error) {
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return Point{Seq: n}, nil
	} else if err == nil {
		return Point{}, Errorf(CodeUsage, "%q is not an event seq: seqs count the log's events from 1", v).
			WithHint("give a seq from 1, or a time such as 2026-11-22T10:04:08Z or 2026-11-22")
	} else if errors.Is(err, strconv.ErrRange) {
		return Point{}, Errorf(CodeUsage, "%q is too large to be an event seq: seqs count the log's events from 1", v).
			WithHint("`proofloop events` lists the seqs there are")
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return Point{Time: t}, nil
	}
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return Point{Time: t, Day: true}, nil
	}
	return Point{}, Errorf(CodeUsage, "%q is neither an event seq (a number) nor a time such as 2026-11-22T10:04:08Z or 2026-11-22", v).
		WithHint("take a seq from `proofloop events`, or give a UTC date or time")
}

// Cmp places event ev against p: -1 before it, 0 at it (the same seq, the
// same second, or within the day), 1 after it.
func (p Point) Cmp(ev Event) int {
	if p.Time.IsZero() {
		return cmp.Compare(ev.Seq, p.Seq)
	}
	t, err := time.Parse(time.RFC3339, ev.Time)
	if err != nil {
		return 1 // a malformed time is never inside a range
	}
	if p.Day {
		return cmp.Compare(t.UTC().Format(time.DateOnly), p.Time.Format(time.DateOnly))
	}
	return t.Compare(p.Time)
}

func (p Point) String() string {
	switch {
	case p.Time.IsZero():
		return fmt.Sprintf("seq %d", p.Seq)
	case p.Day:
		return p.Time.Format(time.DateOnly)
	}
	return p.Time.UTC().Format(time.RFC3339)
}

// At rebuilds document id as it was at p: the state after its last change
// at or before p, as a document to read (not to change), and that change.
func (s *Store) At(id string, p Point) (*Doc, *Step, error) {
	steps, err := s.History(id)
	if err != nil {
		return nil, nil, err
	}
	var last *Step
	for i := range steps {
		if p.Cmp(steps[i].Event) <= 0 {
			last = &steps[i]
		}
	}
	switch {
	case last == nil && len(steps) == 0:
		return nil, nil, Errorf(CodeNotFound, "the event log records no change of %s", id).
			WithHint("it was made before the log recorded it, or by hand; `proofloop doctor` checks")
	case last == nil:
		return nil, nil, Errorf(CodeNotFound, "%s did not exist yet at %s: it was created at seq %d", id, p, steps[0].Event.Seq).
			WithHint(fmt.Sprintf("ask for seq %d or later; `proofloop history %s` lists the seqs that changed it", steps[0].Event.Seq, id))
	case last.Change.Deleted:
		return nil, nil, Errorf(CodeNotFound, "%s was deleted at seq %d", id, last.Event.Seq)
	case last.After == nil:
		return nil, nil, Errorf(CodeNotFound, "%s at %s cannot be rebuilt: its history up to seq %d was written before events kept patches", id, p, last.Event.Seq)
	}
	k, _ := model.KindOf(id)
	return &Doc{ID: id, Kind: k, Raw: layout(k, last.After), revision: last.Change.Revision}, last, nil
}

func changeIndex(ev Event, id string) int {
	for i, c := range ev.Changes {
		if c.ID == id {
			return i
		}
	}
	return -1
}

func applyPatch(doc, patch []byte) ([]byte, error) {
	p, err := jsonpatch.DecodePatch(patch)
	if err != nil {
		return nil, err
	}
	opts := jsonpatch.NewApplyOptions()
	opts.EscapeHTML = false
	return p.ApplyWithOptions(doc, opts)
}

// layout writes a rebuilt document as the store writes documents: its
// fields in its schema's order (a patch's values carry no order), then any
// others, indented.
func layout(k model.Kind, raw []byte) []byte {
	doc := gjson.ParseBytes(raw)
	out := []byte("{")
	seen := map[string]bool{}
	add := func(key string, v gjson.Result) {
		if len(out) > 1 {
			out = append(out, ',')
		}
		kb, _ := json.Marshal(key)
		out = append(append(append(out, kb...), ':'), v.Raw...)
		seen[key] = true
	}
	for _, key := range schemas.PropertyOrder(schemas.Kind(k)) {
		if v := doc.Get(gjson.Escape(key)); v.Exists() {
			add(key, v)
		}
	}
	doc.ForEach(func(key, v gjson.Result) bool {
		if !seen[key.String()] {
			add(key.String(), v)
		}
		return true
	})
	return pretty.Pretty(append(out, '}'))
}
