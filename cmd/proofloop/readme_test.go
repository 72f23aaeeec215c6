package main

// The README's and the docs' commands are tested, so that what a new user
// pastes works. The convention for fenced blocks in README.md and in every
// docs/*.md (docFiles):
//
//   - ```sh: commands that run without a model. TestReadmeCommands runs
//     every sh block of each file, in the file's order, each in a fresh
//     `bash -e -o pipefail` that starts at the top of a scratch copy of the
//     checkout, with that copy's bin/proofloop first on PATH, HOME a fresh
//     folder, and no PROOFLOOP_* variable set. A block must work on its
//     own (a reader may paste one section alone); files it leaves stay for
//     the next block (of the same file: each file gets its own copy). A
//     failing command fails the test, naming its file and line.
//   - ```console: commands a reader types but the test does not run: they
//     need a model, run the test suite itself (make test), or write to the
//     reader's own shell files.
//   - ```text: output, a usage line, a folder layout; never run.
//   - ```json WHAT: every json block says what it holds, and is checked:
//     `json config`, `json problem`, `json statement`, `json event` and
//     `json lease` are validated against schemas/WHAT.schema.json;
//     `json output` holds --json results, one per line. An agent command
//     in a config block that starts Claude Code (`claude ...`) must pass
//     its prompt as its own argument (TestReadmeClaudeCommands).
//
// A fence with no info string is refused, so a new block has to choose.
// contents/README.md follows the same rules for its json blocks.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/schemas"
	"github.com/proofloop/proofloop/skills"
	"github.com/proofloop/proofloop/store"
)

// block is one fenced block of a Markdown file.
type block struct {
	Info []string // the info string's words: ["json", "config"]
	Line int      // the line of its first body line
	Body string
}

// fencedBlocks returns every block fenced with ``` at the start of a line.
func fencedBlocks(t *testing.T, file string) []block {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []block
	var cur *block
	var body []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			cur = &block{Info: strings.Fields(strings.TrimPrefix(line, "```")), Line: n + 1}
			body = nil
		case cur != nil && strings.TrimSpace(line) == "```":
			cur.Body = strings.Join(body, "\n")
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			body = append(body, line)
		}
	}
	if cur != nil {
		t.Fatalf("%s: the block opened at line %d is never closed", file, cur.Line-1)
	}
	return out
}

var blockKinds = []string{"sh", "console", "text", "json"}

// docFiles returns README.md and every docs/*.md, the files whose blocks
// follow the convention above, as paths from this package's folder.
func docFiles(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) == 0 {
		t.Fatal("no docs/*.md: the README's topics live there")
	}
	slices.Sort(docs)
	return append([]string{"../../README.md"}, docs...)
}

// name is a doc file's path from the top of the checkout.
func docName(file string) string { return strings.TrimPrefix(file, "../../") }

func TestReadmeBlocksDeclareTheirKind(t *testing.T) {
	for _, file := range append(docFiles(t), "../../contents/README.md") {
		for _, b := range fencedBlocks(t, file) {
			if len(b.Info) == 0 || !slices.Contains(blockKinds, b.Info[0]) {
				t.Errorf("%s:%d: a block fenced %q; fence it ```sh (run by the test), ```console, ```text or ```json WHAT (see readme_test.go)",
					file, b.Line-1, strings.Join(b.Info, " "))
			}
		}
	}
}

// TestReadmeCommands runs the sh blocks of README.md and of every
// docs/*.md as the convention above says, each file in a scratch copy of
// its own.
func TestReadmeCommands(t *testing.T) {
	for _, tool := range []string{"bash", "git", "make", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: %v", tool, err)
		}
	}
	files := docFiles(t)
	for _, file := range files {
		n := 0
		for _, b := range fencedBlocks(t, file) {
			if b.Info[0] == "sh" {
				n++
			}
		}
		if file == "../../README.md" && n < 4 {
			t.Fatalf("README.md has %d sh blocks; want the install, demo, first-proof and real-agent ones at least", n)
		}
	}
	built := scratchCheckout(t)
	build := exec.Command("go", "build", "-o", filepath.Join("bin", "proofloop"), "./cmd/proofloop")
	build.Dir = built
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build in the copy: %v\n%s", err, out)
	}
	bin, err := os.ReadFile(filepath.Join(built, "bin", "proofloop"))
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		var blocks []block
		for _, b := range fencedBlocks(t, file) {
			if b.Info[0] == "sh" {
				blocks = append(blocks, b)
			}
		}
		if len(blocks) == 0 {
			continue
		}
		name := docName(file)
		t.Run(name, func(t *testing.T) {
			copyDir := built
			if file != files[0] {
				copyDir = scratchCheckout(t)
				writeFile(t, filepath.Join(copyDir, "bin", "proofloop"), bin, 0o755)
			}
			env := readmeEnv(t, copyDir)
			for _, b := range blocks {
				// The script keeps each command on its file's line, so that
				// bash's LINENO in the error trap is the file's line number.
				script := strings.Repeat("\n", b.Line-1) + b.Body + "\n"
				trap := `trap 'echo "` + name + `:$LINENO: exit $?" >&2' ERR` + "\n"
				cmd := exec.Command("bash", "-e", "-o", "pipefail", "-c", trap+script[1:])
				cmd.Dir, cmd.Env = copyDir, env
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Errorf("%s block at line %d failed: %v\n%s", name, b.Line, err, out)
				}
			}
		})
	}
}

