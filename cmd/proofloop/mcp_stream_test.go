package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/proofloop/proofloop/internal/watchtest"
)

// rawServer is `proofloop mcp` spoken to line by line, as a client's
// transport does, with its replies collected by id.
type rawServer struct {
	t       *testing.T
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	replies chan map[string]any
	exited  chan error
}

func startRaw(t *testing.T, root string, extra ...string) *rawServer {
	t.Helper()
	cmd := exec.Command(cliBin(t), append([]string{"mcp", "--root", root}, extra...)...)
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
	s := &rawServer{t: t, cmd: cmd, stdin: stdin, replies: make(chan map[string]any, 100), exited: make(chan error, 1)}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<26)
		for sc.Scan() {
			var msg map[string]any
			if json.Unmarshal(sc.Bytes(), &msg) == nil {
				s.replies <- msg
			}
		}
		close(s.replies)
		s.exited <- cmd.Wait()
	}()
	t.Cleanup(func() { cmd.Process.Kill() })
	return s
}

func (s *rawServer) send(lines ...string) {
	s.t.Helper()
	for _, l := range lines {
		if _, err := s.stdin.Write([]byte(l + "\n")); err != nil {
			s.t.Fatalf("write %.80s: %v", l, err)
		}
	}
}

// next returns the next message the server writes, or fails after d.
func (s *rawServer) next(d time.Duration) map[string]any {
	s.t.Helper()
	select {
	case m, ok := <-s.replies:
		if !ok {
			s.t.Fatalf("the server ended its output; want another message")
		}
		return m
	case <-time.After(d):
		s.t.Fatalf("no message from the server within %v", d)
	}
	return nil
}

const rawInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// TestMCPBadLinesKeepServing (E1): a line that is not JSON, JSON that is
// not a JSON-RPC message, and a line over the size limit each get a
// JSON-RPC error (with the id when it can be read), and the server keeps
// serving: the requests before and after them are answered, and it exits
// 0 when its input ends.
func TestMCPBadLinesKeepServing(t *testing.T) {
	root := newRoot(t)
	if code, _, stderr := mcpCLI(t, root, "config", "set", "max_input_bytes", "1024"); code != 0 {
		t.Fatalf("config set: %s", stderr)
	}
	s := startRaw(t, root)
	status := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"status","arguments":{}}}`
	}
	long := `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"new_problem","arguments":{"name":"big","objective":"` +
		strings.Repeat("x", 200_000) + `"}}}`
	s.send(rawInit, `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"status"`, // cut short
		status("3"),
		`{"hello": "world"}`,
		`[]`,
		long,
		status("7"),
		`not json at all`)
	s.stdin.Close()
	want := map[string]float64{"1": 0, "2": -32700, "3": 0, "null": -32600, "6": -32700, "7": 0}
	got := map[string]float64{}
	nulls := 0
	for range 8 {
		m := s.next(2 * time.Minute)
		id, _ := json.Marshal(m["id"])
		code := 0.0
		if e, ok := m["error"].(map[string]any); ok {
			code, _ = e["code"].(float64)
		} else if m["result"] == nil {
			t.Errorf("message %v is neither a result nor an error", m)
		}
		if string(id) == "null" {
			nulls++
			continue
		}
		got[string(id)] = code
	}
	for id, code := range want {
		if id == "null" {
			continue
		}
		if c, ok := got[id]; !ok || c != code {
			t.Errorf("reply to id %s: code %v (present %v); want %v (0: a result)", id, c, ok, code)
		}
	}
	if nulls != 3 {
		t.Errorf("%d errors with id null; want 3 (the object that is no message, the empty batch, the line that is not JSON)", nulls)
	}
	select {
	case err := <-s.exited:
		if err != nil {
			t.Errorf("proofloop mcp after its input ended: %v; want exit 0", err)
		}
	case <-time.After(time.Minute):
		t.Errorf("proofloop mcp did not exit after its input ended")
	}
	if code, _, _ := mcpCLI(t, root, "show", "prob_big"); code != 3 {
		t.Errorf("show prob_big: exit %d; want 3, the oversized call not run", code)
	}
}

// TestMCPWaitRunsBeside (W7): a debate_wait does not hold up the server's
// other calls, and a notifications/cancelled ends it: the server then has
// nothing pending and exits as soon as its input ends (the wait's own
// timeout is ten minutes).
func TestMCPWaitRunsBeside(t *testing.T) {
	root := newRoot(t)
	for _, args := range [][]string{
		{"debate", "start", "--protocol", "dialectic", "--topic", "Tabs"},
		{"debate", "join", "deb_tabs", "--participant-name", "alice", "--actor", "alice"},
		{"debate", "join", "deb_tabs", "--participant-name", "bob", "--actor", "bob"},
	} {
		if code, _, stderr := mcpCLI(t, root, args...); code != 0 {
			t.Fatalf("%v: %s", args, stderr)
		}
	}
	s := startRaw(t, root)
	s.send(rawInit, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if m := s.next(time.Minute); m["id"] != 1.0 {
		t.Fatalf("initialize: %v", m)
	}
	// p2 waits: it is p1's turn.
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"debate_wait","arguments":{"id":"deb_tabs","participant_id":"p2","timeout":"10m"}}}`)
	watchtest.Wait(t, 1, "", s.cmd.Process.Pid) // the turn below is what ends the wait
	s.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"status","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"debate_turn","arguments":{"id":"deb_tabs","participant_id":"p1","body":"Spaces.","actor":"alice"}}}`)
	got := map[float64]map[string]any{}
	for len(got) < 3 {
		m := s.next(time.Minute) // a held-up call fails here
		got[m["id"].(float64)] = m
	}
	if r, _ := got[4]["result"].(map[string]any); r == nil || r["isError"] == true {
		t.Errorf("debate_turn beside the wait = %v; want a result", got[4])
	}
	if r, _ := got[2]["result"].(map[string]any); r == nil || r["isError"] == true {
		t.Errorf("debate_wait after p1's turn = %v; want it ended with p2's turn", got[2])
	}
	// Now p1 waits for p2, and the client cancels the wait.
	s.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"debate_wait","arguments":{"id":"deb_tabs","participant_id":"p1","timeout":"10m"}}}`)
	watchtest.Wait(t, 1, "", s.cmd.Process.Pid) // the wait is under way when cancelled
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"the user pressed stop"}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"status","arguments":{}}}`)
	s.stdin.Close()
	start := time.Now()
	select {
	case err := <-s.exited:
		if err != nil {
			t.Errorf("proofloop mcp: %v; want exit 0", err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatalf("proofloop mcp still runs 2 minutes after its input ended: the cancelled wait did not end")
	}
	t.Logf("exited %v after its input ended", time.Since(start).Round(time.Millisecond))
}
