//go:build !lean

package main

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
)

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
