// Package claudecode finds the pinned agent CLIs for the tests that drive
// the real harnesses (Claude Code, and beside it OpenAI's Codex CLI and
// Google's Gemini CLI: the Pins), and installs them with npm when they are
// missing.
//
// Each CLI lives in a cache outside the repository, one folder per version:
// $XDG_CACHE_HOME/proofloop/<name>/<Version> (else
// ~/.cache/proofloop/<name>/<Version>); Claude Code's under
// $PROOFLOOP_CLAUDE_CACHE when that is set. A test asks for one with
// Require, which skips the test, loudly, when npm cannot install it (or
// fails it when $PROOFLOOP_CLAUDE_REQUIRED is set):
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

// Pin is one agent CLI pinned for the tests: an npm package at a version,
// installed into a cache folder of its own, and the program it provides.
type Pin struct {
	Name    string // the cache folder's name, and the banner's
	Package string // the npm package
	Version string
	Bin     string // the program in node_modules/.bin
}

// The pinned CLIs. HARNESS.md's facts (endpoints, streams, permission
// files, output) were checked against these versions.
var (
	Claude = Pin{Name: "claude-code", Package: Package, Version: Version, Bin: "claude"}
	Codex  = Pin{Name: "codex", Package: "@openai/codex", Version: "0.171.0", Bin: "codex"}
	Gemini = Pin{Name: "gemini-cli", Package: "@google/gemini-cli", Version: "0.61.0", Bin: "gemini"}
	// Pins are every pinned CLI, in the order `make agent-clis` installs them.
	Pins = []Pin{Claude, Codex, Gemini}
)

// Dir is the folder that holds (or will hold) the pinned version.
// $PROOFLOOP_CLAUDE_CACHE moves Claude Code's cache, as before.
func (p Pin) Dir() (string, error) {
	base := ""
	if p.Name == Claude.Name {
		base = os.Getenv(CacheEnv)
	}
	if base == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("%s cache: %w", p.Name, err)
		}
		base = filepath.Join(c, "proofloop", p.Name)
	}
	return filepath.Join(base, p.Version), nil
}

// binIn is the CLI inside an npm install folder.
func (p Pin) binIn(dir string) string { return filepath.Join(dir, "node_modules", ".bin", p.Bin) }

// Find returns the path of the pinned CLI when it is installed. A folder
// only appears under its final name once npm finished, so a found CLI is a
// whole one.
func (p Pin) Find() (string, error) {
	dir, err := p.Dir()
	if err != nil {
		return "", err
	}
	bin := p.binIn(dir)
	if fi, err := os.Stat(bin); err != nil || fi.Mode()&0o111 == 0 {
		return "", fmt.Errorf("%s %s is not installed in %s", p.Name, p.Version, dir)
	}
	return bin, nil
}

// Install returns the pinned CLI, installing it with `npm install` first
// when it is missing. Concurrent installers (two test packages at once)
// take turns on a lock file beside the cache folder; the install goes to a
// temp folder that is renamed into place when npm is done.
func (p Pin) Install(ctx context.Context) (string, error) {
	if bin, err := p.Find(); err == nil {
		return bin, nil
	}
	dir, err := p.Dir()
	if err != nil {
		return "", err
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("%s cache: %w", p.Name, err)
	}
	lock, err := os.OpenFile(filepath.Join(parent, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", fmt.Errorf("%s cache: %w", p.Name, err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", fmt.Errorf("%s cache lock: %w", p.Name, err)
	}
	if bin, err := p.Find(); err == nil {
		return bin, nil // another installer finished while we waited
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("install %s %s: no npm on PATH", p.Name, p.Version)
	}
	tmp, err := os.MkdirTemp(parent, p.Version+".partial-")
	if err != nil {
		return "", fmt.Errorf("%s cache: %w", p.Name, err)
	}
	defer os.RemoveAll(tmp) // gone after the rename; a failed install's leftovers otherwise
	cmd := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--loglevel=error",
		"--prefix", tmp, p.Package+"@"+p.Version)
	cmd.Dir = tmp
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("npm install %s@%s: %w\n%s", p.Package, p.Version, err, tail(out, 2000))
	}
	if _, err := os.Stat(p.binIn(tmp)); err != nil {
		return "", fmt.Errorf("npm install %s@%s gave no node_modules/.bin/%s", p.Package, p.Version, p.Bin)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return "", fmt.Errorf("%s cache: %w", p.Name, err)
	}
	return p.Find()
}

// Dir, Find and Install are Claude Code's, as before the other pins.
func Dir() (string, error)                        { return Claude.Dir() }
func Find() (string, error)                       { return Claude.Find() }
func Install(ctx context.Context) (string, error) { return Claude.Install(ctx) }

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
func Banner(err error) { Claude.Banner(err) }

// Banner says loudly on stderr that the tests of this CLI will not run.
func (p Pin) Banner(err error) {
	line := strings.Repeat("!", 72)
	fmt.Fprintf(os.Stderr, "%s\n!!! NO %s CLI: %v\n!!! The tests of the real %s harness will be SKIPPED (set %s=1 to fail instead).\n%s\n",
		line, strings.ToUpper(p.Name), err, p.Name, RequireEnv, line)
}

// tried remembers each pin's one try per process.
var tried sync.Map // Pin.Name -> *try

type try struct {
	once    sync.Once
	found   string
	missing error
}

// Require returns the pinned CLI, installing it when it is missing. When it
// cannot be had, it prints the banner and skips the test, or fails it when
// $PROOFLOOP_CLAUDE_REQUIRED is set. One process tries once per CLI.
func (p Pin) Require(t testing.TB) string {
	t.Helper()
	v, _ := tried.LoadOrStore(p.Name, &try{})
	tr := v.(*try)
	tr.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		tr.found, tr.missing = p.Install(ctx)
		if tr.missing != nil {
			p.Banner(tr.missing)
		}
	})
	if tr.missing != nil {
		if os.Getenv(RequireEnv) != "" {
			t.Fatalf("no %s CLI, and %s is set: %v", p.Name, RequireEnv, tr.missing)
		}
		t.Skipf("no %s CLI %s (see the banner above): %v", p.Name, p.Version, tr.missing)
	}
	return tr.found
}

// Require is Claude.Require.
func Require(t testing.TB) string { return Claude.Require(t) }

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