func writeFile(t *testing.T, path string, data []byte, perm os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, perm); err != nil {
		t.Fatal(err)
	}
}

// scratchCheckout copies the checkout's files (tracked, and new ones git
// does not ignore; the working tree's content, so uncommitted edits count)
// to a temporary folder.
func scratchCheckout(t *testing.T) string {
	t.Helper()
	top, err := filepath.Abs(repoTop)
	if err != nil {
		t.Fatal(err)
	}
	ls := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	ls.Dir = top
	out, err := ls.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	dst := filepath.Join(t.TempDir(), "checkout")
	for _, rel := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		src := filepath.Join(top, rel)
		fi, err := os.Lstat(src)
		if err != nil || !fi.Mode().IsRegular() {
			continue // deleted in the working tree, or not a file
		}
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// readmeEnv is the environment of a reader's shell: the copy's bin first on
// PATH, the go command found, a fresh HOME (so `make install` puts the
// binary in $HOME/go/bin), the Go caches and settings of this run kept so
// nothing is downloaded again, and no PROOFLOOP_* variable.
func readmeEnv(t *testing.T, copyDir string) []string {
	t.Helper()
	goEnv := map[string]string{}
	for _, k := range []string{"GOMODCACHE", "GOCACHE", "GOENV", "GOROOT"} {
		out, err := exec.Command("go", "env", k).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", k, err)
		}
		goEnv[k] = strings.TrimSpace(string(out))
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "PROOFLOOP_") || k == "PATH" || k == "HOME" || k == "GOPATH" || k == "GOBIN" {
			continue
		}
		env = append(env, kv)
	}
	home := t.TempDir()
	path := strings.Join([]string{filepath.Join(copyDir, "bin"), filepath.Join(goEnv["GOROOT"], "bin"), os.Getenv("PATH")}, string(os.PathListSeparator))
	env = append(env, "PATH="+path, "HOME="+home, "CGO_ENABLED=0")
	for k, v := range goEnv {
		env = append(env, k+"="+v)
	}
	return env
}

// TestReadmeJSONBlocks checks every json block of README.md, docs/*.md and
// contents/README.md: a document against its schema, an output line by
// line.
func TestReadmeJSONBlocks(t *testing.T) {
	kinds := map[string]schemas.Kind{}
	for _, k := range schemas.Kinds() {
		kinds[string(k)] = k
	}
	checked := 0
	for _, file := range append(docFiles(t), "../../contents/README.md") {
		for _, b := range fencedBlocks(t, file) {
			if b.Info[0] != "json" {
				continue
			}
			checked++
			where := fmt.Sprintf("%s:%d", file, b.Line)
			if len(b.Info) != 2 {
				t.Errorf("%s: a json block must say what it holds: ```json output, or a schema (config, problem, statement, event, lease)", where)
				continue
			}
			if b.Info[1] == "output" {
				for i, line := range strings.Split(strings.TrimSpace(b.Body), "\n") {
					var v map[string]any
					if err := json.Unmarshal([]byte(line), &v); err != nil {
						t.Errorf("%s, line %d: not a JSON object: %v", where, i+1, err)
					} else if _, ok := v["ok"].(bool); !ok || v["command"] == nil {
						t.Errorf("%s, line %d: a --json result has ok and command: %s", where, i+1, line)
					}
				}
				continue
			}
			k, ok := kinds[b.Info[1]]
			if !ok {
				t.Errorf("%s: ```json %s names no schema", where, b.Info[1])
				continue
			}
			if err := schemas.Validate(k, []byte(b.Body)); err != nil {
				t.Errorf("%s: the %s example does not pass schemas/%s: %v", where, k, k.FileName(), err)
			}
		}
	}
	if checked < 3 {
		t.Errorf("checked %d json blocks; want README's output and config examples and contents/README's documents", checked)
	}
}

