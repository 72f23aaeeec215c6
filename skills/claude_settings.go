package skills

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/tidwall/gjson"
	"github.com/tidwall/pretty"
	"github.com/tidwall/sjson"
)

// .claude/settings.json is the one file of .claude/ that gen-claude shares
// with its owner: it merges proofloop's entries into it and keeps every
// other key, permission and hook. Claude Code's format (settings files):
//
//	{"permissions": {"allow": ["Bash(proofloop:*)", ...]},
//	 "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "..."}]}]}}

// SettingsPath is where Claude Code reads a project's shared settings.
const SettingsPath = ".claude/settings.json"

// SettingsAllow are the permission rules gen-claude adds, so that agents
// call proofloop without asking for approval: installed on PATH, or built
// in a checkout.
var SettingsAllow = []string{"Bash(proofloop:*)", "Bash(bin/proofloop:*)", "mcp__proofloop"}

// PrimeHook is the SessionStart hook's command. A session that `proofloop
// run` started knows its role ($PROOFLOOP_ROLE) and its item
// ($PROOFLOOP_ID), and has proofloop first on PATH; it starts with the item
// as the role needs it (`prime --role R --id ID`), or the role's
// orientation when no item is named. Any other session has no role to
// orient for, so the hook prints nothing there (and never fails); --hook
// keeps it quiet, exit 0, outside a project too.
const PrimeHook = `[ -z "$PROOFLOOP_ROLE" ] || proofloop prime --hook --role "$PROOFLOOP_ROLE" ${PROOFLOOP_ID:+--id "$PROOFLOOP_ID"}`

// oldPrimeHooks are the hook's earlier commands: MergeSettings replaces one
// it finds rather than adding the new hook beside it.
var oldPrimeHooks = []string{`[ -z "$PROOFLOOP_ROLE" ] || proofloop prime --role "$PROOFLOOP_ROLE"`,
	`[ -z "$PROOFLOOP_ROLE" ] || proofloop prime --hook --role "$PROOFLOOP_ROLE"`}

// MergeSettings adds SettingsAllow and the PrimeHook to the content of a
// settings file (empty when there is none yet) and reports whether
// anything was added. Everything else in the file stays; a rule or the
// hook that is already there is not added again, so running it twice
// changes nothing. A file that is not a JSON object, or whose permissions,
// allow list or SessionStart list has another type, is refused rather than
// overwritten.
func MergeSettings(old []byte) ([]byte, bool, error) {
	doc := bytes.TrimSpace(old)
	if len(doc) == 0 {
		doc = []byte("{}")
	}
	if !json.Valid(doc) || !gjson.ParseBytes(doc).IsObject() {
		return nil, false, fmt.Errorf("%s is not a JSON object", SettingsPath)
	}
	for _, c := range []struct{ path, want string }{{"permissions", "an object"}, {"permissions.allow", "an array"},
		{"hooks", "an object"}, {"hooks.SessionStart", "an array"}} {
		v := gjson.GetBytes(doc, c.path)
		if v.Exists() && ((c.want == "an object" && !v.IsObject()) || (c.want == "an array" && !v.IsArray())) {
			return nil, false, fmt.Errorf("%s: %s is %s, not %s", SettingsPath, c.path, kindOf(v), c.want)
		}
	}
	changed := false
	have := map[string]bool{}
	for _, r := range gjson.GetBytes(doc, "permissions.allow").Array() {
		have[r.String()] = true
	}
	for _, rule := range SettingsAllow {
		if have[rule] {
			continue
		}
		var err error
		if doc, err = sjson.SetBytes(doc, "permissions.allow.-1", rule); err != nil {
			return nil, false, err
		}
		changed = true
	}
	for gi, g := range gjson.GetBytes(doc, "hooks.SessionStart").Array() {
		for hi, h := range g.Get("hooks").Array() {
			if slices.Contains(oldPrimeHooks, h.Get("command").String()) {
				var err error
				if doc, err = sjson.SetBytes(doc, fmt.Sprintf("hooks.SessionStart.%d.hooks.%d.command", gi, hi), PrimeHook); err != nil {
					return nil, false, err
				}
				changed = true
			}
		}
	}
	if !hasHook(doc, PrimeHook) {
		type hook struct {
			Type    string `json:"type"`
			Command string `json:"command"`
		}
		group, _ := json.Marshal(map[string][]hook{"hooks": {{"command", PrimeHook}}})
		var err error
		if doc, err = sjson.SetRawBytes(doc, "hooks.SessionStart.-1", group); err != nil {
			return nil, false, err
		}
		changed = true
	}
	if !changed {
		return old, false, nil
	}
	return pretty.Pretty(doc), true, nil
}

// hasHook reports whether any SessionStart group already runs command.
func hasHook(doc []byte, command string) bool {
	for _, g := range gjson.GetBytes(doc, "hooks.SessionStart").Array() {
		for _, h := range g.Get("hooks").Array() {
			if h.Get("command").String() == command {
				return true
			}
		}
	}
	return false
}

// kindOf names a JSON value's kind for a message: "an array", "a string".
func kindOf(v gjson.Result) string {
	switch {
	case v.IsArray():
		return "an array"
	case v.IsObject():
		return "an object"
	case v.Type == gjson.String:
		return "a string"
	case v.Type == gjson.Number:
		return "a number"
	case v.Type == gjson.Null:
		return "null"
	}
	return "a boolean"
}
