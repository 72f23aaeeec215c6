package skills

import (
	"fmt"

	"github.com/proofloop/proofloop/model"
)

// ClaudeAllowedTools is what a proof role's Claude Code session may use
// when `proofloop run` starts it in print mode (-p): proofloop's own
// commands through Bash, and Read of the project's files (./**, relative
// to the folder run starts it in: the skill files), never a blanket Read
// of the machine. No other shell command, no writes, no web.
//
// It goes on the command line rather than in .claude/settings.json
// because Claude Code ignores the allow rules of a project's settings
// until a person has accepted the folder's trust dialog interactively;
// --allowedTools holds in any folder, trusted or not. It is written with
// `=` on purpose: --allowedTools takes several values, and without `=` it
// would swallow the prompt as one more tool. The shell needs it quoted
// (the parentheses).
const ClaudeAllowedTools = "Bash(proofloop:*),Read(./**)"

// ClaudeAgentCommand is the agents.<role> command of config.json that
// hands a turn of `proofloop run` to Claude Code: print mode, the session
// run as the role's agent (--agent agent-<role>: the agent file is its
// system prompt, its tools are the file's, and the SessionStart hook's
// `proofloop prime --id` output reaches the very session that works), the
// least-privilege tools above, JSON output (so that the turn's log under
// runs/ lists any permission_denials, the usage and the cost), and a
// prompt that names the claimed item.
//
// --agent, rather than a prompt asking the main session to start the
// role's subagent: that costs a second session per turn, whose every
// request carries all of Claude Code's own tools and the listings of every
// skill and agent (e2e/harness measured 87 KB a request against 12
// to 20 KB), and prime's output then reaches only the session that delegates.
func ClaudeAgentCommand(role model.Role) string {
	return fmt.Sprintf(`claude -p --output-format=json --agent agent-%s --allowedTools="%s" "Take the %s turn on $PROOFLOOP_ID."`,
		role, ClaudeAllowedTools, role)
}

// ClaudeRoles are the roles that ClaudeAgentCommand serves: the four proof
// roles. decide stays a person's.
var ClaudeRoles = []model.Role{model.RoleSolve, model.RoleProve, model.RoleCheck, model.RoleFix}
