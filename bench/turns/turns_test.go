// Package turns measures what an agent is handed for one turn (issue 22,
// item 4), through the real binary and the real Claude Code CLI:
//
//   - the bytes a check turn, a fix turn and a prove turn at level replan
//     read: the role's agent file (its system prompt), the SessionStart
//     hook's `prime --role R --id ID`,
//     the SKILL.md of the skill it calls, and that call's --json output;
//   - `claude plugin details` of the plugin gen-claude --plugin writes:
//     always-on tokens, and each agent's and skill's on-invoke tokens.
//
// `make bench` puts them in its table (bench/table) beside the targets; TestTurnBytes holds the
// check, fix and prove turns to their 10 KB. Run: go test -run '^$' -bench . ./bench/turns/
package turns

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/proofloop/proofloop/bench/table"
	"github.com/proofloop/proofloop/internal/claudecode"
	"github.com/proofloop/proofloop/skills"
)

// The targets of issue 22, item 4.
const (
	maxTurnBytes     = 10 * 1024
	maxAlwaysOn      = 500
	maxAgentOnInvoke = 1200
	maxSkillOnInvoke = 700
)

// binary builds the proofloop binary once into dir.
func binary(t testing.TB, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "proofloop")
	cmd := exec.Command("go", "build", "-o", bin, "../../cmd/proofloop")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// turn is what one turn reads, by part.
type turn struct {
	Role  string
	Parts map[string]int // bytes by part: agent file, prime, skill file, call
}

func (tu turn) total() int {
	n := 0
	for _, b := range tu.Parts {
		n += b
	}
	return n
}

// project is a contents root with a typical statement: a proof of nine
// sentences by one actor, checked by another.
type project struct {
	t    testing.TB
	bin  string
	dir  string // the project folder, holding .claude/ and contents/
	root string
}

func newProject(t testing.TB, bin string) *project {
	dir := t.TempDir()
	p := &project{t: t, bin: bin, dir: dir, root: filepath.Join(dir, "contents")}
	p.run("", "gen-claude", "--dir", dir)
	p.run("", "init")
	// One round at revise, so that the second rejection climbs to replan
	// and hands the prover its dead end.
	p.run("", "config", "set", "escalation", `[{"level":"revise","rounds":1},{"level":"replan"},{"level":"rewrite"}]`)
	p.run("", "new-problem", "--name", "odd_sum", "--objective", "For every n >= 1, 1 + 3 + ... + (2n-1) = n^2.", "--actor", "ada")
	p.run("", "prob-wrapup-statement", "--problem-path", "prob_odd_sum", "--claim", "For every integer n >= 1, 1 + 3 + ... + (2n-1) = n^2.",
		"--premises", "n is an integer with n >= 1", "--purpose", "It is the objective, as a claim to prove.", "--actor", "ada")
	proof := "We argue by induction on $n$. Step 1: For $n = 1$ the left side is the single term $1$ and the right side is $1^2 = 1$, so the claim holds. " +
		"Step 2: Assume that $1 + 3 + \\dots + (2n-1) = n^2$ for some integer $n \\ge 1$. " +
		"Adding the next odd number $2n+1$ to both sides gives $1 + 3 + \\dots + (2n-1) + (2n+1) = n^2 + 2n + 1$. " +
		"The right side is $(n+1)^2$. Hence the claim holds for $n+1$. " +
		"Step 3: By the principle of induction, the claim holds for every integer $n \\ge 1$. " +
		"This is exactly the statement, under its premise that $n$ is an integer with $n \\ge 1$."
	p.run("", "state-complete-proof", "--statement-path", "stmt_odd_sum_wrap", "--strategy", "induction", "--proof-text", proof, "--actor", "bob")
	return p
}

