package skills

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"text/template"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// The generator of the Claude Code files: .claude/skills/<skill>/SKILL.md
// for each skill of the registry and .claude/agents/agent-<role>.md for
// each role that uses them. Everything they say about a skill comes from
// the registry, its row of model.Table and the catalog, so the files cannot
// drift from the CLI; a test fails when the committed files are stale.

//go:embed templates/*.tmpl
var templateFS embed.FS

// File is one generated file: its slash-separated path under the output
// directory, and its content.
type File struct {
	Path string
	Data []byte
}

// Agent Skills rules for front matter: a name of 1-64 characters of a-z,
// 0-9 and hyphens, not starting or ending with a hyphen; a description of
// 1-1024 characters.
var nameRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$`) })

// MaxDescription is the longest description the Agent Skills rules allow.
const MaxDescription = 1024

// CheckFrontMatter reports whether name and description follow the Agent
// Skills rules.
func CheckFrontMatter(name, description string) error {
	if !nameRe().MatchString(name) {
		return fmt.Errorf("name %q must be 1-64 characters of a-z, 0-9 and hyphens, not starting or ending with a hyphen", name)
	}
	if n := len([]rune(description)); n < 1 || n > MaxDescription {
		return fmt.Errorf("description of %s has %d characters; it needs 1-%d", name, n, MaxDescription)
	}
	return nil
}

// ClaudeFiles returns every generated file: the skills, in registry order,
// the agents, in role order, the debate files (AllDebateDocs), and AGENTS.md.
func ClaudeFiles() ([]File, error) {
	entries, err := Catalog()
	if err != nil {
		return nil, err
	}
	var files []File
	for i, e := range entries {
		data, err := skillFile(Registry[i], e)
		if err != nil {
			return nil, fmt.Errorf("generate %s: %w", e.Name, err)
		}
		files = append(files, File{".claude/skills/" + e.Name + "/SKILL.md", data})
	}
	for _, r := range Roles() {
		data, err := agentFile(r, entries)
		if err != nil {
			return nil, fmt.Errorf("generate agent-%s: %w", r, err)
		}
		files = append(files, File{".claude/agents/agent-" + string(r) + ".md", data})
	}
	for _, doc := range AllDebateDocs() {
		data, err := debateFile(doc, doc.Protocol)
		if err != nil {
			return nil, fmt.Errorf("generate %s: %w", doc.Path, err)
		}
		files = append(files, File{doc.Path, data})
	}
	data, err := agentsMDFile(entries)
	if err != nil {
		return nil, fmt.Errorf("generate %s: %w", AgentsMDPath, err)
	}
	return append(files, File{AgentsMDPath, data}), nil
}

// WriteReport says what WriteClaude did, by path under its directory.
type WriteReport struct {
	Written []string // generated files written
	Kept    []string // an AGENTS.md that gen-claude did not write, left alone
	// Settings is the settings file; SettingsChanged says whether
	// proofloop's entries had to be added to it.
	Settings        string
	SettingsChanged bool
}

// WriteClaude writes the generated files under dir, merges proofloop's
// permissions and hook into dir/.claude/settings.json (MergeSettings). It
// leaves any other file under dir/.claude alone, and an AGENTS.md that does
// not start with AgentsMDMarker. A settings file it cannot merge into is
// reported before anything is written.
func WriteClaude(dir string) (*WriteReport, error) {
	files, err := ClaudeFiles()
	if err != nil {
		return nil, err
	}
	rep := &WriteReport{Settings: filepath.Join(dir, filepath.FromSlash(SettingsPath))}
	old, err := os.ReadFile(rep.Settings)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	settings, changed, err := MergeSettings(old)
	if err != nil {
		return nil, store.Errorf(store.CodeInvalidInput, "cannot add proofloop's entries to %s", rep.Settings).Wrap(err).
			WithHint("fix the file by hand (it must be a JSON object) and run gen-claude again")
	}
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if f.Path == AgentsMDPath {
			if b, err := os.ReadFile(p); err == nil && !bytes.HasPrefix(b, []byte(AgentsMDMarker)) {
				rep.Kept = append(rep.Kept, p)
				continue
			}
		}
		if err := writeFile(p, f.Data); err != nil {
			return nil, err
		}
		rep.Written = append(rep.Written, p)
	}
	if changed {
		if err := writeFile(rep.Settings, settings); err != nil {
			return nil, err
		}
		rep.SettingsChanged = true
	}
	return rep, nil
}

func writeFile(p string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o644)
}

var funcs = template.FuncMap{
	"yaml":         yamlString,
	"cell":         cell,
	"exit":         func(c store.Code) int { return ExitOf(c) },
	"join":         strings.Join,
	"tool":         ToolName,
	"mcpLoopTools": func() []string { return MCPLoopTools },
	"flag":         func(name string) string { return "--" + FlagName(name) },
	"agent":        func(r model.Role) string { return "agent-" + string(r) },
	"typeOf":       typeOf,
	"accepts":      accepts,
	"meaning":      func(param, value string) string { return ValueMeanings[param][value] },
	"enumOf":       enumOf,
	"statuses":     statuses,
	"leaves":       leaves,
	"compact": func(s string) (string, error) {
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			return "", err
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		err := enc.Encode(v)
		return strings.TrimSpace(b.String()), err
	},
}

// shortPurpose is a skill's description in its front matter, which Claude
// Code lists in every session: its purpose up to the first "; " or " (",
// as one sentence. The file's body has the whole purpose.
func shortPurpose(purpose string) string {
	s := strings.TrimSuffix(purpose, ".")
	for _, cut := range []string{"; ", " ("} {
		if i := strings.Index(s, cut); i > 0 {
			s = s[:i]
		}
	}
	return s + "."
}

// EnumExplainedIn names, for an enum parameter several skills share, the
// one agent file whose discipline explains its values: the skill files
// list the values and point there, so the text lives once.
var EnumExplainedIn = map[string]string{"error_type": "agent-check"}

// skillData is what the SKILL.md template sees.
type skillData struct {
	Entry
	Own []Refusal // the skill's own refusals; prime lists the common ones
	// ExplainedIn names the agent file that explains an enum parameter's
	// values once, for the parameters that have one (EnumExplainedIn).
	ExplainedIn   map[string]string
	Description   string
	RawExample    string // the arguments after the skill name
	ExampleAfter  []string
	Setup         []string // the command lines that set the example up
	ExampleOutput string
}

// ExampleActor is the actor a role's example runs as, in a chain and on its
// own, so that a proof's author is never its checker and a checker's own
// issue is its own.
func ExampleActor(r model.Role) string { return exampleActors[r] }

// exampleActors name the actor a role's step of an example chain runs as,
// so that a proof's author is never its checker.
var exampleActors = map[model.Role]string{model.RoleSolve: "solver", model.RoleProve: "prover",
	model.RoleCheck: "checker", model.RoleFix: "fixer"}

// ExampleSetup returns the command lines that set up, in an empty folder,
// what the skill's example acts on: a contents root, the example problem,
// then the examples of its chain, each as an actor of its role.
func ExampleSetup(sk *Skill) ([]string, error) {
	chain, err := ExampleChain(sk)
	if err != nil {
		return nil, err
	}
	lines := []string{"proofloop init", "proofloop " + ExampleProblem}
	for _, c := range chain {
		actor := exampleActors[c.roles()[0]]
		if actor == "" {
			return nil, fmt.Errorf("no example actor for role %s", c.roles()[0])
		}
		lines = append(lines, "proofloop "+c.Name+" "+c.Example+" --actor "+actor)
	}
	return lines, nil
}

// EnumLines says what each allowed value of an enum parameter means, one
// "`value`: meaning" line each; none when the parameter's help already
// explains every value ("critical (the step is wrong) or gap (...)").
func (d skillData) EnumLines(p ParamEntry) []string {
	if d.ExplainedIn[p.Name] != "" {
		return nil
	}
	explained := len(p.Enum) > 0
	for _, v := range p.Enum {
		explained = explained && strings.Contains(p.Help, v+" (")
	}
	if explained {
		return nil
	}
	out := make([]string, len(p.Enum))
	for i, v := range p.Enum {
		out[i] = "`" + v + "`: " + ValueMeanings[p.Name][v]
	}
	return out
}

func skillFile(sk *Skill, e Entry) ([]byte, error) {
	d := skillData{Entry: e, Own: sk.Refusals, ExplainedIn: EnumExplainedIn, Description: shortPurpose(sk.Purpose), RawExample: sk.Example,
		ExampleOutput: sk.ExampleOutput}
	if err := CheckFrontMatter(e.Name, d.Description); err != nil {
		return nil, err
	}
	chain, err := ExampleChain(sk)
	if err != nil {
		return nil, err
	}
	for _, c := range chain {
		d.ExampleAfter = append(d.ExampleAfter, c.Name)
	}
	if d.Setup, err = ExampleSetup(sk); err != nil {
		return nil, err
	}
	if strings.TrimSpace(sk.ExampleOutput) == "" {
		return nil, fmt.Errorf("the registry has no ExampleOutput for %s", sk.Name)
	}
	return execute(template.New("").Funcs(funcs).ParseFS(templateFS, "templates/skill.md.tmpl"))("skill.md.tmpl", d)
}

// agentData is what an agent template sees.
type agentData struct {
	Role        model.Role
	Name        string
	Description string
	Skills      []Entry
	Common      []Refusal
	Codes       []ErrorCode
}

func agentFile(r model.Role, entries []Entry) ([]byte, error) {
	d := agentData{Role: r, Name: "agent-" + string(r), Common: CommonRefusals, Codes: ExitCodes}
	for _, e := range entries {
		for _, er := range e.Roles {
			if er == r {
				d.Skills = append(d.Skills, e)
			}
		}
	}
	file := "agent-" + string(r) + ".md.tmpl"
	run := execute(template.New("").Funcs(funcs).ParseFS(templateFS, "templates/common.tmpl", "templates/"+file))
	desc, err := run("description", d)
	if err != nil {
		return nil, fmt.Errorf("no template %s with a description for role %s: %w", file, r, err)
	}
	d.Description = strings.TrimSpace(string(desc))
	if err := CheckFrontMatter(d.Name, d.Description); err != nil {
		return nil, err
	}
	return run(file, d)
}

// execute returns a function that runs one template of a parsed set.
func execute(t *template.Template, err error) func(name string, data any) ([]byte, error) {
	return func(name string, data any) ([]byte, error) {
		if err != nil {
			return nil, err
		}
		var b bytes.Buffer
		if err := t.ExecuteTemplate(&b, name, data); err != nil {
			return nil, err
		}
		return tidy(b.Bytes()), nil
	}
}

var blankRuns = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\n{3,}`) })

