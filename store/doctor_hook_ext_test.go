package store_test

import (
	"encoding/json"

	"github.com/proofloop/proofloop/store"
	"github.com/proofloop/proofloop/store/doctor"
)

func init() {
	store.RunDoctor = func(s *store.Store) (*store.DoctorReport, error) {
		r, err := doctor.Full(s)
		if err != nil {
			return nil, err
		}
		b, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		var out store.DoctorReport
		return &out, json.Unmarshal(b, &out)
	}
}