func (p *project) run(lease string, args ...string) []byte {
	p.t.Helper()
	cmd := exec.Command(p.bin, append([]string{"--root", p.root}, args...)...)
	cmd.Dir = p.dir
	cmd.Env = append(os.Environ(), "PROOFLOOP_LEASE="+lease, "PROOFLOOP_ACTOR=", "PROOFLOOP_ROOT=", "PROOFLOOP_STORE=")
	out, err := cmd.Output()
	if err != nil {
		p.t.Fatalf("proofloop %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

var leaseRe = regexp.MustCompile(`"lease":"([0-9a-f]+)"`)

// take claims the statement for role in holder's name, as `proofloop run`
// does, and returns the lease token.
func (p *project) take(role, holder string) string {
	out := p.run("", "claim", "stmt_odd_sum_wrap", "--role", role, "--holder", holder, "--json")
	m := leaseRe.FindSubmatch(out)
	if m == nil {
		p.t.Fatalf("claim printed no lease: %s", out)
	}
	return string(m[1])
}

func (p *project) file(rel string) int {
	data, err := os.ReadFile(filepath.Join(p.dir, ".claude", rel))
	if err != nil {
		p.t.Fatal(err)
	}
	return len(data)
}

// turns plays a check turn (a rejection of sentence 4) and the fix turn
// that answers it, and returns what each read.
func turns(t testing.TB, bin string) []turn {
	p := newProject(t, bin)
	lease := p.take("check", "carol")
	check := turn{Role: "check", Parts: map[string]int{
		"agent file": p.file("agents/agent-check.md"),
		"prime":      len(p.run(lease, "prime", "--role", "check", "--id", "stmt_odd_sum_wrap")),
		"skill file": p.file("skills/check-reject-proof/SKILL.md"),
		"call": len(p.run(lease, "check-reject-proof", "--statement-path", "stmt_odd_sum_wrap", "--sentence-number", "4",
			"--sentence-text", "Adding the next odd number", "--error-type", "unjustified_leap",
			"--explanation", "The step from n^2 + 2n + 1 to (n+1)^2 is not shown.", "--suggested-fix", "Expand the square.",
			"--actor", "carol", "--expect-revision", "2", "--json")),
	}}
	lease = p.take("fix", "bob")
	fix := turn{Role: "fix", Parts: map[string]int{
		"agent file": p.file("agents/agent-fix.md"),
		"prime":      len(p.run(lease, "prime", "--role", "fix", "--id", "stmt_odd_sum_wrap")),
		"skill file": p.file("skills/fix-patch-proof/SKILL.md"),
		"call": len(p.run(lease, "fix-patch-proof", "--statement-path", "stmt_odd_sum_wrap", "--issue-number", "1", "--sentence-range", "5",
			"--replacement-text", "The right side is $n^2 + 2n + 1 = (n+1)^2$, by expanding the square.",
			"--change-description", "Show the identity.", "--actor", "bob", "--json")),
	}}
	// The second rejection spends revise: the statement climbs to replan,
	// and the prover's turn reads its dead end first, then re-plans with
	// the lesson.
	lease = p.take("check", "carol")
	p.run(lease, "check-reject-proof", "--statement-path", "stmt_odd_sum_wrap", "--sentence-number", "7",
		"--sentence-text", "By the principle of induction", "--error-type", "gap",
		"--explanation", "Which principle, with which base case? Say that step 1 is the base and step 2 the step.", "--actor", "carol", "--json")
	lease = p.take("prove", "bob")
	prove := turn{Role: "prove", Parts: map[string]int{
		"agent file": p.file("agents/agent-prove.md"),
		"prime":      len(p.run(lease, "prime", "--role", "prove", "--id", "stmt_odd_sum_wrap")),
		"skill file": p.file("skills/state-setup-substatement/SKILL.md"),
		"call": len(p.run(lease, "state-setup-substatement", "--parent-statement-path", "stmt_odd_sum_wrap",
			"--sub-statements", `[{"claim": "1 = 1^2."}, {"claim": "If 1 + 3 + ... + (2n-1) = n^2, then 1 + 3 + ... + (2n+1) = (n+1)^2.", "premises": ["n >= 1"]}]`,
			"--rationale", "A base case and a step, each proved on its own.", "--lesson", "One run-on induction is too terse for the checker: prove the base and the step as lemmas.",
			"--actor", "bob", "--json")),
	}}
	return []turn{check, fix, prove}
}

// TestTurnBytes holds a check turn, a fix turn and a prove turn at level
// replan (its dead end first in prime) to 10 KB each.
func TestTurnBytes(t *testing.T) {
	bin := binary(t, t.TempDir())
	for _, tu := range turns(t, bin) {
		t.Logf("a %s turn reads %d bytes: %v", tu.Role, tu.total(), tu.Parts)
		if tu.total() > maxTurnBytes {
			t.Errorf("a %s turn reads %d bytes (%v); the budget is %d", tu.Role, tu.total(), tu.Parts, maxTurnBytes)
		}
		for part, n := range tu.Parts {
			if n == 0 {
				t.Errorf("the %s turn's %s is empty", tu.Role, part)
			}
		}
	}
}

var once sync.Once

// BenchmarkTurnContext prints the bytes per turn and the plugin's token
// figures beside their targets, once.
func BenchmarkTurnContext(b *testing.B) {
	once.Do(func() {
		bin := binary(b, b.TempDir())
		for _, tu := range turns(b, bin) {
			table.Record(fmt.Sprintf("bytes a %s turn reads (agent file, prime --id, SKILL.md, the call)", tu.Role),
				fmt.Sprintf("%d (%d + %d + %d + %d)", tu.total(), tu.Parts["agent file"], tu.Parts["prime"], tu.Parts["skill file"], tu.Parts["call"]),
				fmt.Sprintf("≤ %d", maxTurnBytes), verdict(tu.total(), maxTurnBytes))
		}
		pluginFigures(b, bin)
	})
	for i := 0; i < b.N; i++ {
	}
}

// pluginFigures writes the marketplace with gen-claude --plugin, installs
// it with the pinned Claude Code CLI into a fresh HOME and prints what
// `claude plugin details` says, or why it could not.
func pluginFigures(b *testing.B, bin string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	claude, err := claudecode.Install(ctx)
	if err != nil {
		table.Record("claude plugin details", fmt.Sprintf("not measured: %v", err), "", "")
		return
	}
	dir := b.TempDir()
	if out, err := exec.Command(bin, "gen-claude", "--dir", dir, "--plugin").CombinedOutput(); err != nil {
		b.Fatalf("gen-claude --plugin: %v\n%s", err, out)
	}
	pc, err := claudecode.PluginDetails(ctx, claude, filepath.Join(b.TempDir(), "home"), dir, skills.PluginName+"@"+skills.PluginName)
	if err != nil {
		table.Record("claude plugin details", fmt.Sprintf("not measured: %v", err), "", "")
		return
	}
	table.Record(fmt.Sprintf("always-on tokens (claude plugin details, Claude Code %s)", claudecode.Version), fmt.Sprint(pc.AlwaysOn), fmt.Sprintf("≤ %d", maxAlwaysOn), verdict(pc.AlwaysOn, maxAlwaysOn))
	// The largest agent and the largest skill, each against its limit:
	// one row per kind keeps the table to the figures.
	largest := map[bool]string{} // by "is an agent"
	for n, c := range pc.Components {
		agent := strings.HasPrefix(n, "agent-")
		if l, ok := largest[agent]; !ok || c.OnInvoke > pc.Components[l].OnInvoke || c.OnInvoke == pc.Components[l].OnInvoke && n < l {
			largest[agent] = n
		}
	}
	for _, agent := range []bool{true, false} {
		n, kind, limit := largest[agent], "skill", maxSkillOnInvoke
		if agent {
			kind, limit = "agent", maxAgentOnInvoke
		}
		if n != "" {
			table.Record("the largest "+kind+" on invoke, tokens", fmt.Sprintf("%d (%s)", pc.Components[n].OnInvoke, n), fmt.Sprintf("≤ %d", limit), verdict(pc.Components[n].OnInvoke, limit))
		}
	}
}

func verdict(got, limit int) string { return table.AtMost(float64(got), float64(limit)) }
