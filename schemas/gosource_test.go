package schemas_test

import (
	"errors"
	"flag"
	"fmt"
	"go/format"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/schemas"
	"github.com/proofloop/proofloop/store"
)

// The enums and the fields that the schemas and the Go code share have one
// source, the Go code: TestSchemaEnumsFollowGo fails when a schema's enum
// differs from its Go list, and `go test ./schemas -run TestSchemaEnums
// -update` rewrites the schema's enum from Go (in place, its layout kept),
// and compiled.go from the schemas, as go generate ./schemas does.
// TestSchemaFieldsFollowGo fails when a Go type and the schema object it is
// written as name different fields. TestEveryEnumHasAGoSource fails on an
// enum of a schema that enumSources does not list, so the list guards
// itself; the debate schema's one hand-written conditional has
// TestSchemaPositionsRuleFollowsGo.
var update = flag.Bool("update", false, "rewrite the schemas' enums from their Go sources")

// enumSource is one enum of a schema and the Go list it comes from.
type enumSource struct {
	schema   schemas.Kind
	path     string // gjson path of the enum array
	values   []string
	nullable bool // the enum ends with null
}

func strs[T ~string](vs ...[]T) []string {
	var out []string
	for _, v := range vs {
		for _, s := range v {
			if !slices.Contains(out, string(s)) {
				out = append(out, string(s))
			}
		}
	}
	return out
}

// outcomes is every protocol's stored outcomes, in protocol order.
func outcomes() []string {
	var out []string
	for _, p := range model.Protocols {
		out = strs(out, p.Outcomes)
	}
	return out
}

// fieldEnum is the values a turn field takes in any protocol, in protocol
// order: a protocol that gives the field values of its own adds them.
func fieldEnum(name string) []string {
	var out []string
	for _, p := range model.Protocols {
		for _, f := range p.Fields {
			if f.Name == name {
				out = strs(out, f.Enum)
			}
		}
	}
	return out
}

func protocolNames() []string {
	var out []string
	for _, p := range model.Protocols {
		out = append(out, p.Name)
	}
	return out
}

