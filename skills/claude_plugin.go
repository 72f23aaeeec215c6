package skills

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// The Claude Code plugin: a folder that is a plugin marketplace
// (.claude-plugin/marketplace.json) listing one plugin, proofloop, in a
// folder of its own (PluginDir) with the same skills and agents as the
// project-local files and a SessionStart hook running `proofloop prime`.
// `claude plugin marketplace add DIR` then `claude plugin install
// proofloop@proofloop` installs it; gen-claude --plugin writes it, and
// keeps a marketplace it wrote up to date on every later run.

// The plugin's paths under the marketplace folder, slash-separated.
const (
	MarketplacePath = ".claude-plugin/marketplace.json"
	PluginDir       = "plugins/proofloop"
	// PluginName is the plugin's and the marketplace's name:
	// `claude plugin install proofloop@proofloop`.
	PluginName = "proofloop"
	// PluginVersion is the plugin's version; raise it when the files
	// change in a way an installed copy should pick up.
	PluginVersion = "0.2.0"
)

// PluginDescription says what the plugin is, in the marketplace listing.
const PluginDescription = "Skills and subagents for proofloop, a proof-workflow engine for teams of AI agents: solve, prove, check and fix roles, and debates."

// PluginFiles returns the marketplace's files: marketplace.json, the
// plugin's manifest, its skills and agents (the ClaudeFiles of .claude/,
// moved under PluginDir) and its hooks.
func PluginFiles() ([]File, error) {
	files, err := ClaudeFiles()
	if err != nil {
		return nil, err
	}
	type plugin struct {
		Name        string            `json:"name"`
		Source      string            `json:"source,omitempty"`
		Version     string            `json:"version"`
		Description string            `json:"description"`
		Author      map[string]string `json:"author"`
	}
	author := map[string]string{"name": "proofloop"}
	market, err := pluginJSON(map[string]any{
		"name":        PluginName,
		"description": "The proofloop plugin, from the proofloop repository.",
		"owner":       author,
		"plugins":     []plugin{{Name: PluginName, Source: "./" + PluginDir, Version: PluginVersion, Description: PluginDescription, Author: author}},
	})
	if err != nil {
		return nil, err
	}
	manifest, err := pluginJSON(plugin{Name: PluginName, Version: PluginVersion, Description: PluginDescription, Author: author})
	if err != nil {
		return nil, err
	}
	type hook struct {
		Type    string `json:"type"`
		Command string `json:"command"`
	}
	hooks, err := pluginJSON(map[string]any{"hooks": map[string]any{
		"SessionStart": []map[string][]hook{{"hooks": {{"command", PrimeHook}}}}}})
	if err != nil {
		return nil, err
	}
	out := []File{{MarketplacePath, market}, {PluginDir + "/.claude-plugin/plugin.json", manifest},
		{PluginDir + "/hooks/hooks.json", hooks}}
	for _, f := range files {
		if rest, ok := strings.CutPrefix(f.Path, ".claude/"); ok {
			out = append(out, File{PluginDir + "/" + rest, f.Data})
		}
	}
	return out, nil
}

func pluginJSON(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	return append(b, '\n'), err
}

// HasPlugin reports whether dir holds a marketplace gen-claude wrote (its
// marketplace.json lists the proofloop plugin in PluginDir).
func HasPlugin(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(MarketplacePath)))
	return err == nil && strings.Contains(string(b), `"source": "./`+PluginDir+`"`)
}

// WritePlugin writes the marketplace under dir, replacing the plugin's
// generated skills and agents so that one the registry no longer has does
// not linger. It returns the paths written.
func WritePlugin(dir string) ([]string, error) {
	files, err := PluginFiles()
	if err != nil {
		return nil, err
	}
	for _, sub := range []string{"skills", "agents"} {
		if err := os.RemoveAll(filepath.Join(dir, filepath.FromSlash(PluginDir), sub)); err != nil {
			return nil, err
		}
	}
	return writeFiles(dir, files)
}