// TestReadmeClaudeCommands runs each agent command of a config block that
// starts Claude Code, with a stand-in `claude` that records its arguments,
// and checks that the prompt arrives as the last argument of its own, with
// $PROOFLOOP_ID expanded, and not swallowed by a variadic flag; that the
// tools allowed are proofloop's and Read, never a blanket Bash; that the
// command is skills.ClaudeAgentCommand's (what gen-claude prints and
// e2e/harness runs through the real CLI); and that such a block
// configures all four proof roles.
func TestReadmeClaudeCommands(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs sh")
	}
	dir := t.TempDir()
	argsFile := filepath.Join(dir, "args")
	fake := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done > " + argsFile + "\n"
	if err := os.WriteFile(filepath.Join(dir, "claude"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, file := range docFiles(t) {
		for _, b := range fencedBlocks(t, file) {
			if len(b.Info) != 2 || b.Info[0] != "json" || b.Info[1] != "config" {
				continue
			}
			var list struct {
				Agents store.AgentTable `json:"agents"`
			}
			if err := json.Unmarshal([]byte(b.Body), &list); err != nil {
				t.Fatalf("%s:%d: %v", docName(file), b.Line, err)
			}
			cfg := struct{ Agents map[string]string }{map[string]string{}}
			for _, role := range list.Agents.Keys() {
				protocol, name, nested := strings.Cut(role, ".")
				if !nested {
					protocol, name = "", role
				}
				agents, _ := list.Agents.For(protocol, name)
				for i, a := range agents {
					key := role // the first agent of a role stands for the role
					if i > 0 {
						key = fmt.Sprintf("%s#%d", role, i)
					}
					cfg.Agents[key] = a.Command
				}
			}
			claudeRoles := 0
			for _, r := range skills.ClaudeRoles {
				if strings.HasPrefix(cfg.Agents[string(r)], "claude ") {
					claudeRoles++
				}
			}
			if claudeRoles > 0 && claudeRoles < len(skills.ClaudeRoles) {
				t.Errorf("%s:%d configures %d of the %d proof roles with Claude Code; a project with one role unset is stuck at once", docName(file), b.Line, claudeRoles, len(skills.ClaudeRoles))
			}
			for role, line := range cfg.Agents {
				if !strings.HasPrefix(line, "claude ") {
					continue
				}
				n++
				cmd := exec.Command("sh", "-c", line)
				cmd.Env = append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"), "PROOFLOOP_ID=stmt_x_wrap")
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%s:%d agents.%s: %v\n%s", docName(file), b.Line, role, err, out)
				}
				raw, _ := os.ReadFile(argsFile)
				args := strings.Split(strings.TrimSuffix(string(raw), "\x00"), "\x00")
				for _, a := range args {
					if a == "--allowedTools" || a == "--allowed-tools" {
						t.Errorf("%s:%d agents.%s passes %s with a space: Claude Code then reads the prompt as one more tool; write %s=Bash,Read", docName(file), b.Line, role, a, a)
					}
					if tools, ok := strings.CutPrefix(a, "--allowedTools="); ok && slices.Contains(strings.Split(tools, ","), "Bash") {
						t.Errorf("%s:%d agents.%s allows %s: a blanket Bash hands the agent a shell; allow Bash(proofloop:*)", docName(file), b.Line, role, a)
					}
				}
				if want := skills.ClaudeAgentCommand(model.Role(role)); line != want {
					t.Errorf("%s:%d agents.%s = %s\nwant skills.ClaudeAgentCommand's %s", docName(file), b.Line, role, line, want)
				}
				if last := args[len(args)-1]; strings.HasPrefix(last, "-") || !strings.Contains(last, "stmt_x_wrap") {
					t.Errorf("%s:%d agents.%s: the last argument is %q; want the prompt, naming $PROOFLOOP_ID", docName(file), b.Line, role, last)
				}
			}
		}
	}
	if n == 0 {
		t.Errorf("neither README.md nor docs/ shows a Claude Code agent command in a ```json config block")
	}
}

// TestDocLinks checks that every relative link of README.md and docs/*.md
// names a file of the checkout, so that moving a topic cannot leave a
// link behind. An anchor (#...) is not checked; an URL is not followed.
func TestDocLinks(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, file := range docFiles(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(data), -1) {
			target, _, _ := strings.Cut(m[1], "#")
			if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(file), target)); err != nil {
				t.Errorf("%s links to %s, which does not exist", docName(file), m[1])
			}
		}
	}
}

// TestReadmeIsAQuickStart keeps README.md a quick start of at most 150
// lines, with statuses and the status notation defined before the first
// `proofloop status`, and an index that links every docs/*.md: a topic
// grows in its own file, not in the README.
func TestReadmeIsAQuickStart(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	// The quick start and the scripted checkers' figures (issue 33) keep
	// to 173 lines, besides the summary of make bench's figures that
	// bench/tabulate writes into it (issue 38).
	const start, end = "<!-- make bench's summary:", "<!-- end of make bench's summary -->"
	quick := text
	if i, j := strings.Index(text, start), strings.Index(text, end); i >= 0 && j > i {
		quick = text[:i] + text[j+len(end):]
	} else {
		t.Errorf("README.md has no summary of make bench between %q and %q", start, end)
	}
	if n := strings.Count(quick, "\n"); n > 173 {
		t.Errorf("README.md has %d lines besides make bench's summary; the quick start keeps to 173: move a topic to docs/<topic>.md", n)
	}
	defined, used := strings.Index(text, "**Statuses.**"), strings.Index(text, "proofloop status\n")
	if defined < 0 || used < 0 || defined > used || !strings.Contains(text[:used], "[status]") {
		t.Errorf("README.md uses `proofloop status` (at %d) before it defines the statuses (at %d) and the [status] notation", used, defined)
	}
	for _, f := range docFiles(t)[1:] {
		if link := "](" + docName(f) + ")"; !strings.Contains(text, link) {
			t.Errorf("README.md's index does not link %s", docName(f))
		}
	}
}
