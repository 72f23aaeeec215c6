//go:build !lean

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
	"github.com/proofloop/proofloop/store"
)

// mcpExposure is the one place that says which commands are MCP tools and
// how they behave. Every command of the cobra tree is a tool unless it is
// hidden here or is a group of subcommands (such as debate, whose bare form
// only prints help), so a command added later is served without an edit; a
// reader must be listed in readOnly to get the hint. Admin and host
// operations are never tools: an agent must not migrate, import, repair,
// configure, or end another's lease (release --force).
var mcpExposure = struct {
	hidden     map[string]string   // command path -> why it is not a tool
	readOnly   map[string]bool     // changes nothing in the store
	idempotent map[string]bool     // a repeat has no further effect
	noFlags    map[string][]string // flags a tool does not offer
}{
	hidden: map[string]string{
		"mcp":           "the server itself",
		"run":           "long-running: it starts agent processes",
		"init":          "creates a store; the server serves one that exists",
		"completion":    "shell completion scripts",
		"gen":           "writes the agent CLIs' files outside the store",
		"gen-claude":    "writes files outside the store",
		"help":          "cobra's help; the tools carry their descriptions",
		"version":       "the server reports its version at initialize",
		"doctor":        "repairs the store: a person's job, not an agent's",
		"config":        "settings belong to the person who runs the project",
		"guide":         "guidance to the agents is a person's word",
		"report":        "writes an HTML file outside the store; a person reads it",
		"serve":         "long-running: an HTTP server",
		"export":        "writes a new store outside this one; a backup is a person's job",
		"db":            "database migrations: the database owner's job",
		"import":        "reads a store from the server's disk into this one: a person's job",
		"example-agent": "runs a shell script: run starts agents, tools do not",
		"eval":          "measures agents on labelled sets: a person's measurement, never an agent's",
		"eval-agent":    "a scripted agent: run starts agents, tools do not",
	},
	readOnly: map[string]bool{
		"status": true, "show": true, "list": true, "events": true,
		"skills": true, "transitions": true, "prime": true,
		"history": true, "graph": true,
		"debate show": true, "debate list": true, "debate transcript": true, "debate wait": true, "debate example": true,
	},
	// release: a second release of the same lease changes nothing more.
	// refresh is not idempotent: each call moves the expiry from now.
	idempotent: map[string]bool{"release": true},
	noFlags: map[string][]string{
		"events":  {"follow"}, // a tool call returns; --follow never would
		"release": {"force"},  // ends another's lease: a person's or run's job
	},
}

// mcpTool is one tool and how to turn its arguments into a command line.
type mcpTool struct {
	tool       *mcp.Tool
	cmd        *cobra.Command
	path       []string // the command's path below the root
	skill      *skills.Skill
	flags      map[string]*pflag.Flag // snake_case parameter -> flag
	positional []positional
	mutating   bool
	// jsonInput is the command's --input FILE|-, which reads one JSON
	// object (a debate turn): over MCP the parameter input is that object
	// itself, sent to the command as --input - on its stdin. A skill's
	// --input is not one: its keys are the tool's own parameters.
	jsonInput *pflag.Flag
}

// paramInput is the parameter that carries a command's --input object.
const paramInput = "input"

// positional is an argument of the command's Use line, such as ID or ID...
type positional struct {
	name     string
	many     bool
	required bool
}

// Parameters every mutating tool takes besides its own, and the role a
// role's server pins.
const (
	paramActor = "actor"
	paramLease = "lease"
	paramRole  = "role"
)

// mcpTools walks the command tree and makes a tool of every exposed command
// that role's scope offers (mcpScope; every one without a role).
func mcpTools(root *cobra.Command, role model.Role) []*mcpTool {
	scope := mcpScope(role)
	var out []*mcpTool
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			name := commandName(sub)
			if _, hide := mcpExposure.hidden[name]; hide || sub.Hidden || name == "help" {
				continue
			}
			if sub.Runnable() && !sub.HasSubCommands() && (scope == nil || scope[skills.ToolName(name)]) {
				out = append(out, newMCPTool(sub))
			}
			walk(sub)
		}
	}
	walk(root)
	return out
}

