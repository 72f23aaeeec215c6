package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
	"github.com/proofloop/proofloop/store"
)

// TestSkillsCommandJSON checks `proofloop skills --json`: one object, every
// skill of the registry in its order, with its parameters, statuses and
// empty lists printed as [].
func TestSkillsCommandJSON(t *testing.T) {
	code, out, errOut := runCLI(t, "", "skills", "--json")
	if code != 0 {
		t.Fatalf("skills --json: exit %d, stderr %s", code, errOut)
	}
	if strings.Count(strings.TrimSpace(out), "\n") != 0 {
		t.Errorf("skills --json printed %d lines; want one JSON object", strings.Count(out, "\n"))
	}
	var res struct {
		OK      bool   `json:"ok"`
		Command string `json:"command"`
		Skills  []struct {
			Name    string   `json:"name"`
			Roles   []string `json:"roles"`
			Purpose string   `json:"purpose"`
			Params  []struct {
				Name, Flag, Type string
				Required         bool
				Enum             []string
			} `json:"parameters"`
			ActsOn []struct {
				Source   string   `json:"source"`
				Statuses []string `json:"statuses"`
			} `json:"acts_on"`
			Leaves string `json:"leaves"`
		} `json:"skills"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("skills --json: %v\n%s", err, out)
	}
	if !res.OK || res.Command != "skills" || len(res.Skills) != len(skills.Registry) {
		t.Fatalf("skills --json: ok %v, command %q, %d skills; want true, skills, %d", res.OK, res.Command, len(res.Skills), len(skills.Registry))
	}
	for i, sk := range skills.Registry {
		got := res.Skills[i]
		r := sk.Rule()
		if got.Name != sk.Name || got.Purpose != sk.Purpose || got.Leaves != r.Leaves || len(got.Roles) != len(r.Roles) {
			t.Errorf("skills[%d] = %s %q leaves %q roles %v; want %s %q leaves %q roles %v", i, got.Name, got.Purpose, got.Leaves, got.Roles, sk.Name, sk.Purpose, r.Leaves, r.Roles)
		}
		if len(got.Params) != len(sk.Params) {
			t.Errorf("%s: %d parameters; want %d", sk.Name, len(got.Params), len(sk.Params))
			continue
		}
		for j, p := range sk.Params {
			gp := got.Params[j]
			if gp.Name != p.Name || gp.Flag != "--"+skills.FlagName(p.Name) || gp.Type != string(p.Type) || gp.Required != p.Required || !slices.Equal(gp.Enum, p.Enum) {
				t.Errorf("%s parameter %d = %+v; want %s (%s) required %v enum %v", sk.Name, j, gp, p.Name, p.Type, p.Required, p.Enum)
			}
		}
		if len(got.ActsOn) != len(r.BySource()) {
			t.Errorf("%s acts on %v; want %v", sk.Name, got.ActsOn, r.BySource())
		}
	}
	// An empty list is [], never null (JSON output is an API). A rule's
	// text may say "null"; a value may not.
	if m := jsonNull.FindString(out); m != "" {
		t.Errorf("skills --json has a null value: ...%s...", m)
	}
}

// TestSkillsCommandText checks the plain catalog names every skill, its
// roles and every flag.
func TestSkillsCommandText(t *testing.T) {
	code, out, errOut := runCLI(t, "", "skills")
	if code != 0 {
		t.Fatalf("skills: exit %d, stderr %s", code, errOut)
	}
	for _, sk := range skills.Registry {
		if !strings.Contains(out, sk.Name+" ") {
			t.Errorf("skills does not list %s", sk.Name)
		}
		for _, p := range sk.Params {
			if !strings.Contains(out, "--"+skills.FlagName(p.Name)) {
				t.Errorf("skills does not show %s's flag --%s", sk.Name, skills.FlagName(p.Name))
			}
			for _, v := range p.Enum {
				if !strings.Contains(out, v) {
					t.Errorf("skills does not show %s's value %s", p.Name, v)
				}
			}
		}
	}
	if code, _, errOut := runCLI(t, "", "skills", "extra"); code != 2 {
		t.Errorf("skills extra: exit %d (%s); want 2", code, errOut)
	}
}

// TestGenClaudeCommandErrors checks that a directory that cannot be written
// is reported, not ignored.
func TestGenClaudeCommandErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "plain-file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCLI(t, "", "gen-claude", "--dir", file, "--json")
	if code == 0 || !strings.Contains(out, `"ok":false`) {
		t.Errorf("gen-claude --dir <a file>: exit %d, stdout %s; want a failure", code, out)
	}
}

// TestCatalogErrorCodesMatchCLI checks the exit codes the docs quote
// (skills.ExitCodes) against the CLI's one mapping of errors to exit codes.
func TestCatalogErrorCodesMatchCLI(t *testing.T) {
	for _, e := range skills.ExitCodes {
		code, exit := classify(&store.Error{Code: e.Code, Msg: "x"})
		if code != e.Code || exit != e.Exit {
			t.Errorf("classify(%s) = %s, exit %d; the docs say exit %d", e.Code, code, exit, e.Exit)
		}
	}
	for _, r := range skills.CommonRefusals {
		if skills.ExitOf(r.Code) == 1 && r.Code != store.CodeInternal {
			t.Errorf("common refusal %s has no exit code in skills.ExitCodes", r.Code)
		}
	}
}

// TestAgentsMDNamesEverySkill checks that AGENTS.md, written by hand,
// keeps up with the registry and the roles.
func TestSkillsAgentsMDNamesEverySkill(t *testing.T) {
	data, err := os.ReadFile("../../AGENTS.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, sk := range skills.Registry {
		if !strings.Contains(text, "`"+sk.Name+"`") {
			t.Errorf("AGENTS.md does not name the skill %s", sk.Name)
		}
	}
	for _, r := range skills.Roles() {
		if !strings.Contains(text, "agent-"+string(r)) {
			t.Errorf("AGENTS.md does not name agent-%s", r)
		}
	}
	for _, e := range skills.ExitCodes {
		if !strings.Contains(text, "`"+string(e.Code)+"`") {
			t.Errorf("AGENTS.md does not name the error code %s", e.Code)
		}
	}
}

// jsonNull finds a null value in compact JSON, with the key before it.
var jsonNull = regexp.MustCompile(`"[a-z_]*":null|[\[,]null`)

// TestSkillsCommandDebates checks the debates key of `skills --json`: every
// protocol of model.Protocols in order, each with the data the engine runs on (roles,
// limit, outcomes, every turn field with its roles, requiredness, values
// and rule) and its generated file; and the protocols' section of the
// plain output.
func TestSkillsCommandDebates(t *testing.T) {
	code, out, errOut := runCLI(t, "", "skills", "--json")
	if code != 0 {
		t.Fatalf("skills --json: exit %d, stderr %s", code, errOut)
	}
	type field struct {
		Name     string   `json:"name"`
		Type     string   `json:"type"`
		Roles    []string `json:"roles"`
		Required bool     `json:"required"`
		Enum     []string `json:"enum"`
		Rule     string   `json:"rule"`
	}
	var res struct {
		Skills  []json.RawMessage `json:"skills"`
		Debates []struct {
			Name    string   `json:"name"`
			Seed    string   `json:"seed"`
			Summary string   `json:"summary"`
			Roles   []string `json:"roles"`
			Limit   struct {
				N    int    `json:"n"`
				Unit string `json:"unit"`
				Soft bool   `json:"soft"`
			} `json:"limit"`
			Outcomes []string `json:"outcomes"`
			Fields   []field  `json:"fields"`
			File     string   `json:"file"`
		} `json:"debates"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("skills --json: %v", err)
	}
	if len(res.Skills) != len(skills.Registry) {
		t.Errorf("skills --json has %d skills; want %d (the skills key is unchanged)", len(res.Skills), len(skills.Registry))
	}
	var names []string
	for _, d := range res.Debates {
		names = append(names, d.Name)
	}
	if want := model.ProtocolNames(); !slices.Equal(names, want) {
		t.Fatalf("debates = %v; want %v", names, want)
	}
	for i, p := range model.Protocols {
		d := res.Debates[i]
		if d.Seed != p.Seed || d.Summary != p.Summary || d.Limit.N != p.Limit.N || d.Limit.Unit != p.Limit.Unit || d.Limit.Soft != p.Limit.Soft || !slices.Equal(d.Outcomes, p.Outcomes) {
			t.Errorf("debates[%d] = %s seed %q limit %+v outcomes %v; want seed %q limit %+v outcomes %v", i, d.Name, d.Seed, d.Limit, d.Outcomes, p.Seed, p.Limit, p.Outcomes)
		}
		if p.Roles != nil && !slices.Equal(d.Roles, p.Roles) {
			t.Errorf("%s roles = %v; want %v", d.Name, d.Roles, p.Roles)
		}
		if len(d.Roles) == 0 {
			t.Errorf("%s lists no roles", d.Name)
		}
		if want := skills.DebateDocOf(p.Name).Path; d.File != want {
			t.Errorf("%s file = %q; want %q", d.Name, d.File, want)
		}
		if len(d.Fields) != len(p.Fields) {
			t.Errorf("%s has %d fields; want %d", d.Name, len(d.Fields), len(p.Fields))
			continue
		}
		for j, f := range p.Fields {
			want := field{f.Name, f.Type, append([]string{}, f.Roles...), f.Required, append([]string{}, f.Enum...), f.Rule}
			if got := d.Fields[j]; !reflect.DeepEqual(got, want) {
				t.Errorf("%s field %d = %+v; want %+v", d.Name, j, got, want)
			}
		}
	}
	if m := jsonNull.FindString(out); m != "" {
		t.Errorf("skills --json has a null value: ...%s...", m)
	}

	code, text, _ := runCLI(t, "", "skills", "--wide")
	if code != 0 {
		t.Fatalf("skills --wide: exit %d", code)
	}
	_, section, ok := strings.Cut(text, "\nDebate protocols")
	if !ok {
		t.Fatalf("skills prints no debate protocols section:\n%s", text)
	}
	for _, p := range model.Protocols {
		if !regexp.MustCompile(`(?m)^  ` + p.Name + ` .* ` + regexp.QuoteMeta(skills.DebateDocOf(p.Name).Path) + `$`).MatchString(section) {
			t.Errorf("the debate protocols section has no line for %s with its file:\n%s", p.Name, section)
		}
	}
}
