//go:build !lean

package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Hints over MCP speak of tools. The CLI's messages and hints name shell
// commands ("run `proofloop show stmt_x --sentences`"); an agent on the MCP
// server calls tools and may have no shell at all. toolHint rewrites each
// command a text names:
//   - a command that is a tool of this server: "call the tool show with
//     {"ids":["stmt_x"],"sentences":true}", its arguments mapped to the
//     tool's parameters as commandLine maps them back;
//   - a command that is not (doctor, init, config, a tool of another role):
//     "ask the person who runs the project to run `proofloop doctor`".

// cliMention finds a command in a text: `proofloop ARGS` in backquotes, or a
// bare "proofloop WORD" with the words after it that can only be its
// arguments (placeholders such as ID, flags, ids), read like the quoted
// form so that "numbered as proofloop show ID --sentences prints them"
// reads as a sentence. A "run " before it goes too: the rewrite says what
// to do.
var cliMention = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("(?:\\brun )?(?:`proofloop ([^`]*)`|\\bproofloop ([a-z][a-z-]*(?: [a-z][a-z-]*)?)\\b((?: (?:[A-Z][A-Z_]*|--[a-z][a-z0-9-]*|[a-z][a-z0-9]*_[a-z0-9_]+)\\b)*))")
})

// cliFlag finds a flag named in prose, outside a quoted command.
var cliFlag = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(^|[\s(])--([a-z][a-z0-9-]*)`) })

// inputAlt finds the CLI's second way to give a skill's parameter, ", or
// give "name" in --input", which a tool's argument is already.
var inputAlt = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`, or give "[a-z_]+" in --input`) })

// cliEnvAlt finds "the argument lease TOKEN or $PROOFLOOP_LEASE" once a
// flag is rewritten: a tool call has no environment, only its arguments.
var cliEnvAlt = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(the argument [a-z_]+)(?: [A-Z]+)? or \$?PROOFLOOP_[A-Z_]+`)
})

// cliInputFile finds "--input FILE|-" (or FILE, or -) in prose: over MCP
// the argument input is the JSON object itself, so where it comes from on
// the CLI goes.
var cliInputFile = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`--` + paramInput + ` (?:FILE\|-|FILE|-)(\W|$)`) })

// toolHint rewrites the commands s names for a client of this server, and
// the flags it names outside a quoted command as the arguments they are
// ("see --help for the flags" as the tool's input schema).
func (m *mcpServer) toolHint(s string) string {
	s = m.toolNames(m.toolCommands(s))
	s = strings.ReplaceAll(s, "see --help for the flags", "see the tool's input schema for its arguments")
	s = cliInputFile().ReplaceAllString(s, "--"+paramInput+"$1")
	// A tool's arguments are the skill's --input: the CLI's two ways to give
	// a parameter are one here.
	s = inputAlt().ReplaceAllString(s, "")
	s = strings.ReplaceAll(s, " in --input ", " ")
	parts := strings.Split(s, "`")
	for i := 0; i < len(parts); i += 2 {
		parts[i] = cliFlag().ReplaceAllStringFunc(parts[i], func(f string) string {
			sub := cliFlag().FindStringSubmatch(f)
			return sub[1] + "the argument " + snake(sub[2])
		})
	}
	return cliEnvAlt().ReplaceAllString(strings.Join(parts, "`"), "$1")
}

// toolCommands rewrites the commands s names. "run `proofloop X ...`"
// becomes "call the tool x with {...}"; a mention without "run" becomes
// "the tool x with {...}", so that the sentence around it still reads.
func (m *mcpServer) toolCommands(s string) string {
	return cliMention().ReplaceAllStringFunc(s, func(match string) string {
		sub := cliMention().FindStringSubmatch(match)
		run := strings.HasPrefix(match, "run ")
		quoted := strings.Contains(match, "`")
		words := strings.Fields(sub[1] + sub[2])
		t, rest := m.findTool(words)
		if argWords := strings.Fields(sub[3]); len(argWords) > 0 {
			// A bare command with its arguments reads as a quoted one,
			// unless a prose word came between the two.
			quoted = len(rest) == 0
			words = append(words, argWords...)
			rest = append(rest, argWords...)
		}
		if t == nil {
			cmd := "proofloop " + strings.Join(words, " ")
			switch {
			case !quoted && !m.isCommand(words):
				return match // prose: "no proofloop process is running"
			case quoted || strings.Contains(match, "`"):
				cmd = "`" + cmd + "`"
			}
			if run {
				return "ask the person who runs the project to run " + cmd
			}
			return cmd + " (a command for the person who runs the project)"
		}
		out := "the tool " + t.tool.Name
		if slices.Equal(rest, []string{"--help"}) {
			// A tool's help is its description and input schema.
			return "the description of " + out
		}
		if run {
			out = "call " + out
		}
		if !quoted {
			return strings.TrimSpace(out + " " + strings.Join(rest, " "))
		}
		if args := t.toolArgs(rest); len(args) > 0 {
			b, _ := json.Marshal(args)
			out += " with " + string(b)
		}
		return out
	})
}

