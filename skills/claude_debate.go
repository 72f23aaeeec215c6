package skills

import (
	"fmt"
	"slices"
	"strings"
	"text/template"

	"github.com/proofloop/proofloop/model"
)

// The debate files of gen-claude: a skill or a participant agent per debate
// protocol, rendered from the protocol value in model.Protocols that the
// engine runs (its Doc, roles, limit and outcomes), so a change to a
// protocol changes the files and the sync test fails until they are
// regenerated. The turn format and commands are `prime --role R`'s
// (DebateCommands), and the worked example `debate example P`'s
// (DebateExampleText): said once, not in every file an agent loads.

// DebateDoc is one generated debate file: a protocol's Doc, with its
// protocol.
type DebateDoc struct {
	model.Doc
	Protocol *model.Protocol
}

// DebateExample is a worked example (model.Example).
type DebateExample = model.Example

// DebateCommand is one command a debate role runs, with what it does.
type DebateCommand = model.Command

// DebateDocs are the debate files, one per protocol, in protocol order:
// each protocol carries its own (model.Protocol.Doc).
var DebateDocs = debateDocs()

func debateDocs() []DebateDoc {
	out := make([]DebateDoc, len(model.Protocols))
	for i, p := range model.Protocols {
		out[i] = DebateDoc{p.Doc, p}
	}
	return out
}

// DebateRoleDocs are the files of one debate role each (a protocol's
// RoleDocs), in protocol order.
var DebateRoleDocs = debateRoleDocs()

func debateRoleDocs() []DebateDoc {
	var out []DebateDoc
	for _, p := range model.Protocols {
		for _, d := range p.RoleDocs {
			out = append(out, DebateDoc{d, p})
		}
	}
	return out
}

// AllDebateDocs are every generated debate file: the protocols' and the
// roles'.
func AllDebateDocs() []DebateDoc {
	return append(slices.Clone(DebateDocs), DebateRoleDocs...)
}

// DebateDocOf returns the generated file of protocol name.
func DebateDocOf(name string) *DebateDoc {
	for i := range DebateDocs {
		if DebateDocs[i].Protocol.Name == name {
			return &DebateDocs[i]
		}
	}
	return nil
}

// ListLine is what `proofloop debate list` prints for the example's debate
// at its end.
func ListLine(e model.Example, p *model.Protocol) string {
	return fmt.Sprintf("%s  %s  %s  %s", e.ID, p.Name, p.ClosedStatus(e.Outcome), e.Outcome)
}

// DebateCommands lists the commands role runs in a debate of p, in the
// order of a session: the generated files and `proofloop prime` print the
// same list.
func DebateCommands(p *model.Protocol, role string) []DebateCommand {
	var out []DebateCommand
	add := func(run, what string) { out = append(out, DebateCommand{Run: run, What: what}) }
	if len(p.Roles) > 0 && role == p.Roles[0] {
		add(startLine(p), "start a debate; prints its id (deb_<topic>) and transcript path")
	}
	add("proofloop debate join ID --participant-name NAME", "take the next role the debate needs; prints your participant_id (p1, p2, ...); the same name resumes")
	add("proofloop debate wait ID --participant-id P --timeout 5m", "block until it is your turn or the debate is closed; exit 5 `timeout` when the time runs out")
	if p.TurnCommands != nil {
		out = append(out, p.TurnCommands[role]...)
	} else {
		add("proofloop debate turn ID --participant-id P --input -", "write your turn: one JSON object of the protocol's turn fields, on standard input")
	}
	add("proofloop debate show ID --transcript", "read every turn so far (without --transcript: whose turn, the outcome)")
	out = append(out, p.MoreCommands[role]...)
	if p.Timeout != "" {
		add("proofloop claim ID --for-timeout --holder NAME", "the peer never joined: lease the debate, re-checking that")
		add("proofloop debate close ID --outcome "+p.Timeout+" --lease TOKEN", "then close it as "+p.Timeout+" with that lease")
	}
	return out
}

// startLine is the start command of p with its protocol's own flags.
func startLine(p *model.Protocol) string {
	s := "proofloop debate start --protocol " + p.Name + " --topic TEXT"
	if p.StartFlags != "" {
		s += " " + p.StartFlags
	}
	return s
}

// debateData is what a debate template sees.
type debateData struct {
	DebateDoc
	P           *model.Protocol
	Description string
	Guide       string
	Tools       string
	Outcomes    []outcomeRow
	Limit       string
	Script      string // the example's command lines
	ListLine    string
}

// outcomeRow is a row of a debate file's outcome table: outcomes in a row
// share one rule (dialectic's three conclusions), said once.
type outcomeRow struct {
	Outcomes []string
	Rule     string
}

// outcomeRows groups consecutive outcomes whose rule is the same.
func outcomeRows(docs []model.OutcomeDoc) []outcomeRow {
	var out []outcomeRow
	for _, d := range docs {
		if n := len(out); n > 0 && d.Rule != "" && out[n-1].Rule == d.Rule {
			out[n-1].Outcomes = append(out[n-1].Outcomes, d.Outcome)
			continue
		}
		out = append(out, outcomeRow{[]string{d.Outcome}, d.Rule})
	}
	return out
}

var debateFuncs = template.FuncMap{
	"codes": func(ss []string) string {
		out := make([]string, len(ss))
		for i, s := range ss {
			out[i] = "`" + s + "`"
		}
		return strings.Join(out, ", ")
	},
	"uniq": func(ss []string) []string { return slices.Compact(slices.Clone(ss)) },
	"article": func(word string) string {
		if strings.ContainsRune("aeiou", rune(word[0])) {
			return "an"
		}
		return "a"
	},
}

// debateTemplate runs the named block of the debate templates for doc and
// protocol p (doc.Protocol in the committed files; a test passes a changed
// copy).
func debateTemplate(name string, doc DebateDoc, p *model.Protocol) ([]byte, error) {
	d := debateData{DebateDoc: doc, P: p, Description: doc.Description, Guide: strings.TrimSpace(doc.Guide),
		Outcomes: outcomeRows(p.OutcomeDocs()), Limit: p.LimitText(), Script: exampleScript(doc.Example), ListLine: ListLine(doc.Example, p)}
	if doc.Agent {
		d.Tools = AgentTools(nil)
	}
	if err := CheckFrontMatter(doc.Name, d.Description); err != nil {
		return nil, err
	}
	t := template.New("").Funcs(funcs).Funcs(debateFuncs)
	return execute(t.ParseFS(templateFS, "templates/debate-common.tmpl"))(name, d)
}

// debateFile renders doc's generated file for protocol p.
func debateFile(doc DebateDoc, p *model.Protocol) ([]byte, error) {
	return debateTemplate("debate-file", doc, p)
}

// DebateExampleText is the worked example of protocol p as `proofloop
// debate example P` prints it: Markdown with one sh block to run on a
// scratch root and the text the last command prints.
func DebateExampleText(p *model.Protocol) ([]byte, error) {
	return debateTemplate("debate-example", DebateDoc{p.Doc, p}, p)
}

// exampleScript renders the example's steps as shell lines.
func exampleScript(e model.Example) string {
	var b strings.Builder
	for _, s := range e.Steps {
		if s.Note != "" {
			b.WriteString("# " + s.Note + "\n")
		}
		b.WriteString("proofloop " + s.Args)
		if s.Input != "" {
			b.WriteString(" <<'EOF'\n" + s.Input + "\nEOF")
		}
		b.WriteString("\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}
