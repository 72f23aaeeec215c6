package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// A seed rule that is prompt text (seed 001's /debate plugin and 003's
// code-debate are Claude Code prompts, seed 004's drone rules too) works
// when proofloop's generated file says it: seedPromptRules gives, for each
// such row of docs/seeds-checklist.md, the committed file that must say it
// (in these words) and what it must no longer say.
var seedPromptRules = map[int]struct {
	file  string
	says  []string
	lacks []string
}{
	// 000: the prompt half of the support forms and the topic focus.
	20: {".claude/agents/agent-socratic.md", []string{"Every turn stays on the topic", "engages the source or an earlier turn", "revise an off-topic draft before you send it"}, nil},
	21: {".claude/agents/agent-socratic.md", []string{"Each support item is one of: a `quote` of the source, word for word; an earlier `turn` (`turn-N`); a `url`; or a `text` that starts `Principle:`"}, nil},
	// 001: the /debate skill (main) and the partner's agent file.
	35:  {".claude/skills/debate/SKILL.md", []string{"`/debate TOPIC` runs a `dialectic` debate", "start and join the debate, then start the partner"}, nil},
	36:  {".claude/skills/debate/SKILL.md", []string{"Before starting, confirm topic, focus and your initial leaning"}, nil},
	37:  {".claude/skills/debate/SKILL.md", []string{"Choose the partner's agent type by the topic: a specialist that fits it, else `agent-dialectic-partner`", "If T fails to start, start `general-purpose`", "`--fallback-from T --fallback-reason WHY`"}, nil},
	39:  {".claude/skills/debate/SKILL.md", []string{"concrete context (the files, key code or the diff, the decision to make)", "if the context is not enough, to find it itself and report what it found"}, nil},
	40:  {".claude/agents/agent-dialectic-partner.md", []string{"question the assumptions main's view rests on", "edge cases and counterexamples", "explore alternatives", "stay constructive, never hostile", "not proving main wrong", "If the context is not enough, find it yourself"}, nil},
	49:  {".claude/skills/debate/SKILL.md", []string{"AskUserQuestion", "confirm topic, focus and your initial leaning"}, nil},
	50:  {".claude/skills/debate/SKILL.md", []string{"After each round, offer: continue, add a view, steer, summarise, or let you decide"}, nil},
	51:  {".claude/skills/debate/SKILL.md", []string{"ask whether to keep the record", "`proofloop debate close ID --discard`"}, nil},
	52:  {".claude/skills/debate/SKILL.md", []string{"Apply no partner suggestion before the user consents", `records "user agreed"`, "If one was applied without consent, stop at once and tell the user what changed"}, nil},
	112: {".claude/agents/agent-dialectic-partner.md", []string{"answer the user's turns too"}, nil},
	113: {".claude/agents/agent-dialectic-partner.md", []string{"Your goal is the better answer", "Propose a change as `--suggestion TEXT`"}, []string{"fallac", "rhetoric"}},
	114: {".claude/skills/debate/SKILL.md", []string{"At a key disagreement, ask for the user's input"}, nil},
	// 003: the code-debate skill.
	66:  {".claude/skills/code-debate/SKILL.md", []string{"Analyse the subject first (`git show`, `git diff`, `gh pr view`)"}, nil},
	67:  {".claude/skills/code-debate/SKILL.md", []string{"If `.prompts/pr-review.md` exists, read it and apply its standards"}, nil},
	110: {".claude/skills/code-debate/SKILL.md", []string{"Both sessions run the same join, each with a name of its own", "Two sessions of one user are two actors", "`PROOFLOOP_ACTOR=NAME`", "nothing is passed between the sessions"}, []string{"passes its id on"}},
	115: {".claude/skills/code-debate/SKILL.md", []string{"At the round limit the last writer, either side, appends the consensus", "the responder with its last reply, else the reviewer next"}, []string{"At the round limit your next turn must be the consensus"}},
	116: {".claude/skills/code-debate/SKILL.md", []string{"never ask the user which"}, nil},
	// 004: the drone's counter rule.
	117: {".claude/agents/agent-agora.md", []string{"A `counter` first acknowledges the opponent's strongest point, then says why your position still holds, with at least one piece of counter-evidence"}, nil},
}

// TestSeedRulesInGeneratedFiles checks every prompt-text row of the
// checklist against the committed generated file, and that the rows citing
// this test are exactly the rows of seedPromptRules.
func TestSeedRulesInGeneratedFiles(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(repoTop, "docs", "seeds-checklist.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`(?m)^\| (\d+) \|.*\| [a-z]+ \|(.*)\|$`)
	var citing []int
	for _, m := range row.FindAllStringSubmatch(string(doc), -1) {
		if strings.Contains(m[2], "TestSeedRulesInGeneratedFiles") {
			n, _ := strconv.Atoi(m[1])
			citing = append(citing, n)
		}
	}
	var rows []int
	for n := range seedPromptRules {
		rows = append(rows, n)
	}
	slices.Sort(rows)
	if !slices.Equal(citing, rows) {
		t.Errorf("the checklist rows citing TestSeedRulesInGeneratedFiles are %v; seedPromptRules has %v", citing, rows)
	}
	for _, n := range rows {
		r := seedPromptRules[n]
		data, err := os.ReadFile(filepath.Join(repoTop, filepath.FromSlash(r.file)))
		if err != nil {
			t.Fatalf("row %d: %v; run `go run ./cmd/proofloop gen-claude`", n, err)
		}
		text := strings.Join(strings.Fields(string(data)), " ")
		for _, s := range r.says {
			if !strings.Contains(text, s) {
				t.Errorf("row %d: %s does not say %q", n, r.file, s)
			}
		}
		for _, s := range r.lacks {
			if strings.Contains(text, s) {
				t.Errorf("row %d: %s still says %q", n, r.file, s)
			}
		}
	}
}