func enumSources() []enumSource {
	everyStatus := strs(model.ProblemStatuses, model.StatementStatuses, model.DebateStatuses)
	return []enumSource{
		{schemas.Problem, "properties.status.enum", strs(model.ProblemStatuses), false},
		{schemas.Statement, "definitions.statement_status.enum", strs(model.StatementStatuses), false},
		{schemas.Statement, "properties.proof_strategy.enum", model.Strategies, true},
		{schemas.Statement, "properties.modification_history.items.properties.decision.enum", model.Decisions, false},
		{schemas.Statement, "definitions.source.enum", model.Sources, false},
		{schemas.Statement, "definitions.proposal_source.enum", model.ProposalSources, false},
		{schemas.Statement, "properties.level.enum", model.LevelNames(), false},
		{schemas.Statement, "definitions.dead_end.properties.level.enum", model.LevelNames(), false},
		{schemas.Statement, "definitions.dead_end.properties.cause.enum", model.DeadEndCauses, false},
		{schemas.Statement, "definitions.review.properties.verdict.enum", model.ReviewVerdicts, false},
		{schemas.Config, "properties.escalation.items.properties.level.enum", model.LevelNames(), false},
		{schemas.Statement, "definitions.modification_type.enum", model.ModificationTypes, false},
		{schemas.Statement, "definitions.issue.properties.error_type.enum", model.ErrorTypes, false},
		{schemas.Statement, "definitions.issue.properties.severity.enum", model.Severities, false},
		{schemas.Statement, "definitions.response.properties.type.enum", model.ResponseTypes, false},
		{schemas.ProofRevision, "properties.strategy.enum", model.Strategies, true},
		{schemas.ProofRevision, "properties.cause.enum", model.Causes, false},
		{schemas.Event, "definitions.change.properties.kind.enum", strs(model.Kinds), false},
		{schemas.Event, "definitions.change.properties.before.enum", everyStatus, true},
		{schemas.Event, "definitions.change.properties.after.enum", everyStatus, false},
		{schemas.Debate, "properties.status.enum", strs(model.DebateStatuses), false},
		{schemas.Debate, "properties.protocol.enum", protocolNames(), false},
		{schemas.Debate, "properties.methodology.enum", model.Methodologies, false},
		{schemas.Debate, "properties.outcome.properties.outcome.enum", outcomes(), false},
		{schemas.Debate, "definitions.turn.properties.stance.enum", model.Stances, false},
		{schemas.Debate, "definitions.turn.properties.verdict.enum", model.Verdicts, false},
		{schemas.Debate, "definitions.turn.properties.replies.items.properties.verdict.enum", model.ReplyVerdicts, false},
		{schemas.Debate, "definitions.turn.properties.signal.enum", model.Signals, false},
		{schemas.Debate, "definitions.turn.properties.conclusion.properties.outcome.enum", fieldEnum("conclusion"), false},
		{schemas.Debate, "definitions.turn.properties.conclusion.properties.positions.items.properties.role.enum", model.Sides, false},
		{schemas.Debate, "definitions.suggestion.properties.state.enum", model.SuggestionStates, false},
		{schemas.Config, "properties.verify_distinct.enum", store.VerifyDistincts, false},
		{schemas.Config, "properties.formal.properties.policy.enum", strs(store.FormalPolicyValues), false},
		{schemas.Statement, "properties.formal.properties.stage.enum", strs(model.FormalStages), false},
		{schemas.Statement, "definitions.issue.properties.target.enum", model.IssueTargets, false},
		{schemas.EvalItem, "properties.strategy.enum", model.Strategies, false},
		{schemas.EvalItem, "properties.label.enum", model.EvalLabels, false},
		{schemas.CheckerRecord, "properties.source.enum", model.RecordSources, false},
		{schemas.CheckerRecord, "properties.role.enum", strs([]model.Role{model.RoleCheck, model.RoleProve}), false},
		{schemas.CheckerRecord, "properties.canary.properties.label.enum", model.EvalLabels, false},
		{schemas.CheckerRecord, "properties.canary.properties.verdict.enum", model.ItemVerdicts, false},
	}
}

