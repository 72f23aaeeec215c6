package main

import (
	"os"

	"github.com/proofloop/proofloop/internal/protocoltest"
)

// A story that sets protocoltest.Env runs with a sixth protocol, tribunal,
// which reuses panel's roles (run_protocol_reuses_judge.txtar): each
// process of the story, the test binary standing in for proofloop, adds
// it before the command runs; the tests' own process never does.
func init() {
	if os.Getenv(protocoltest.Env) != "" {
		protocoltest.Add()
	}
}