// tidy trims trailing blanks, collapses runs of blank lines that template
// conditionals leave, and ends the file with one newline.
func tidy(b []byte) []byte {
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	s := blankRuns().ReplaceAllString(strings.Join(lines, "\n"), "\n\n")
	return []byte(strings.TrimSpace(s) + "\n")
}

// yamlString quotes s as a YAML double-quoted scalar (a JSON string is
// one), so no colon or hash in a description can change its meaning.
func yamlString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSpace(b.String())
}

// cell makes s safe inside a Markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
}

// typeOf names a parameter type for a reader.
func typeOf(p ParamEntry) string {
	switch p.Type {
	case TypeRef:
		return "id"
	case TypeText:
		return "text"
	case TypeTexts:
		return "list of texts"
	case TypeInt:
		return "integer"
	case TypeInts:
		return "list of integers"
	case TypeEnum:
		return "enum"
	case TypeRange:
		return "sentence range"
	case TypeSubs:
		return "JSON array"
	}
	return string(p.Type)
}

// accepts says which values a parameter takes, flag and JSON forms.
func accepts(p ParamEntry) string {
	switch p.Type {
	case TypeRef:
		return "a bare id, or the path of its JSON file inside the root"
	case TypeText:
		if p.Required {
			return "non-empty text; `@FILE` reads a file, `@-` standard input"
		}
		return "text; `@FILE` reads a file, `@-` standard input"
	case TypeTexts:
		return "repeat the flag once per item (none: leave it out); a JSON array of strings in `--input`"
	case TypeInt:
		return "a positive integer"
	case TypeInts:
		return "repeat the flag, or `1,3`; a JSON array of integers (or one integer) in `--input`"
	case TypeEnum:
		vals := make([]string, len(p.Enum))
		for i, v := range p.Enum {
			vals[i] = "`" + v + "`"
		}
		return "one of " + strings.Join(vals, ", ")
	case TypeRange:
		return "`3-5` or `4`; in `--input` also `{\"start\": 3, \"end\": 5}`"
	case TypeSubs:
		return "`[{\"claim\": TEXT, \"premises\": [TEXT, ...]}, ...]`, at least one; `@FILE` reads it from a file, `@-` standard input"
	}
	return ""
}

// enumOf returns the allowed values of the enum parameter called name, from
// the first skill that has one.
func enumOf(name string) ([]string, error) {
	for _, sk := range Registry {
		if p := sk.param(name); p != nil && len(p.Enum) > 0 {
			return p.Enum, nil
		}
	}
	return nil, fmt.Errorf("no skill has an enum parameter %s", name)
}

// statuses lists statuses for a reader: `a`, `b` or `c`.
func statuses(ss []model.Status) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = "`" + string(s) + "`"
	}
	if len(out) < 2 {
		return strings.Join(out, "")
	}
	return strings.Join(out[:len(out)-1], ", ") + " or " + out[len(out)-1]
}

// leaves marks the status names in a rule's Leaves text as code.
func leaves(text string, k model.Kind) string {
	words := strings.Split(text, " ")
	for i, w := range words {
		core := strings.TrimRight(w, ",.;:")
		if slices.Contains(model.Statuses(k), model.Status(core)) {
			words[i] = "`" + core + "`" + w[len(core):]
		}
	}
	return strings.Join(words, " ")
}
