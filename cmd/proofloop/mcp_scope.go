//go:build !lean

package main

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
	"github.com/proofloop/proofloop/store"
)

// Which tools a role's server offers (`proofloop mcp --role R`). Every tool
// schema is loaded into every turn of the agent's session, so a role gets
// what its turn uses and nothing else: the loop tools every role uses
// (skills.MCPLoopTools, the list the agent files allow too), plus
//   - a workflow role (solve, prove, check, fix): its skills, from the
//     registry;
//   - decide: the decide command;
//   - any other role, a debate's (participant, reviewer, an agora position):
//     the tools of a debate turn.

// mcpRoleCommands are the commands a workflow role has beside its skills.
var mcpRoleCommands = map[model.Role][]string{
	model.RoleDecide: {"decide"},
}

// mcpDebateCommands are the tools of a turn in a debate.
var mcpDebateCommands = []string{"debate join", "debate turn", "debate wait", "debate show", "debate transcript", "debate close"}

// workflowRole reports whether r is one of the five roles of the transition
// table (the others are debate roles).
func workflowRole(r model.Role) bool {
	return slices.Contains([]model.Role{model.RoleSolve, model.RoleProve, model.RoleCheck, model.RoleFix, model.RoleDecide}, r)
}

// mcpScope is the set of tool names role r is offered; nil offers every
// tool (no role).
func mcpScope(r model.Role) map[string]bool {
	if r == "" {
		return nil
	}
	set := map[string]bool{}
	for _, t := range skills.MCPLoopTools {
		set[t] = true
	}
	cmds := mcpDebateCommands
	if workflowRole(r) {
		cmds = mcpRoleCommands[r]
		for _, sk := range skills.ForRole(r) {
			cmds = append(cmds, sk.Name)
		}
	}
	for _, c := range cmds {
		set[skills.ToolName(c)] = true
	}
	return set
}

// pinRole holds a role's server (mcp --role R) to R (issue 34, N5): a tool
// that takes a role (claim, next, prime) acts for R when the call names
// none, and refuses another, so a check server cannot claim a prover's
// item or read the fixer's prime. A claim --for-timeout names no role.
func (m *mcpServer) pinRole(t *mcpTool, in map[string]json.RawMessage) error {
	if m.role == "" || t.flags[paramRole] == nil {
		return nil
	}
	if v, ok := in[paramRole]; ok {
		var r string
		if json.Unmarshal(v, &r) != nil || model.Role(r) != m.role {
			return store.Errorf(store.CodeInvalidInput, "this server serves the role %s, and %s was asked for %.40s", m.role, t.tool.Name, v).
				WithHint(fmt.Sprintf("leave %s out (it is %s here); another role has its own server: `proofloop mcp --role ROLE`", paramRole, m.role))
		}
		return nil
	}
	if _, ok := in["for_timeout"]; ok {
		return nil
	}
	in[paramRole], _ = json.Marshal(string(m.role))
	return nil
}
