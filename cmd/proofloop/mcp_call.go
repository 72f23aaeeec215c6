//go:build !lean

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/pflag"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
	"github.com/proofloop/proofloop/store"
)

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
	in, err := callArgs(raw)
	if err != nil {
		return nil, nil, err
	}
	if err := t.unknownParam(in); err != nil {
		return nil, nil, err
	}
	if err := m.pinRole(t, in); err != nil {
		return nil, nil, err
	}
	args := append(slices.Clone(t.path), "--json")
	if t.mutating {
		who, err := m.identityArgs(in)
		if err != nil {
			return nil, nil, err
		}
		args = append(args, who...)
	}
	flags, err := m.flagArgs(t, in)
	if err != nil {
		return nil, nil, err
	}
	args = append(args, flags...)
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
	pos, err := t.positionalArgs(in)
	if err != nil {
		return nil, nil, err
	}
	if len(pos) > 0 {
		args = append(append(args, "--"), pos...)
	}
	return args, stdin, nil
}

// callArgs reads a call's arguments: one JSON object, each key once.
func callArgs(raw json.RawMessage) (map[string]json.RawMessage, error) {
	in := map[string]json.RawMessage{}
	if len(raw) == 0 || string(raw) == "null" {
		return in, nil
	}
	if !bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
		return nil, store.Errorf(store.CodeInvalidInput, "the arguments are %.40s, not a JSON object", raw).
			WithHint("give one object of the tool's parameters, as its input schema says")
	}
	// Strict, as the CLI's --input: a key given twice (two actors, say)
	// is refused, not settled by the last one.
	if err := skills.DecodeStrict(raw, &in); skills.IsTextError(err) {
		return nil, store.Errorf(store.CodeInvalidInput, "the arguments: %v", err).WithHint("nothing was written; " + model.TextRule)
	} else if err != nil {
		return nil, store.Errorf(store.CodeInvalidInput, "the arguments are not a JSON object the tool takes: %v", err).
			WithHint("give each parameter once, as the tool's input schema says")
	}
	return in, nil
}

// identityArgs are a mutating call's --actor and --lease, taken out of in.
func (m *mcpServer) identityArgs(in map[string]json.RawMessage) ([]string, error) {
	actor, err := optString(in, paramActor)
	if err != nil {
		return nil, err
	}
	if actor == "" && !m.actorDefaulted {
		// An empty --actor= falls back to the OS user, not declared,
		// as the server's own actor was.
		actor = m.actor
	}
	lease, err := optString(in, paramLease)
	if err != nil {
		return nil, err
	}
	delete(in, paramActor)
	delete(in, paramLease)
	// Always explicit, so the server's own environment never leaks a
	// lease into a call.
	return []string{"--actor=" + actor, "--lease=" + lease}, nil
}

// flagArgs are the flags a call's arguments give, taken out of in.
func (m *mcpServer) flagArgs(t *mcpTool, in map[string]json.RawMessage) ([]string, error) {
	var args []string
	for _, name := range slices.Sorted(maps.Keys(t.flags)) {
		v, ok := in[name]
		if !ok {
			continue
		}
		delete(in, name)
		vals, err := flagValues(name, t.flags[name], v)
		if err != nil {
			return nil, err
		}
		if pathFlag(t.flags[name]) {
			// Every path a tool takes, read or written, lies inside the
			// project folder: checked here for each flag that names a
			// file, so a command that forgets its own check (the join
			// that starts a duel once read any file) is still covered.
			src := skills.Source{Literal: true, Project: m.project}
			for _, p := range vals {
				if _, err := src.Inside(p, name); err != nil {
					return nil, err
				}
			}
		}
		for _, s := range vals {
			args = append(args, "--"+t.flags[name].Name+"="+s)
		}
	}
	return args, nil
}

// positionalArgs are the command's positional arguments (ID, ID...), taken
// out of in, in the Use line's order.
func (t *mcpTool) positionalArgs(in map[string]json.RawMessage) ([]string, error) {
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
				return nil, store.Errorf(store.CodeInvalidInput, "%s needs %q", t.tool.Name, p.name).
					WithHint(fmt.Sprintf(`give {%q: %s}, with ids from the tools next or status, or from "created" in an earlier result`, p.name, example))
			}
			continue
		}
		if p.many {
			var ids []string
			if json.Unmarshal(v, &ids) != nil {
				return nil, store.Errorf(store.CodeInvalidInput, "%q must be a list of strings, got %s", p.name, v)
			}
			pos = append(pos, ids...)
			continue
		}
		var id string
		if json.Unmarshal(v, &id) != nil {
			return nil, store.Errorf(store.CodeInvalidInput, "%q must be a string, got %s", p.name, v)
		}
		pos = append(pos, id)
	}
	return pos, nil
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
