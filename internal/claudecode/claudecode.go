// Package claudecode finds the pinned Claude Code CLI for the tests that
// drive the real harness, and installs it with npm when it is missing.
//
// The CLI lives in a cache outside the repository, one folder per version:
// $XDG_CACHE_HOME/proofloop/claude-code/<Version> (else
// ~/.cache/proofloop/claude-code/<Version>), or under $PROOFLOOP_CLAUDE_CACHE
// when that is set. A test asks for it with Require, which skips the test,
// loudly, when npm cannot install it (or fails it when
// $PROOFLOOP_CLAUDE_REQUIRED is set):
//
//	claude := claudecode.Require(t)
//	cmd := exec.Command(claude, "-p", ...)
//	cmd.Env = claudecode.Env(home, "http://127.0.0.1:PORT", nil)
package claudecode

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Version is the pinned release of npm's @anthropic-ai/claude-code. The
// facts in HARNESS.md (the streamed Messages API it calls, where it lists
// skills and agents, how -p mode treats permissions) were checked against it.
const Version = "2.1.197"

// Package is the npm package of the CLI.
const Package = "@anthropic-ai/claude-code"

// RequireEnv names the variable that turns a missing CLI from a skip into
// a failure, for CI that must run the harness tests.
const RequireEnv = "PROOFLOOP_CLAUDE_REQUIRED"

// CacheEnv names the variable that moves the cache.
const CacheEnv = "PROOFLOOP_CLAUDE_CACHE"

// Dir is the folder that holds (or will hold) the pinned version.
func Dir() (string, error) {
	base := os.Getenv(CacheEnv)
	if base == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("claude code cache: %w", err)
		}
		base = filepath.Join(c, "proofloop", "claude-code")
	}
	return filepath.Join(base, Version), nil
}

// binIn is the CLI inside an npm install folder.
func binIn(dir string) string { return filepath.Join(dir, "node_modules", ".bin", "claude") }

// Find returns the path of the pinned CLI when it is installed. A folder
// only appears under its final name once npm finished, so a found CLI is a
// whole one.
func Find() (string, error) {
	dir, err := Dir()
	if err != nil {
		return "", err
	}
	bin := binIn(dir)
	if fi, err := os.Stat(bin); err != nil || fi.Mode()&0o111 == 0 {
		return "", fmt.Errorf("claude code %s is not installed in %s", Version, dir)
	}
	return bin, nil
}

// Install returns the pinned CLI, installing it with `npm install` first
// when it is missing. Concurrent installers (two test packages at once)
// take turns on a lock file beside the cache folder; the install goes to a
// temp folder that is renamed into place when npm is done.
func Install(ctx context.Context) (string, error) {
	if bin, err := Find(); err == nil {
		return bin, nil
	}
	dir, err := Dir()
	if err != nil {
		return "", err
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("claude code cache: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(parent, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", fmt.Errorf("claude code cache: %w", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", fmt.Errorf("claude code cache lock: %w", err)
	}
	if bin, err := Find(); err == nil {
		return bin, nil // another installer finished while we waited
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("install claude code %s: no npm on PATH", Version)
	}
	tmp, err := os.MkdirTemp(parent, Version+".partial-")
	if err != nil {
		return "", fmt.Errorf("claude code cache: %w", err)
	}
	defer os.RemoveAll(tmp) // gone after the rename; a failed install's leftovers otherwise
	cmd := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--loglevel=error",
		"--prefix", tmp, Package+"@"+Version)
	cmd.Dir = tmp
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("npm install %s@%s: %w\n%s", Package, Version, err, tail(out, 2000))
	}
	if _, err := os.Stat(binIn(tmp)); err != nil {
		return "", fmt.Errorf("npm install %s@%s gave no node_modules/.bin/claude", Package, Version)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return "", fmt.Errorf("claude code cache: %w", err)
	}
	return Find()
}

// tail is the end of b, at most n bytes.
func tail(b []byte, n int) string {
	s := strings.TrimSpace(string(b))
	if len(s) > n {
		s = "..." + s[len(s)-n:]
	}
	return s
}

// Banner says loudly on stderr that the tests of the real harness will
// not run.
func Banner(err error) {
	line := strings.Repeat("!", 72)
	fmt.Fprintf(os.Stderr, "%s\n!!! NO CLAUDE CODE CLI: %v\n!!! The tests of the real Claude Code harness will be SKIPPED (set %s=1 to fail instead).\n%s\n",
		line, err, RequireEnv, line)
}

var (
	once    sync.Once
	found   string
	missing error
)

// Require returns the pinned CLI, installing it when it is missing. When it
// cannot be had, it prints the banner and skips the test, or fails it when
// $PROOFLOOP_CLAUDE_REQUIRED is set. One process tries once.
func Require(t testing.TB) string {
	t.Helper()
	once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		found, missing = Install(ctx)
		if missing != nil {
			Banner(missing)
		}
	})
	if missing != nil {
		if os.Getenv(RequireEnv) != "" {
			t.Fatalf("no Claude Code CLI, and %s is set: %v", RequireEnv, missing)
		}
		t.Skipf("no Claude Code CLI %s (see the banner above): %v", Version, missing)
	}
	return found
}

// ClosedProxy is a proxy address on which nothing listens: a request that
// would leave the machine through it fails at once.
const ClosedProxy = "http://127.0.0.1:9"

// Env is a clean environment for the CLI: a fresh HOME, the model endpoint
// at baseURL, telemetry, updates and error reports off, and every proxy
// pointing at a closed port with only loopback exempt, so that nothing but
// the local endpoint is reachable. PATH is the caller's; extra entries
// (NAME=value) come last and win.
func Env(home, baseURL string, extra ...string) []string {
	env := []string{
		"HOME=" + home,
		"PATH=" + os.Getenv("PATH"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"TMPDIR=" + os.TempDir(),
		"ANTHROPIC_BASE_URL=" + baseURL,
		"ANTHROPIC_API_KEY=sk-ant-test-not-a-key",
		"DISABLE_TELEMETRY=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1",
		"HTTPS_PROXY=" + ClosedProxy, "HTTP_PROXY=" + ClosedProxy,
		"https_proxy=" + ClosedProxy, "http_proxy=" + ClosedProxy,
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost",
	}
	return append(env, extra...)
}