func newMCPTool(c *cobra.Command) *mcpTool {
	name := commandName(c)
	t := &mcpTool{cmd: c, path: strings.Fields(name), flags: map[string]*pflag.Flag{}, mutating: !mcpExposure.readOnly[name]}
	props := map[string]any{}
	var required []string
	desc := c.Short
	if sk, ok := skills.Find(name); ok {
		t.skill = sk
		desc = sk.Purpose + " " + sk.When + " " + sk.WhenNot
		for _, p := range sk.Params {
			props[p.Name] = paramSchema(p)
			if p.Required {
				required = append(required, p.Name)
			}
		}
	} else {
		if c.Long != "" {
			// The first paragraph: every tool's text is in every turn's
			// context, and `proofloop CMD --help` has the rest.
			first, rest, more := strings.Cut(c.Long, "\n\n")
			desc = first
			if more && strings.TrimSpace(rest) != "" {
				desc += " (`proofloop " + c.CommandPath()[len(c.Root().Name())+1:] + " --help` says more.)"
			}
		}
		t.positional = usagePositionals(c.Use)
		for _, p := range t.positional {
			s := map[string]any{"type": "string", "description": "a document id, or a path inside the root"}
			if p.many {
				s = map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "minItems": 1,
					"description": "document ids, or paths inside the root"}
			}
			props[p.name] = s
			if p.required {
				required = append(required, p.name)
			}
		}
	}
	skip := mcpExposure.noFlags[name]
	c.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
		if f.Name == "help" || slices.Contains(skip, f.Name) {
			return
		}
		if f.Name == paramInput {
			if t.skill == nil {
				t.jsonInput = f
				props[paramInput] = map[string]any{"type": "object", "description": jsonInputText(f)}
			}
			return
		}
		if _, isParam := props[snake(f.Name)]; isParam {
			return // a skill parameter: the registry describes it
		}
		if t.skill != nil && f.Name != "expect-revision" {
			return
		}
		t.flags[snake(f.Name)] = f
		props[snake(f.Name)] = flagSchema(f)
	})
	if t.mutating {
		props[paramActor] = map[string]any{"type": "string", "description": "who is acting, recorded in the history (default: the server's --actor)"}
		props[paramLease] = map[string]any{"type": "string", "description": "the lease token from claim or next --claim, when the item is leased"}
	}
	schema := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		schema["required"] = required
	}
	no := false
	t.tool = &mcp.Tool{
		Name:        skills.ToolName(name), // snake_case: every client accepts it
		Description: literalText(desc),
		InputSchema: schema,
		Annotations: &mcp.ToolAnnotations{
			Title:           "proofloop " + name,
			ReadOnlyHint:    !t.mutating,
			DestructiveHint: &no, // every change is journaled and kept in the history
			IdempotentHint:  !t.mutating || mcpExposure.idempotent[name],
			OpenWorldHint:   &no,
		},
	}
	return t
}

// pathFlag reports whether a flag's value is a path on the server's disk:
// its usage names the value FILE, PATH or DIR (--source FILE, --artifact
// PATH), as --help shows it.
func pathFlag(f *pflag.Flag) bool {
	name, _ := pflag.UnquoteUsage(f)
	return slices.Contains([]string{"FILE", "PATH", "DIR"}, name)
}

func snake(flag string) string { return strings.ReplaceAll(flag, "-", "_") }

// usagePositionals reads the arguments from a Use line such as
// "claim ID --role R" or "show ID... [--sentences]": the upper-case words
// before the first flag. ID becomes "id", ID... "ids", [ID] and (ID | ...)
// optional.
func usagePositionals(use string) []positional {
	var out []positional
	for _, w := range strings.Fields(use)[1:] {
		if strings.HasPrefix(strings.TrimLeft(w, "["), "-") {
			break
		}
		// "(ID | --protocol P ...)" offers ID as one of several forms of the
		// call, so it is optional there.
		alt := strings.HasPrefix(w, "(")
		opt := strings.HasPrefix(w, "[") || alt
		w = strings.Trim(w, "[]()")
		many := strings.HasSuffix(w, "...")
		w = strings.TrimSuffix(w, "...")
		if w == "" || strings.ToUpper(w) != w {
			break
		}
		name := strings.ToLower(w)
		if many {
			name += "s"
		}
		out = append(out, positional{name: name, many: many, required: !opt})
		if alt {
			break // the other forms are flags
		}
	}
	return out
}

