package store

// The doctor is a package of its own (store/doctor), above the store: the
// store's own tests, which it cannot import, reach it through RunDoctor,
// which doctor_hook_ext_test.go (package store_test, in the same test
// binary) sets to doctor.Full.

// DoctorReport is what the store's tests read of doctor's report (the same
// JSON fields).
type DoctorReport struct {
	Journal  string   `json:"journal"`
	Swept    []string `json:"swept"`
	Findings []struct {
		Code    string `json:"code"`
		Path    string `json:"path"`
		Message string `json:"message"`
	} `json:"findings"`
}

// RunDoctor runs the full check (doctor.Full) on s.
var RunDoctor func(s *Store) (*DoctorReport, error)

// DoctorClean is doctorClean, for the store's external tests.
var DoctorClean = doctorClean
