package main

import (
	"os"

	"github.com/proofloop/proofloop/store"
)

// A person's commands: every key of config.json is a person's setting (the
// quorum, the self-check, leases, rounds, budgets, and whatever key comes
// next: no list to keep), and guidance to the agents is a person's word
// (docs/identity.md). `config set` and `guide` (but its --list) are refused
// where an agent could be making them: under a lease, in a turn that
// `proofloop run` started, and over MCP, where neither is a tool either
// (mcpExposure.hidden). What keeps an agent from unsetting the variables
// is the agent CLIs' permission to run commands that start with proofloop
// and nothing else (docs/identity.md says what holds and what does not).

// runIDEnv is the variable run gives every agent it starts (loop.Run).
const runIDEnv = "PROOFLOOP_RUN_ID"

// personOnly refuses what (a person's command) when it is made under a
// lease (--lease or $PROOFLOOP_LEASE), in a run's turn ($PROOFLOOP_RUN_ID)
// or over MCP: exit 4, person_only, nothing written.
func (a *app) personOnly(what string) error {
	where := a.agentPlace()
	if where == "" {
		return nil
	}
	return store.Errorf(store.CodePersonOnly, "%s is a person's act, and it was made %s, where an agent acts", what, where).
		WithHint("a person changes it outside an agent's turn, in a shell of their own without PROOFLOOP_LEASE or " + runIDEnv + "; an agent says what it would change and why, and ends its turn")
}

// agentPlace says where an agent may be making this call (over MCP, in a
// run's turn, under a lease), or "" for a person's shell.
func (a *app) agentPlace() string {
	switch {
	case a.project != "":
		return "over MCP"
	case os.Getenv(runIDEnv) != "":
		return "in a turn of `proofloop run` (" + runIDEnv + " is set)"
	case a.lease != "" || os.Getenv("PROOFLOOP_LEASE") != "":
		return "under a lease (--lease or PROOFLOOP_LEASE)"
	}
	return ""
}

// agentMayAct reports whether an agent may be making this call: where
// personOnly refuses a person's act.
func (a *app) agentMayAct() bool { return a.agentPlace() != "" }