// paramSchema is the JSON Schema of a registry parameter, in the shapes
// --input accepts.
func paramSchema(p skills.Param) map[string]any {
	s := map[string]any{"description": literalText(p.Help)}
	switch p.Type {
	case skills.TypeTexts:
		s["type"], s["items"] = "array", map[string]any{"type": "string"}
	case skills.TypeInt:
		s["type"], s["minimum"] = "integer", 1
	case skills.TypeInts:
		s["type"], s["items"] = "array", map[string]any{"type": "integer", "minimum": 1}
	case skills.TypeEnum:
		s["type"], s["enum"] = "string", p.Enum
	case skills.TypeRange:
		s["type"], s["pattern"] = "string", `^[0-9]+(-[0-9]+)?$`
		s["description"] = p.Help + ` ("3-5", or "4" for one sentence)`
	case skills.TypeSubs:
		s["type"] = "array"
		s["items"] = map[string]any{"type": "object", "required": []string{"claim"}, "additionalProperties": false,
			"properties": map[string]any{
				"claim":    map[string]any{"type": "string"},
				"premises": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
			}}
	default: // ref, text
		s["type"] = "string"
	}
	return s
}

// fromFile is the part of an --input flag's usage that says where the CLI
// reads the object from: over MCP the argument is the object.
var fromFile = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\s+(in|from) FILE\b.*$`) })

// jsonInputText describes an --input flag as the tool's object parameter,
// from the flag's own usage ("the turn as a JSON object in FILE (- reads
// standard input)" -> "the turn as a JSON object, given as the object
// itself ...").
func jsonInputText(f *pflag.Flag) string {
	_, usage := pflag.UnquoteUsage(f)
	return fromFile().ReplaceAllString(usage, "") + ", given as the object itself (not a file, not a string); " +
		"read as the CLI reads --input: unknown keys, keys given twice and deep nesting are refused"
}

// atFile is the CLI's note that a text flag reads @FILE: over MCP every
// text is literal (skills.Source.Literal), so a schema does not say it.
var atFile = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\s*\([^()]*@file[^()]*\)`) })

func literalText(s string) string { return atFile().ReplaceAllString(s, "") }

// flagSchema is the JSON Schema of a cobra flag, by its pflag type.
func flagSchema(f *pflag.Flag) map[string]any {
	s := map[string]any{"description": literalText(f.Usage)}
	switch f.Value.Type() {
	case "bool":
		s["type"] = "boolean"
	case "int":
		s["type"] = "integer"
	case "stringArray", "stringSlice":
		s["type"], s["items"] = "array", map[string]any{"type": "string"}
	case "intSlice":
		s["type"], s["items"] = "array", map[string]any{"type": "integer"}
	case "duration":
		s["type"], s["description"] = "string", literalText(f.Usage)+` (a duration such as "30m")`
	default:
		s["type"] = "string"
	}
	return s
}

// handler runs a call as the CLI would run the command line it maps to,
// under the call's context (a cancelled call ends its command).
func (m *mcpServer) handler(t *mcpTool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, stdin, err := m.commandLine(t, req.Params.Arguments)
		if err != nil {
			return m.refusal(t, err), nil
		}
		code, out, errOut, text := m.cli(ctx, t.mutating, args, stdin)
		if code != 0 && len(bytes.TrimSpace(text)) == 0 {
			text = errOut // a refusal's sentence comes through text in JSON mode
		}
		return m.toolResult(code, out, text), nil
	}
}

// toolResult makes a CLI run a tool result that carries its data once:
// structuredContent is the --json object, and the text is one line (the
// result's sentence, or the error with its code and hint) for clients that
// read only text. Claude Code gives the model the structured content of a
// result, and the text of an error result, so neither pays for a copy. Hints and messages name tools, not shell
// commands (toolHint).
func (m *mcpServer) toolResult(code int, out, text []byte) *mcp.CallToolResult {
	r := &mcp.CallToolResult{IsError: code != 0}
	var obj map[string]any
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber() // numbers pass through as the CLI wrote them
	if dec.Decode(&obj) == nil && obj != nil {
		if e, ok := obj["error"].(map[string]any); ok {
			for _, k := range []string{"message", "hint"} {
				if s, ok := e[k].(string); ok {
					e[k] = m.toolHint(s)
				}
			}
		}
		if s, ok := obj["hint"].(string); ok {
			obj["hint"] = m.toolHint(s)
		}
		r.StructuredContent = obj
	}
	line := oneLine(m.toolHint(string(text)))
	if line == "" {
		line = summaryLine(obj)
	}
	if e, ok := obj["error"].(map[string]any); ok {
		if h, _ := e["hint"].(string); h != "" && !strings.Contains(line, h) {
			line += " (" + oneLine(h) + ")"
		}
		// Claude Code gives the model an error result's text, not its
		// structured content: the line carries the code too.
		if c, _ := e["code"].(string); c != "" {
			line = "error " + c + ": " + line
		}
	}
	r.Content = []mcp.Content{&mcp.TextContent{Text: line}}
	return r
}

