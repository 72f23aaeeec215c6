package claudecode

import (
	"fmt"
	"os"
	"path/filepath"
)

// Codex and Gemini in a fresh HOME, pointed at a scripted endpoint on
// 127.0.0.1 (shared/HARNESS.md has the facts). Env's proxies hold for them
// too: nothing but loopback is reachable.

// CodexKeyEnv names the variable that holds the key the local provider
// sends (any string does).
const CodexKeyEnv = "PROOFLOOP_TEST_CODEX_KEY"

// WriteCodexHome writes home/.codex/config.toml: a provider "local" on the
// Responses API at baseURL (http://127.0.0.1:PORT/v1), with no retries, so
// that a broken endpoint fails the turn at once.
func WriteCodexHome(home, baseURL string) error {
	cfg := fmt.Sprintf(`model_provider = "local"

[model_providers.local]
name = "local"
base_url = %q
wire_api = "responses"
env_key = %q
request_max_retries = 0
stream_max_retries = 0
`, baseURL, CodexKeyEnv)
	return writeHomeFile(filepath.Join(home, ".codex", "config.toml"), cfg)
}

// WriteGeminiHome writes home/.gemini/settings.json: API-key auth, no
// telemetry, no usage statistics, no updates.
func WriteGeminiHome(home string) error {
	return writeHomeFile(filepath.Join(home, ".gemini", "settings.json"), `{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "telemetry": {"enabled": false},
  "privacy": {"usageStatisticsEnabled": false},
  "general": {"disableAutoUpdate": true, "enableAutoUpdate": false}
}
`)
}

// OthersEnv are the variables that point Codex and Gemini at their
// endpoints: codexKey any string, geminiURL http://127.0.0.1:PORT.
func OthersEnv(geminiURL string) []string {
	return []string{CodexKeyEnv + "=sk-test-not-a-key", "GEMINI_API_KEY=test-not-a-key", "GOOGLE_GEMINI_BASE_URL=" + geminiURL,
		"GEMINI_CLI_NO_RELAUNCH=true", "NO_COLOR=1"}
}

func writeHomeFile(p, data string) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(data), 0o644)
}
