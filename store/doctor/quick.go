package doctor

import "github.com/proofloop/proofloop/store"

// quick checks only what a crash can leave behind, in O(1): it
// finishes or discards a leftover journal, checks the index's stamp
// against the log (rebuilding a stale index) and checks that the log's last
// line is whole and its hash matches.
func (s *checker) quick() (*Report, error) {
	if s.Backend() != nil {
		return s.doctorQuickBackend()
	}
	unlock, err := s.Lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	rec, err := s.Recover()
	if err != nil {
		return nil, err
	}
	r := newReport(rec)
	r.Index, r.Mode = store.IndexConsistent, ModeQuick
	seq, hash, torn, err := s.Tail()
	if err != nil {
		r.bad("event_invalid", store.EventsFile, 0, "%v", err)
		return r, nil
	}
	if torn != nil {
		r.bad("event_invalid", store.EventsFile, seq+1, "the log ends in a torn line that no journal covers (%d bytes)", len(torn))
	}
	r.Events, r.Log.Events, r.Log.VerifiedSeq, r.Log.VerifiedHash = seq, seq, seq, hash
	if r.Index, err = s.ReindexStale(); err != nil {
		return nil, err
	}
	return r, nil
}

// doctorQuickBackend is quick on a backend: its transactions leave
// nothing half done, so it checks the index's stamp (rebuilding a stale
// index) and reads the log's tail.
func (s *checker) doctorQuickBackend() (*Report, error) {
	r := newReport(store.Recovery{})
	r.Mode = ModeQuick
	var err error
	if r.Index, err = s.ReindexStale(); err != nil {
		return nil, err
	}
	seq, hash, err := s.Backend().Tail()
	if err != nil {
		return nil, err
	}
	r.Events, r.Log.Events, r.Log.VerifiedSeq, r.Log.VerifiedHash = seq, seq, seq, hash
	return r, nil
}

// doctorBackend checks a backend's store: the full check of an exported
// snapshot (CopyToCheck), then the backend's own index against one derived
// afresh from the same snapshot (CheckBackendIndex).
func (s *checker) doctorBackend() (*Report, error) {
	c, done, err := s.CopyToCheck()
	if err != nil {
		return nil, err
	}
	defer done()
	r, err := CheckCopy(c)
	if err != nil {
		return nil, err
	}
	r.Index = store.IndexConsistent
	s.CheckBackendIndex(r.bad)
	return r, nil
}