func TestSchemaEnumsFollowGo(t *testing.T) {
	files := map[schemas.Kind][]byte{}
	for _, e := range enumSources() {
		data, ok := files[e.schema]
		if !ok {
			var err error
			if data, err = os.ReadFile(e.schema.FileName()); err != nil {
				t.Fatal(err)
			}
		}
		res := gjson.GetBytes(data, e.path)
		if !res.IsArray() {
			t.Errorf("%s has no enum at %s", e.schema.FileName(), e.path)
			continue
		}
		var got []string
		null := false
		for _, v := range res.Array() {
			if v.Type == gjson.Null {
				null = true
				continue
			}
			got = append(got, v.String())
		}
		if slices.Equal(got, e.values) && null == e.nullable {
			continue
		}
		if !*update {
			t.Errorf("%s %s = %v (null %v); want the Go source's %v (null %v): run go test ./schemas -run TestSchemaEnums -update", e.schema.FileName(), e.path, got, null, e.values, e.nullable)
			continue
		}
		files[e.schema] = slices.Concat(data[:res.Index], []byte(enumJSON(res.Raw, e.values, e.nullable)), data[res.Index+len(res.Raw):])
	}
	for k, data := range files {
		if err := os.WriteFile(k.FileName(), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if len(files) > 0 { // and what go generate ./schemas writes from them
		generated, err := schemas.GeneratedFiles(".", format.Source)
		for name, src := range generated {
			if err == nil {
				err = os.WriteFile(name, src, 0o644)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestEveryEnumHasAGoSource walks every "enum" of every schema and fails on
// one that enumSources does not list: an enum written into a schema by hand
// would otherwise have no Go source and no test.
func TestEveryEnumHasAGoSource(t *testing.T) {
	listed := map[string]bool{}
	for _, e := range enumSources() {
		listed[e.schema.FileName()+" "+e.path] = true
	}
	found := 0
	for _, k := range schemas.Kinds() {
		data, err := os.ReadFile(k.FileName())
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range enumPaths(gjson.ParseBytes(data), "") {
			found++
			if !listed[k.FileName()+" "+path] {
				t.Errorf("%s has an enum at %s that no Go source gives: add it to enumSources", k.FileName(), path)
			}
		}
	}
	if found < len(listed) {
		t.Errorf("found %d enums in the schemas; enumSources lists %d", found, len(listed))
	}
}

// enumPaths lists the gjson paths of the enum arrays under v.
func enumPaths(v gjson.Result, at string) []string {
	var out []string
	join := func(k string) string {
		k = strings.NewReplacer(".", `\.`, "*", `\*`, "?", `\?`).Replace(k)
		if at == "" {
			return k
		}
		return at + "." + k
	}
	v.ForEach(func(k, child gjson.Result) bool {
		key := k.String()
		if v.IsArray() {
			key = fmt.Sprint(k.Int())
		}
		if key == "enum" && v.IsObject() && child.IsArray() {
			out = append(out, join(key))
		} else if child.IsObject() || child.IsArray() {
			out = append(out, enumPaths(child, join(key))...)
		}
		return true
	})
	return out
}

// TestSchemaPositionsRuleFollowsGo: debate.schema.json's one conditional,
// `if protocol const X then positions required, minItems N`, is written by
// hand, since it is a rule of X's start (model.Protocol.CheckStart), not a
// Go list a schema enum could be generated from. This test holds the two
// together: X is the one protocol whose start refuses too few positions,
// and N is the fewest its start takes.
func TestSchemaPositionsRuleFollowsGo(t *testing.T) {
	data, err := os.ReadFile(schemas.Debate.FileName())
	if err != nil {
		t.Fatal(err)
	}
	doc := gjson.ParseBytes(data)
	name := doc.Get("if.properties.protocol.const").String()
	minItems := int(doc.Get("then.properties.positions.minItems").Int())
	if !slices.ContainsFunc(doc.Get("then.required").Array(), func(r gjson.Result) bool { return r.String() == "positions" }) {
		t.Errorf("debate.schema.json then.required = %s; want positions", doc.Get("then.required").Raw)
	}
	for _, p := range model.Protocols {
		fewest := -1
		for n := range 6 {
			d := &model.Debate{Topic: "t", MaxTurns: 5}
			for i := range n {
				d.Positions = append(d.Positions, model.Position{Role: fmt.Sprintf("r%d", i), Text: "x"})
			}
			var te *model.TurnError
			if err := p.CheckStart(d); !errors.As(err, &te) || te.Field != "positions" {
				fewest = n
				break
			}
		}
		switch {
		case p.Name == name && fewest != minItems:
			t.Errorf("debate.schema.json: %s needs %d positions; its start takes %d", name, minItems, fewest)
		case p.Name != name && fewest != 0:
			t.Errorf("%s's start needs %d positions; debate.schema.json's conditional is %s's alone", p.Name, fewest, name)
		}
	}
	if _, err := model.LookupProtocol(name); err != nil {
		t.Errorf("debate.schema.json's conditional: %v", err)
	}
}

// enumJSON writes values as the array old was written: on one line, or one
// value a line with old's indentation.
func enumJSON(old string, values []string, nullable bool) string {
	items := make([]string, 0, len(values)+1)
	for _, v := range values {
		items = append(items, fmt.Sprintf("%q", v))
	}
	if nullable {
		items = append(items, "null")
	}
	lines := strings.Split(old, "\n")
	if len(lines) < 3 {
		return "[" + strings.Join(items, ", ") + "]"
	}
	indent := lines[1][:len(lines[1])-len(strings.TrimLeft(lines[1], " "))]
	closing := lines[len(lines)-1][:len(lines[len(lines)-1])-len(strings.TrimLeft(lines[len(lines)-1], " "))]
	return "[\n" + indent + strings.Join(items, ",\n"+indent) + "\n" + closing + "]"
}

// fieldSource is a schema object and the Go type written as it.
type fieldSource struct {
	schema schemas.Kind
	path   string // gjson path of the object schema ("" for the document)
	typ    any
	// schemaOnly are fields the schema allows and the Go type does not
	// write, each with why.
	schemaOnly map[string]string
}

func fieldSources() []fieldSource {
	return []fieldSource{
		{schemas.Problem, "", model.Problem{}, nil},
		{schemas.Statement, "", model.Statement{}, nil},
		{schemas.Statement, "properties.validate", model.Validate{}, nil},
		{schemas.Statement, "definitions.issue", model.Issue{}, nil},
		{schemas.Statement, "definitions.issue.properties.dispute", model.IssueDispute{}, nil},
		{schemas.Statement, "definitions.confirmation", model.Confirmation{}, nil},
		{schemas.Statement, "properties.proof_writers.items", model.ProofWriter{}, nil},
		{schemas.Statement, "definitions.response", model.Response{}, nil},
		{schemas.Statement, "definitions.response.properties.sentence_range", model.SentenceRange{}, nil},
		{schemas.Statement, "definitions.response.properties.proposal", model.ResponseProposal{}, nil},
		{schemas.Statement, "properties.refutation", model.Refutation{}, nil},
		{schemas.Statement, "properties.proposed_modification", model.Modification{}, nil},
		{schemas.Statement, "properties.modification_history.items", model.ModificationRecord{}, nil},
		{schemas.Debate, "", model.Debate{}, nil},
		{schemas.Debate, "definitions.participant", model.Participant{}, nil},
		{schemas.Debate, "definitions.turn", model.DebateTurn{}, nil},
		{schemas.Debate, "definitions.suggestion", model.Suggestion{}, nil},
		{schemas.Debate, "definitions.pool_item", model.PoolItem{}, nil},
		{schemas.Debate, "properties.outcome", model.DebateOutcome{}, nil},
		{schemas.ProofRevision, "", model.ProofRevision{}, nil},
		{schemas.Lease, "", store.Lease{}, nil},
		{schemas.Event, "", store.Event{}, nil},
		{schemas.Event, "definitions.change", store.Change{}, nil},
		{schemas.Config, "", store.Config{}, nil},
		{schemas.Config, "properties.formal", store.FormalConfig{}, nil},
		{schemas.Config, "definitions.checker.oneOf.1", store.Checker{}, nil},
		{schemas.Statement, "properties.formal", model.Formal{}, nil},
		{schemas.Statement, "properties.formal.properties.verdict", model.Verdict{}, nil},
		{schemas.Config, "properties.canaries", store.CanaryConfig{}, nil},
		{schemas.Config, "properties.verify_min_reliability", model.MinReliability{}, nil},
		{schemas.EvalItem, "", model.EvalItem{}, nil},
		{schemas.CheckerRecord, "", model.CheckerRecord{}, nil},
		{schemas.CheckerRecord, "properties.counts", model.Counts{}, nil},
		{schemas.CheckerRecord, "properties.canary", model.CanaryRecord{}, nil},
		// The journal's record is unexported: store's TestJournalFollowsSchema
		// compares it.
	}
}

// jsonFields lists the JSON names of a struct's fields, embedded structs'
// included.
func jsonFields(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			out = append(out, jsonFields(ft)...)
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, name)
	}
	return out
}

func TestSchemaFieldsFollowGo(t *testing.T) {
	for _, fs := range fieldSources() {
		data, err := os.ReadFile(fs.schema.FileName())
		if err != nil {
			t.Fatal(err)
		}
		obj := gjson.ParseBytes(data)
		if fs.path != "" {
			obj = obj.Get(fs.path)
		}
		var props []string
		obj.Get("properties").ForEach(func(k, _ gjson.Result) bool {
			props = append(props, k.String())
			return true
		})
		goFields := jsonFields(reflect.TypeOf(fs.typ))
		sort.Strings(props)
		sort.Strings(goFields)
		where := fs.schema.FileName() + " " + fs.path
		for _, p := range props {
			if !slices.Contains(goFields, p) && fs.schemaOnly[p] == "" {
				t.Errorf("%s allows %q; the Go type %T has no such field", where, p, fs.typ)
			}
		}
		for _, g := range goFields {
			if !slices.Contains(props, g) {
				t.Errorf("the Go type %T writes %q; %s does not allow it", fs.typ, g, where)
			}
		}
	}
}
