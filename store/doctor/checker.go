package doctor

import "github.com/proofloop/proofloop/store"

// checker is a store under the doctor's checks.
type checker struct{ *store.Store }

// findingFunc reports one finding (store.FindingFunc).
type findingFunc = store.FindingFunc
