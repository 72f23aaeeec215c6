package store

import (
	"strings"

	"github.com/proofloop/proofloop/model"
)

// NearestIDs returns up to n ids of the index nearest to id by edit
// distance, for a not_found hint. It scans only the index's keys of the
// kind id names (prob_, stmt_, deb_), never a document, and keeps the
// keys that are near enough on the way (model.NearestWithin).
func (s *Store) NearestIDs(id string, n int) ([]string, error) {
	prefix := id
	if i := strings.IndexByte(id, '_'); i >= 0 {
		prefix = id[:i+1]
	}
	// A third of the name after the kind's prefix: prob_nope is not
	// near prob_odd, stmt_odd_wrp is near stmt_odd_wrap.
	limit := max(1, (len(id)-len(prefix))/3)
	var near []string
	err := s.View(func(v *IndexView) error {
		return v.kv.Scan(string(bucketItems), []byte(prefix), func(k, _ []byte) error {
			if model.EditDistance(id, string(k), limit) <= limit {
				near = append(near, string(k))
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return model.NearestWithin(id, near, n, limit), nil
}
