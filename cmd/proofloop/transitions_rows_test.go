package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/proofloop/proofloop/model"
)

// TestTransitionsRowPerRule: every form of `proofloop transitions` has one
// row (or block) per rule of model.Table, whatever the table holds, so the
// stories need not count the rows and a new rule needs no edit here.
func TestTransitionsRowPerRule(t *testing.T) {
	for _, form := range []struct {
		name string
		args []string
		line func(skill string) *regexp.Regexp
	}{
		{"--wide", []string{"transitions", "--wide"}, func(s string) *regexp.Regexp { return regexp.MustCompile(`(?m)^` + s + ` `) }},
		{"80 columns", []string{"transitions"}, func(s string) *regexp.Regexp { return regexp.MustCompile(`(?m)^` + s + ` \(`) }},
	} {
		code, out, errOut := runCLI(t, "", form.args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", form.name, code, errOut)
		}
		rows := 0
		perSkill := map[string]int{} // decide has a row per kind
		for _, r := range model.Table {
			perSkill[r.Skill]++
		}
		for _, r := range model.Table {
			if n := len(form.line(regexp.QuoteMeta(r.Skill)).FindAllString(out, -1)); n != perSkill[r.Skill] {
				t.Errorf("transitions %s: %d rows for %s; want %d", form.name, n, r.Skill, perSkill[r.Skill])
			}
			rows++
		}
		if got := len(regexp.MustCompile(`(?m)^[a-z]+(-[a-z]+)* [( ]`).FindAllString(strings.Split(out, "\n\n")[0], -1)); form.name == "--wide" && got != rows {
			t.Errorf("transitions --wide: %d rows; want %d, one per rule", got, rows)
		}
	}
	code, out, _ := runCLI(t, "", "transitions", "--json")
	var js struct {
		Transitions []struct{ Skill string } `json:"transitions"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &js) != nil || len(js.Transitions) != len(model.Table) {
		t.Fatalf("transitions --json: exit %d, %d rows; want %d", code, len(js.Transitions), len(model.Table))
	}
}
