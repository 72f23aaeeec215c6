package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/proofloop/proofloop/internal/claudecode"
	"github.com/proofloop/proofloop/skills"
)

// The checkout is a Claude Code plugin marketplace: .claude-plugin/
// marketplace.json lists the proofloop plugin in plugins/proofloop, which
// gen-claude --plugin generates from the registry like the .claude/ files.

// TestClaudePluginInSync generates the marketplace through the real command
// into an empty folder and compares it, byte for byte, with the committed
// one, and checks that nothing else is committed in the plugin's folder.
func TestClaudePluginInSync(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCLI(t, "", "gen-claude", "--dir", dir, "--plugin", "--json")
	if code != 0 {
		t.Fatalf("gen-claude --plugin exit %d; stderr: %s", code, errOut)
	}
	var res struct {
		Plugin struct {
			Written bool     `json:"written"`
			Files   []string `json:"files"`
		} `json:"plugin"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || !res.Plugin.Written {
		t.Fatalf("gen-claude --plugin --json printed %s (%v); want plugin.written", out, err)
	}
	gen, committed := map[string][]byte{}, map[string][]byte{}
	for _, tree := range []struct {
		root string
		into map[string][]byte
	}{{dir, gen}, {repoTop, committed}} {
		for _, sub := range []string{".claude-plugin", skills.PluginDir} {
			filepath.WalkDir(filepath.Join(tree.root, sub), func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					rel, _ := filepath.Rel(tree.root, p)
					data, _ := os.ReadFile(p)
					tree.into[filepath.ToSlash(rel)] = data
				}
				return nil
			})
		}
	}
	if len(gen) != len(res.Plugin.Files) || len(gen) < 20 {
		t.Errorf("gen-claude --plugin wrote %d files, reported %d; want the marketplace, the manifest, the hooks, every skill and agent", len(gen), len(res.Plugin.Files))
	}
	for p, data := range gen {
		if got, ok := committed[p]; !ok {
			t.Errorf("%s is not committed; run `go run ./cmd/proofloop gen-claude`", p)
		} else if !bytes.Equal(got, data) {
			t.Errorf("%s differs from what the generator writes now (%s); run `go run ./cmd/proofloop gen-claude`", p, firstDiff(got, data))
		}
	}
	for p := range committed {
		if _, ok := gen[p]; !ok {
			t.Errorf("%s is committed but not generated; remove it", p)
		}
	}
	// The plugin's skills and agents are the project-local files.
	for p, data := range gen {
		if rel, ok := strings.CutPrefix(p, skills.PluginDir+"/"); ok && (strings.HasPrefix(rel, "skills/") || strings.HasPrefix(rel, "agents/")) {
			if local, err := os.ReadFile(filepath.Join(repoClaude, rel)); err != nil || !bytes.Equal(local, data) {
				t.Errorf("%s is not .claude/%s", p, rel)
			}
		}
	}
	// Plain gen-claude keeps a marketplace it wrote up to date.
	stale := filepath.Join(dir, skills.PluginDir, "skills", "check-reject-proof", "SKILL.md")
	os.WriteFile(stale, []byte("stale\n"), 0o644)
	if code, _, errOut := runCLI(t, "", "gen-claude", "--dir", dir); code != 0 {
		t.Fatalf("gen-claude exit %d: %s", code, errOut)
	}
	if data, _ := os.ReadFile(stale); !bytes.Equal(data, gen[skills.PluginDir+"/skills/check-reject-proof/SKILL.md"]) {
		t.Errorf("gen-claude without --plugin left the marketplace's stale %s", stale)
	}
	// Without --plugin, a project gets no marketplace.
	plain := t.TempDir()
	runCLI(t, "", "gen-claude", "--dir", plain)
	if _, err := os.Stat(filepath.Join(plain, skills.MarketplacePath)); err == nil {
		t.Errorf("gen-claude without --plugin wrote %s into a project", skills.MarketplacePath)
	}
}

// TestClaudePluginInstalls installs the plugin from the checkout with the
// real Claude Code CLI into a fresh HOME (`claude plugin marketplace add`,
// `claude plugin install proofloop@proofloop`) and reads `claude plugin
// details`: every skill, agent and the SessionStart hook are there, and the
// context budget of issue 22 holds for the proof roles: always-on at most
// 500 tokens, a proof role's agent at most 1,200 on invoke, a proof skill
// at most 700; and so does every debate file, an agent or a skill.
func TestClaudePluginInstalls(t *testing.T) {
	bin := claudecode.Require(t)
	top, err := filepath.Abs(repoTop)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	pc, err := claudecode.PluginDetails(ctx, bin, filepath.Join(t.TempDir(), "home"), top, skills.PluginName+"@"+skills.PluginName)
	if err != nil {
		t.Fatal(err)
	}
	var wantSkills, wantAgents []string
	for _, sk := range skills.Registry {
		wantSkills = append(wantSkills, sk.Name)
	}
	for _, r := range skills.Roles() {
		wantAgents = append(wantAgents, "agent-"+string(r))
	}
	for _, d := range skills.AllDebateDocs() {
		if d.Agent {
			wantAgents = append(wantAgents, d.Name)
		} else {
			wantSkills = append(wantSkills, d.Name)
		}
	}
	slices.Sort(wantSkills)
	slices.Sort(wantAgents)
	gotSkills, gotAgents := slices.Sorted(slices.Values(pc.Skills)), slices.Sorted(slices.Values(pc.Agents))
	if !slices.Equal(gotSkills, wantSkills) || !slices.Equal(gotAgents, wantAgents) || pc.Hooks != 1 {
		t.Errorf("the installed plugin has skills %v, agents %v, %d hooks; want %v, %v and the SessionStart hook\n%s",
			gotSkills, gotAgents, pc.Hooks, wantSkills, wantAgents, pc.Output)
	}
	t.Logf("always-on: %d tokens (budget 500)", pc.AlwaysOn)
	if pc.AlwaysOn > 500 {
		t.Errorf("always-on %d tokens; the budget is 500", pc.AlwaysOn)
	}
	for _, sk := range skills.Registry {
		if c := pc.Components[sk.Name]; c.OnInvoke > 700 || c.OnInvoke <= 0 {
			t.Errorf("skill %s costs %d tokens on invoke; the budget is 700", sk.Name, c.OnInvoke)
		}
	}
	for _, r := range skills.Roles() {
		if c := pc.Components["agent-"+string(r)]; c.OnInvoke > 1200 || c.OnInvoke <= 0 {
			t.Errorf("agent-%s costs %d tokens on invoke; the budget is 1,200", r, c.OnInvoke)
		}
	}
	// The debate files too: an agent file at most 1,200, a skill at most 700.
	for _, d := range skills.AllDebateDocs() {
		budget := 700
		if d.Agent {
			budget = 1200
		}
		c := pc.Components[d.Name]
		t.Logf("%s: %d tokens on invoke (budget %d)", d.Name, c.OnInvoke, budget)
		if c.OnInvoke > budget || c.OnInvoke <= 0 {
			t.Errorf("debate file %s costs %d tokens on invoke; the budget is %d", d.Name, c.OnInvoke, budget)
		}
	}
}
