package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/proofloop/proofloop/skills"
)

// The MCP tests drive `proofloop mcp` as a separate process, as clients do.
// The binary is the copy of this test binary that TestMain (testscript)
// puts first on PATH as "proofloop": it runs main's run(), so it is the
// real CLI without a second build.

// cliBin finds that binary.
func cliBin(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("proofloop")
	if err != nil || !strings.Contains(bin, "testscript-main") {
		t.Fatalf("proofloop on PATH = %q, %v; want the copy TestMain installs", bin, err)
	}
	return bin
}

// testCtx bounds a test as hang protection only.
func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func cliEnv() []string {
	return append(os.Environ(), "PROOFLOOP_ROOT=", "PROOFLOOP_ACTOR=", "PROOFLOOP_LEASE=", "PROOFLOOP_LOCK_TIMEOUT=", "PROOFLOOP_ROLE=")
}

// newRoot makes an empty contents root.
func newRoot(t testing.TB) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "contents")
	if code, _, stderr := mcpCLI(t, root, "init"); code != 0 {
		t.Fatalf("init: exit %d: %s", code, stderr)
	}
	return root
}

// runCLI runs the binary with --root and --json and returns the exit code,
// the JSON object it printed and its stderr.
func mcpCLI(t testing.TB, root string, args ...string) (int, map[string]any, string) {
	t.Helper()
	cmd := exec.Command(cliBin(t), append([]string{"--root", root, "--json"}, args...)...)
	cmd.Env = cliEnv()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("proofloop %v: %v", args, err)
	}
	var obj map[string]any
	if out.Len() > 0 {
		if err := json.Unmarshal(out.Bytes(), &obj); err != nil {
			t.Fatalf("proofloop %v: stdout is not one JSON object: %v\n%s", args, err, out.Bytes())
		}
	}
	return code, obj, errb.String()
}