// oneLine joins the lines of s with spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// summaryLine is the one line of a reader's result, which has no sentence
// in JSON mode: what it is about; the data is the structured content.
func summaryLine(obj map[string]any) string {
	parts := []string{}
	for _, k := range []string{"command", "id", "status"} {
		if s, ok := obj[k].(string); ok && s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " ") + ": ok; the result is the structured content"
}

// refusal reports arguments that cannot become a command line the way the
// CLI reports bad flags: invalid_input, exit 2, in the --json error shape.
func (m *mcpServer) refusal(t *mcpTool, err error) *mcp.CallToolResult {
	code, exit := classify(err)
	e := map[string]any{"code": code, "message": err.Error()}
	if h := store.HintOf(err); h != "" {
		e["hint"] = h
	}
	out, _ := json.Marshal(map[string]any{"ok": false, "command": strings.Join(t.path, " "), "error": e})
	msg := fmt.Sprintf("%s: %s", t.tool.Name, err)
	return m.toolResult(exit, out, []byte(msg))
}

// commandLine turns a call's arguments into the command line and stdin of
// the CLI: a skill's parameters go in as --input - (the CLI's JSON input),
// the other commands' as their flags and positional arguments.
func (m *mcpServer) commandLine(t *mcpTool, raw json.RawMessage) ([]string, []byte, error) {
	in := map[string]json.RawMessage{}
	if len(raw) > 0 && string(raw) != "null" {
		if !bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
			return nil, nil, store.Errorf(store.CodeInvalidInput, "the arguments are %.40s, not a JSON object", raw).
				WithHint("give one object of the tool's parameters, as its input schema says")
		}
		// Strict, as the CLI's --input: a key given twice (two actors, say)
		// is refused, not settled by the last one.
		if err := skills.DecodeStrict(raw, &in); skills.IsTextError(err) {
			return nil, nil, store.Errorf(store.CodeInvalidInput, "the arguments: %v", err).WithHint("nothing was written; " + model.TextRule)
		} else if err != nil {
			return nil, nil, store.Errorf(store.CodeInvalidInput, "the arguments are not a JSON object the tool takes: %v", err).
				WithHint("give each parameter once, as the tool's input schema says")
		}
	}
	if err := t.unknownParam(in); err != nil {
		return nil, nil, err
	}
	if err := m.pinRole(t, in); err != nil {
		return nil, nil, err
	}
	args := append(slices.Clone(t.path), "--json")
	if t.mutating {
		actor, err := optString(in, paramActor)
		if err != nil {
			return nil, nil, err
		}
		if actor == "" && !m.actorDefaulted {
			// An empty --actor= falls back to the OS user, not declared,
			// as the server's own actor was.
			actor = m.actor
		}
		lease, err := optString(in, paramLease)
		if err != nil {
			return nil, nil, err
		}
		// Always explicit, so the server's own environment never leaks a
		// lease into a call.
		args = append(args, "--actor="+actor, "--lease="+lease)
		delete(in, paramActor)
		delete(in, paramLease)
	}
	for _, name := range slices.Sorted(maps.Keys(t.flags)) {
		v, ok := in[name]
		if !ok {
			continue
		}
		delete(in, name)
		vals, err := flagValues(name, t.flags[name], v)
		if err != nil {
			return nil, nil, err
		}
		if pathFlag(t.flags[name]) {
			// Every path a tool takes, read or written, lies inside the
			// project folder: checked here for each flag that names a
			// file, so a command that forgets its own check (the join
			// that starts a duel once read any file) is still covered.
			src := skills.Source{Literal: true, Project: m.project}
			for _, p := range vals {
				if _, err := src.Inside(p, name); err != nil {
					return nil, nil, err
				}
			}
		}
		for _, s := range vals {
			args = append(args, "--"+t.flags[name].Name+"="+s)
		}
	}
	var stdin []byte
	if t.skill != nil {
		// The skill's parameters, as they came: --input checks them.
		stdin, _ = json.Marshal(in)
		return append(args, "--input", "-"), stdin, nil
	}
	if v, ok := in[paramInput]; ok && t.jsonInput != nil {
		delete(in, paramInput)
		if !bytes.HasPrefix(bytes.TrimSpace(v), []byte("{")) {
			return nil, nil, store.Errorf(store.CodeInvalidInput, "%q must be a JSON object, got %.40s", paramInput, v).
				WithHint("give the " + paramInput + " argument as the object itself, e.g. {\"stance\": ...}, not a string holding it")
		}
		// As it came, byte for byte: the command reads it with the
		// CLI's strict reader (depth limit, duplicate and unknown keys).
		stdin = v
		args = append(args, "--"+t.jsonInput.Name, "-")
	}
	var pos []string
	for _, p := range t.positional {
		v, ok := in[p.name]
		delete(in, p.name)
		if !ok {
			if p.required {
				example := `"ID"`
				if p.many {
					example = `["ID"]`
				}
				return nil, nil, store.Errorf(store.CodeInvalidInput, "%s needs %q", t.tool.Name, p.name).
					WithHint(fmt.Sprintf(`give {%q: %s}, with ids from the tools next or status, or from "created" in an earlier result`, p.name, example))
			}
			continue
		}
		if p.many {
			var ids []string
			if json.Unmarshal(v, &ids) != nil {
				return nil, nil, store.Errorf(store.CodeInvalidInput, "%q must be a list of strings, got %s", p.name, v)
			}
			pos = append(pos, ids...)
			continue
		}
		var id string
		if json.Unmarshal(v, &id) != nil {
			return nil, nil, store.Errorf(store.CodeInvalidInput, "%q must be a string, got %s", p.name, v)
		}
		pos = append(pos, id)
	}
	if len(pos) > 0 {
		args = append(append(args, "--"), pos...)
	}
	return args, stdin, nil
}

