package claudecode

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// PluginCost is what `claude plugin details` reports of an installed
// plugin: its component inventory and Claude Code's own estimate of the
// tokens each component costs, always-on (every session) and on-invoke
// (each time a skill or agent fires).
type PluginCost struct {
	Skills, Agents []string
	Hooks          int
	AlwaysOn       int             // the whole plugin's always-on tokens
	Components     map[string]Cost // by skill or agent name
	Output         string          // the command's output, for messages
}

// Cost is one component's estimate, in tokens ("< 20" reads as 20, its
// upper bound; "~1.9k" as 1900).
type Cost struct{ AlwaysOn, OnInvoke int }

// PluginDetails installs the plugin name of the marketplace folder dir with
// the CLI bin into a fresh HOME under home (which the caller removes), and
// returns what `claude plugin details` says of it. Nothing leaves the
// machine: the environment is Env's.
func PluginDetails(ctx context.Context, bin, home, dir, name string) (*PluginCost, error) {
	env := Env(home, "http://127.0.0.1:9")
	run := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env, cmd.Dir = env, home
		out, err := cmd.CombinedOutput()
		if err != nil {
			return string(out), fmt.Errorf("claude %s: %w\n%s", strings.Join(args, " "), err, tail(out, 2000))
		}
		return string(out), nil
	}
	if err := os.MkdirAll(home, 0o755); err != nil {
		return nil, err
	}
	if _, err := run("plugin", "marketplace", "add", dir); err != nil {
		return nil, err
	}
	if _, err := run("plugin", "install", name); err != nil {
		return nil, err
	}
	out, err := run("plugin", "details", name)
	if err != nil {
		return nil, err
	}
	return ParsePluginDetails(out)
}

var (
	inventoryRe = regexp.MustCompile(`(?m)^\s+(Skills|Agents|Hooks) \((\d+)\)\s*(.*)$`)
	alwaysOnRe  = regexp.MustCompile(`(?m)^\s+Always-on:\s+~?([\d,.]+k?) tok`)
	componentRe = regexp.MustCompile(`(?m)^\s+([a-z0-9-]+)\s+(<\s*\d+|~[\d.,]+k?)\s+(<\s*\d+|~[\d.,]+k?)\s*$`)
)

// ParsePluginDetails reads the output of `claude plugin details`.
func ParsePluginDetails(out string) (*PluginCost, error) {
	pc := &PluginCost{Components: map[string]Cost{}, Output: out}
	for _, m := range inventoryRe.FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[2])
		switch m[1] {
		case "Skills":
			pc.Skills = strings.Split(strings.ReplaceAll(strings.TrimSpace(m[3]), " ", ""), ",")
		case "Agents":
			pc.Agents = strings.Split(strings.ReplaceAll(strings.TrimSpace(m[3]), " ", ""), ",")
		case "Hooks":
			pc.Hooks = n
		}
	}
	m := alwaysOnRe.FindStringSubmatch(out)
	if m == nil {
		return nil, fmt.Errorf("claude plugin details printed no always-on figure:\n%s", out)
	}
	pc.AlwaysOn = tokens(m[1])
	for _, m := range componentRe.FindAllStringSubmatch(out, -1) {
		pc.Components[m[1]] = Cost{AlwaysOn: tokens(m[2]), OnInvoke: tokens(m[3])}
	}
	if len(pc.Components) == 0 {
		return nil, fmt.Errorf("claude plugin details printed no per-component figures:\n%s", out)
	}
	return pc, nil
}

// tokens reads "~1.9k", "~630", "< 20" or "1,710" as a number of tokens.
func tokens(s string) int {
	s = strings.TrimSpace(strings.TrimLeft(s, "~<"))
	s = strings.ReplaceAll(s, ",", "")
	mult := 1.0
	if t, ok := strings.CutSuffix(s, "k"); ok {
		s, mult = t, 1000
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return -1
	}
	return int(f*mult + 0.5)
}