// connect starts `proofloop mcp` on root and returns a client session on it.
func connect(t testing.TB, root string, opts *mcp.ClientOptions, extra ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(cliBin(t), append([]string{"mcp", "--root", root, "--actor", "mcp-server"}, extra...)...)
	cmd.Env = cliEnv()
	cl := mcp.NewClient(&mcp.Implementation{Name: "proofloop-test", Version: "1"}, opts)
	cs, err := cl.Connect(testCtx(t), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to proofloop mcp: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and returns its result and structured content. A
// protocol error fails the test: refusals must be tool results.
func call(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, map[string]any) {
	t.Helper()
	res, err := cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s: protocol error %v; want a tool result", name, err)
	}
	obj, _ := res.StructuredContent.(map[string]any)
	if obj == nil {
		t.Fatalf("tools/call %s: structuredContent = %#v; want the CLI's JSON object", name, res.StructuredContent)
	}
	return res, obj
}

func errorCode(obj map[string]any) string {
	e, _ := obj["error"].(map[string]any)
	s, _ := e["code"].(string)
	return s
}

// TestMCPToolsMatchRegistry checks tools/list against skills.Registry: a
// tool per skill with every parameter, its type, enum and required flag,
// and nothing else but actor, lease and expect_revision; the loop commands
// of the issue are tools, the hidden ones are not.
func TestMCPToolsMatchRegistry(t *testing.T) {
	cs := connect(t, newRoot(t), nil)
	res, err := cs.ListTools(testCtx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		tools[tl.Name] = tl
	}
	wantType := map[skills.ParamType]string{
		skills.TypeRef: "string", skills.TypeText: "string", skills.TypeTexts: "array", skills.TypeInt: "integer",
		skills.TypeInts: "array", skills.TypeEnum: "string", skills.TypeRange: "string", skills.TypeSubs: "array",
	}
	for _, sk := range skills.Registry {
		name := strings.ReplaceAll(sk.Name, "-", "_")
		tl, ok := tools[name]
		if !ok {
			t.Errorf("tools/list has no %s", name)
			continue
		}
		if !strings.HasPrefix(tl.Description, sk.Purpose) {
			t.Errorf("%s description = %q; want it to start with the registry's purpose %q", name, tl.Description, sk.Purpose)
		}
		schema := tl.InputSchema.(map[string]any)
		props := schema["properties"].(map[string]any)
		var want, gotReq, wantReq []string
		for _, p := range sk.Params {
			want = append(want, p.Name)
			if p.Required {
				wantReq = append(wantReq, p.Name)
			}
			prop, ok := props[p.Name].(map[string]any)
			if !ok {
				t.Errorf("%s has no parameter %s", name, p.Name)
				continue
			}
			if prop["type"] != wantType[p.Type] {
				t.Errorf("%s.%s type = %v; want %s", name, p.Name, prop["type"], wantType[p.Type])
			}
			var enum []string
			for _, e := range asSlice(prop["enum"]) {
				enum = append(enum, e.(string))
			}
			if !slices.Equal(enum, p.Enum) {
				t.Errorf("%s.%s enum = %v; want %v", name, p.Name, enum, p.Enum)
			}
			if prop["description"] == "" || prop["description"] == nil {
				t.Errorf("%s.%s has no description", name, p.Name)
			}
		}
		want = append(want, "actor", "lease", "expect_revision")
		var got []string
		for k := range props {
			got = append(got, k)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s parameters = %v; want %v", name, got, want)
		}
		for _, r := range asSlice(schema["required"]) {
			gotReq = append(gotReq, r.(string))
		}
		slices.Sort(gotReq)
		slices.Sort(wantReq)
		if !slices.Equal(gotReq, wantReq) {
			t.Errorf("%s required = %v; want %v", name, gotReq, wantReq)
		}
		if schema["additionalProperties"] != false {
			t.Errorf("%s additionalProperties = %v; want false", name, schema["additionalProperties"])
		}
		if a := tl.Annotations; a == nil || a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint {
			t.Errorf("%s annotations = %+v; want a writer that is not destructive", name, a)
		}
	}
	for _, name := range append([]string{"decide", "status", "next", "claim", "refresh", "release", "show", "list", "events"}, skills.MCPLoopTools...) {
		if _, ok := tools[name]; !ok {
			t.Errorf("tools/list has no %s", name)
		}
	}
	for _, name := range []string{"mcp", "run", "init", "completion", "gen_claude", "help", "version"} {
		if _, ok := tools[name]; ok {
			t.Errorf("tools/list has %s; it must not be a tool", name)
		}
	}
	for name, ro := range map[string]bool{"status": true, "show": true, "list": true, "events": true, "next": false, "claim": false, "release": false} {
		if a := tools[name].Annotations; a == nil || a.ReadOnlyHint != ro {
			t.Errorf("%s readOnlyHint = %+v; want %v", name, a, ro)
		}
	}
	if !tools["release"].Annotations.IdempotentHint || tools["refresh"].Annotations.IdempotentHint {
		t.Errorf("idempotentHint: release %v, refresh %v; want true, false",
			tools["release"].Annotations.IdempotentHint, tools["refresh"].Annotations.IdempotentHint)
	}
	if _, ok := tools["events"].InputSchema.(map[string]any)["properties"].(map[string]any)["follow"]; ok {
		t.Errorf("events offers follow; a tool call must return")
	}
	if p, _ := tools["claim"].InputSchema.(map[string]any)["required"].([]any); !slices.Contains(p, any("id")) {
		t.Errorf("claim required = %v; want id among them", p)
	}
}

func asSlice(v any) []any { s, _ := v.([]any); return s }

// TestMCPRawJSONRPC writes JSON-RPC lines to `proofloop mcp` while keeping
// its stdin open, as clients do, checks each reply, and then checks that it
// exits 0 once stdin closes.
func TestMCPRawJSONRPC(t *testing.T) {
	root := newRoot(t)
	if code, _, stderr := mcpCLI(t, root, "new-problem", "--name", "raw", "--objective", "Show it."); code != 0 {
		t.Fatalf("new-problem: exit %d: %s", code, stderr)
	}
	cmd := exec.Command(cliBin(t), "mcp", "--root", root)
	cmd.Env = cliEnv()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	dec := json.NewDecoder(stdout)
	send := func(line string) {
		t.Helper()
		if _, err := stdin.Write([]byte(line + "\n")); err != nil {
			t.Fatalf("write %s: %v", line, err)
		}
	}
	reply := func(id int) map[string]any {
		t.Helper()
		var msg map[string]any
		if err := dec.Decode(&msg); err != nil {
			t.Fatalf("reading the reply to request %d: %v", id, err)
		}
		if msg["id"] != float64(id) || msg["error"] != nil {
			t.Fatalf("reply = %v; want the result of request %d", msg, id)
		}
		return msg["result"].(map[string]any)
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	init := reply(1)
	if info := init["serverInfo"].(map[string]any); info["name"] != "proofloop" {
		t.Errorf("serverInfo = %v; want name proofloop", info)
	}
	if caps := init["capabilities"].(map[string]any); caps["tools"] == nil || caps["prompts"] == nil || caps["resources"] == nil {
		t.Errorf("capabilities = %v; want tools, prompts and resources", caps)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if n := len(reply(2)["tools"].([]any)); n < len(skills.Registry)+9 {
		t.Errorf("tools/list has %d tools; want at least the %d skills and 9 loop commands", n, len(skills.Registry))
	}
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"show","arguments":{"ids":["prob_raw"]}}}`)
	res := reply(3)
	sc := res["structuredContent"].(map[string]any)
	if res["isError"] == true || sc["ok"] != true || sc["id"] != "prob_raw" || sc["status"] != "pending" {
		t.Errorf("show prob_raw = %v; want ok, id prob_raw, status pending", res)
	}
	send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"prob_finish_up","arguments":{"problem_path":"prob_raw","key_statement_id":"stmt_nope","resolution":"x"}}}`)
	res = reply(4)
	if res["isError"] != true || errorCode(res["structuredContent"].(map[string]any)) == "" {
		t.Errorf("prob_finish_up with an unknown key statement = %v; want isError with an error code", res)
	}
	// The last request's reply must come while stdin is still open.
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("proofloop mcp after stdin closed: %v; want exit 0", err)
	}
}

// TestMCPRepliesBeforeEOF writes every request and closes stdin at once,
// as `printf ... | proofloop mcp` does: each request still gets its reply
// before the server exits 0.
func TestMCPRepliesBeforeEOF(t *testing.T) {
	root := newRoot(t)
	cmd := exec.Command(cliBin(t), "mcp", "--root", root)
	cmd.Env = cliEnv()
	var lines []string
	lines = append(lines, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"eof","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i := 2; i <= 6; i++ {
		lines = append(lines, `{"jsonrpc":"2.0","id":`+string(rune('0'+i))+`,"method":"tools/call","params":{"name":"status","arguments":{}}}`)
	}
	cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("proofloop mcp: %v; want exit 0", err)
	}
	got := map[float64]bool{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var msg struct {
			ID     float64
			Result map[string]any
		}
		if err := dec.Decode(&msg); err != nil {
			t.Fatalf("stdout: %v\n%s", err, out)
		}
		if msg.Result != nil {
			got[msg.ID] = true
		}
	}
	for id := 1; id <= 6; id++ {
		if !got[float64(id)] {
			t.Errorf("no result for request %d before exit; stdout:\n%s", id, out)
		}
	}
}