// unknownParam refuses the first argument that is no parameter of the
// tool's input schema, naming the nearest parameter, before any other
// check: a slip ("feild", or "id" where show takes "ids") is told as what
// it is, not as a parameter missing.
func (t *mcpTool) unknownParam(in map[string]json.RawMessage) error {
	props, _ := t.tool.InputSchema.(map[string]any)["properties"].(map[string]any)
	params := slices.Sorted(maps.Keys(props))
	for _, k := range slices.Sorted(maps.Keys(in)) {
		if _, ok := props[k]; ok {
			continue
		}
		hint := t.tool.Name + " takes " + strings.Join(params, ", ")
		if near := model.Nearest(k, params, 1); len(near) > 0 {
			hint = "did you mean " + near[0] + "? " + hint
		}
		return store.Errorf(store.CodeInvalidInput, "unknown parameter %q", k).WithHint(hint)
	}
	return nil
}

func optString(in map[string]json.RawMessage, key string) (string, error) {
	v, ok := in[key]
	if !ok {
		return "", nil
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", store.Errorf(store.CodeInvalidInput, "%q must be a string, got %s", key, v)
	}
	return s, nil
}

// flagValues renders a JSON value as the flag's value(s).
func flagValues(name string, f *pflag.Flag, v json.RawMessage) ([]string, error) {
	wrong := func(want string) error {
		return store.Errorf(store.CodeInvalidInput, "%q must be %s, got %s", name, want, v).WithHint(f.Usage)
	}
	switch f.Value.Type() {
	case "bool":
		var b bool
		if json.Unmarshal(v, &b) != nil {
			return nil, wrong("true or false")
		}
		return []string{strconv.FormatBool(b)}, nil
	case "int":
		var n int
		if json.Unmarshal(v, &n) != nil {
			return nil, wrong("an integer")
		}
		return []string{strconv.Itoa(n)}, nil
	case "stringArray", "stringSlice":
		var ss []string
		if json.Unmarshal(v, &ss) != nil {
			return nil, wrong("a list of strings")
		}
		return ss, nil
	case "intSlice":
		var ns []int
		if json.Unmarshal(v, &ns) != nil {
			return nil, wrong("a list of integers")
		}
		var out []string
		for _, n := range ns {
			out = append(out, strconv.Itoa(n))
		}
		return out, nil
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return nil, wrong("a string")
	}
	return []string{s}, nil
}
