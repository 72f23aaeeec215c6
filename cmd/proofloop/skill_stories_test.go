package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
)

// TestSkillStoriesWalkTheirGuards: a skill that brings its own row of the
// transition table (skills.Skill.Transition) has its story,
// testdata/script/skill_<name>.txtar, which TestScript and
// TestScriptPostgres run on both stores, and the story meets each guard of
// the row: `jsonerr guard_failed` (or a refusal) with the guard's name on
// the same line, e.g. `jsonerr guard_failed own_issue`. So adding a skill
// adds its story, and the story cannot skip a refusal.
func TestSkillStoriesWalkTheirGuards(t *testing.T) {
	for _, sk := range skills.Registry {
		// The formal track's rows are model's (transitions_formal.go), one
		// set with its priorities: they are walked as a skill's own row is.
		if sk.Transition == nil && !slices.Contains(model.FormalSkills(), sk.Name) {
			continue
		}
		name := "skill_" + strings.ReplaceAll(sk.Name, "-", "_") + ".txtar"
		data, err := os.ReadFile(filepath.Join("testdata", "script", name))
		if err != nil {
			t.Errorf("%s brings its own transition row but has no story: %v", sk.Name, err)
			continue
		}
		for _, g := range sk.Rule().Guards {
			if !regexp.MustCompile(`(?m)^.*guard_failed.*\b` + regexp.QuoteMeta(g.Name) + `\b`).Match(data) {
				t.Errorf("%s: the story does not refuse a call by guard %s (a line with guard_failed and %s)", name, g.Name, g.Name)
			}
		}
	}
}