// toolNames writes the commands s names by their kebab-case names
// ("allowed now: check-confirm-proof") as their tools.
func (m *mcpServer) toolNames(s string) string {
	m.namesOnce.Do(func() {
		var alts []string
		m.kebab = map[string]string{}
		for _, t := range m.tools {
			if name := strings.Join(t.path, " "); strings.Contains(name, "-") {
				alts = append(alts, regexp.QuoteMeta(name))
				m.kebab[name] = t.tool.Name
			}
		}
		if len(alts) > 0 {
			m.kebabRE = regexp.MustCompile(`\b(` + strings.Join(alts, "|") + `)\b`)
		}
	})
	if m.kebabRE == nil {
		return s
	}
	return m.kebabRE.ReplaceAllStringFunc(s, func(name string) string { return m.kebab[name] })
}

// findTool finds the tool whose command path starts words (the longest),
// and the words after it.
func (m *mcpServer) findTool(words []string) (*mcpTool, []string) {
	var best *mcpTool
	for _, t := range m.tools {
		if len(t.path) <= len(words) && slices.Equal(t.path, words[:len(t.path)]) && (best == nil || len(t.path) > len(best.path)) {
			best = t
		}
	}
	if best == nil {
		return nil, nil
	}
	return best, words[len(best.path):]
}

// isCommand reports whether words start with a proofloop command, a tool
// or not.
func (m *mcpServer) isCommand(words []string) bool {
	if len(words) == 0 || len(m.tools) == 0 {
		return false
	}
	for _, c := range m.tools[0].cmd.Root().Commands() {
		if c.Name() == words[0] {
			return true
		}
	}
	return false
}

// toolArgs maps a command line's words after the command to the tool's
// arguments: --flag VALUE (or --flag=VALUE, or a bare boolean flag) to the
// parameter, other words to the positional parameters in order. Global
// flags other than --actor and --lease are dropped; placeholders (N, ID)
// stay as written.
func (t *mcpTool) toolArgs(words []string) map[string]any {
	args := map[string]any{}
	add := func(name string, v any) {
		switch old := args[name].(type) {
		case nil:
			args[name] = v
		case []any:
			args[name] = append(old, v)
		default:
			args[name] = []any{old, v}
		}
	}
	pos := 0
	for i := 0; i < len(words); i++ {
		w := words[i]
		if name, ok := strings.CutPrefix(w, "--"); ok {
			name, val, hasVal := strings.Cut(name, "=")
			f := t.cmd.Flags().Lookup(name)
			boolean := f != nil && f.Value.Type() == "bool"
			var v any = true
			switch {
			case hasVal:
				v = val
			case !boolean && i+1 < len(words):
				i++
				v = words[i]
			}
			if n, err := strconv.Atoi(fmt.Sprint(v)); err == nil && f != nil && strings.HasPrefix(f.Value.Type(), "int") {
				v = n // the schema's integer, not its digits as a string
			}
			switch name {
			case "root", "json", "store":
				continue
			}
			if t.jsonInput != nil && name == t.jsonInput.Name {
				v = map[string]any{} // the object itself, where the CLI names its file
			}
			add(snake(name), v)
			continue
		}
		if pos < len(t.positional) {
			p := t.positional[pos]
			if p.many {
				l, _ := args[p.name].([]any)
				args[p.name] = append(l, w)
				continue
			}
			args[p.name] = w
			pos++
		}
	}
	return args
}
