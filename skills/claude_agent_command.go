package skills

import (
	"fmt"

	"github.com/proofloop/proofloop/model"
)

// ClaudeAllowedTools is what a proof role's Claude Code session may use
// when `proofloop run` starts it in print mode (-p): proofloop's own
// commands through Bash, and Read for the skill files. No other shell
// command, no writes, no web.
//
// It goes on the command line rather than in .claude/settings.json
// because Claude Code ignores the allow rules of a project's settings
// until a person has accepted the folder's trust dialog interactively;
// --allowedTools holds in any folder, trusted or not. It is written with
// `=` on purpose: --allowedTools takes several values, and without `=` it
// would swallow the prompt as one more tool. The shell needs it quoted
// (the parentheses).
const ClaudeAllowedTools = "Bash(proofloop:*),Read"

// ClaudeAgentCommand is the agents.<role> command of config.json that
// hands a turn of `proofloop run` to Claude Code: print mode, the
// least-privilege tools above, JSON output (so that the turn's log under
// runs/ lists any permission_denials, the usage and the cost), and a
// prompt that names the role's subagent and the claimed item.
func ClaudeAgentCommand(role model.Role) string {
	return fmt.Sprintf(`claude -p --output-format=json --allowedTools="%s" "Use the agent-%s subagent to take the %s turn on $PROOFLOOP_ID."`,
		ClaudeAllowedTools, role, role)
}

// ClaudeRoles are the roles that ClaudeAgentCommand serves: the four proof
// roles. decide stays a person's.
var ClaudeRoles = []model.Role{model.RoleSolve, model.RoleProve, model.RoleCheck, model.RoleFix}
