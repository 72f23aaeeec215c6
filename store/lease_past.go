package store

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/tidwall/gjson"
)

// PastLease is a lease of an item as its event records it (token hashed).
type PastLease struct {
	Holder     string
	ClaimedAt  string
	ExpiresAt  string
	ReleasedAt string // "" while not released
}

// PastLeaseOf finds the lease of item id whose token was token, from the
// lease records of the item's events (LeasesDetail): the latest record of
// it, or nil when token was never a lease of id. It reads only the item's
// events, through the index; a lease refusal's hint uses it to say whether
// the token given had expired or was never this item's.
func (s *Store) PastLeaseOf(id, token string) (*PastLease, error) {
	var locs []EventLoc
	if err := s.View(func(v *IndexView) error {
		var err error
		locs, err = v.Events(id)
		return err
	}); err != nil {
		return nil, err
	}
	lines, err := s.eventLines(locs)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(token))
	want := hex.EncodeToString(sum[:])
	var out *PastLease
	for _, line := range lines {
		rec := gjson.GetBytes(line, "detail."+LeasesDetail+"."+gjson.Escape(id))
		if rec.Get("token_sha256").String() != want {
			continue
		}
		out = &PastLease{Holder: rec.Get("holder").String(), ClaimedAt: rec.Get("claimed_at").String(),
			ExpiresAt: rec.Get("expires_at").String(), ReleasedAt: rec.Get("released_at").String()}
	}
	return out, nil
}
