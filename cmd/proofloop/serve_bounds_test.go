package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/proofloop/proofloop/internal/watchtest"
)

// The serve process and the commands beside it run as processes of their
// own (the binary testscript put on PATH), so that what serve holds
// (inotify instances, database connections) is counted on its own.

// served is a running `proofloop serve`.
type served struct {
	cmd    *exec.Cmd
	url    string // http://127.0.0.1:PORT
	port   string
	stderr *lockedBuffer
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startServe starts `proofloop serve --addr 127.0.0.1:0 ARGS` and stops it
// (SIGINT, exit 0) when the test ends.
func startServe(t *testing.T, env []string, args ...string) *served {
	t.Helper()
	cmd := exec.Command("proofloop", append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = env
	sv := &served{cmd: cmd, stderr: &lockedBuffer{}}
	cmd.Stderr = sv.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	m := regexp.MustCompile(`at (http://127\.0\.0\.1:([0-9]+))/ `).FindStringSubmatch(line)
	if err != nil || m == nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("serve printed %q (%v), stderr %q; want where it listens", line, err, sv.stderr)
	}
	sv.url, sv.port = m[1], m[2]
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGINT)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve ended with %v on SIGINT; want exit 0\n%s", err, sv.stderr)
			}
		case <-time.After(time.Minute): // hang protection only
			cmd.Process.Kill()
			t.Errorf("serve did not stop on SIGINT")
		}
	})
	return sv
}

// get sends GET path to sv with the Host header host ("" for the URL's).
func (sv *served) get(t *testing.T, host, path string) (int, string, http.Header) {
	t.Helper()
	req, _ := http.NewRequest("GET", sv.url+path, nil)
	if host != "" {
		req.Host = host
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

// plEnv runs the binary with env and fails the test unless it exits 0.
func plEnv(t *testing.T, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("proofloop", args...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("proofloop %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// storeEnv is the environment of a fresh store (the file store for dsn "") with a debate of two
// seated participants (p1 main, p2 partner).
func storeEnv(t *testing.T, dsn string) []string {
	t.Helper()
	env := append(os.Environ(), "PROOFLOOP_ROOT="+filepath.Join(t.TempDir(), "contents"), "PROOFLOOP_STORE="+dsn,
		"PROOFLOOP_ACTOR=sol", "PROOFLOOP_LEASE=")
	if dsn != "" {
		plEnv(t, env, "db", "migrate")
	}
	plEnv(t, env, "init")
	plEnv(t, env, "new-problem", "--name", "odd", "--objective", "The sum of the first n odd numbers is $n^2$.")
	plEnv(t, env, "debate", "start", "--protocol", "dialectic", "--topic", "Cache policy")
	plEnv(t, env, "--actor", "ann", "debate", "join", "deb_cache_policy", "--participant-name", "ann")
	plEnv(t, env, "--actor", "bob", "debate", "join", "deb_cache_policy", "--participant-name", "bob")
	return env
}

// TestServeHosts: serve answers only the host of --addr and the localhost
// forms, with its port; any other Host (a DNS-rebinding page sends its own
// name) gets 421, on the page and on /events (issue 23 S6).
func TestServeHosts(t *testing.T) {
	sv := startServe(t, storeEnv(t, ""))
	for _, c := range []struct {
		host string
		want int
	}{
		{"", 200},
		{"localhost:" + sv.port, 200},
		{"LOCALHOST:" + sv.port, 200},
		{"127.0.0.1:" + sv.port, 200},
		{"[::1]:" + sv.port, 200},
		{"evil.example:" + sv.port, 421},
		{"127.0.0.1.nip.io:" + sv.port, 421},
		{"localhost.evil.example:" + sv.port, 421},
		{"localhost", 421}, // port 80, not serve's
		{"localhost:1", 421},
		{"10.0.0.1:" + sv.port, 421},
	} {
		for _, path := range []string{"/", "/index.html", "/nope"} {
			want := c.want
			if want == 200 && path == "/nope" {
				want = 404
			}
			code, body, _ := sv.get(t, c.host, path)
			if code != want {
				t.Errorf("GET %s with Host %q = %d; want %d", path, c.host, code, want)
			}
			if code == 421 && strings.Contains(body, "odd numbers") {
				t.Errorf("GET %s with Host %q showed the store in its 421", path, c.host)
			}
		}
	}
	// An event stream with a foreign Host is refused before it opens.
	if code, _, _ := sv.get(t, "evil.example:"+sv.port, "/events"); code != 421 {
		t.Errorf("GET /events with Host evil.example = %d; want 421", code)
	}
}

// TestServeRendersOnce: N concurrent GET / render the page once per store
// revision, and each response still gets a nonce of its own (issue 23,
// Low: serve rendered the whole store per request). serve logs a line per
// render on stderr, which is what is counted.
func TestServeRendersOnce(t *testing.T) {
	env := storeEnv(t, "")
	sv := startServe(t, env)
	const n = 30
	getAll := func(path string) []string {
		var wg sync.WaitGroup
		nonces := make([]string, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				code, body, hd := sv.get(t, "", path)
				m := regexp.MustCompile(`'nonce-([A-Za-z0-9_-]+)'`).FindStringSubmatch(hd.Get("Content-Security-Policy"))
				if code != 200 || m == nil || path == "/" && !strings.Contains(body, `nonce="`+m[1]+`"`) || !strings.Contains(body, "odd numbers") {
					t.Errorf("GET %s = %d; want 200, the report, and the header's nonce in the page's elements", path, code)
					return
				}
				nonces[i] = m[1]
			}()
		}
		wg.Wait()
		return nonces
	}
	// serve's stderr reaches the buffer through a pipe and a copying
	// goroutine, so a render's line can land just after its response:
	// wait (up to 10 s) for want lines, then let a little more time pass
	// so that an extra render would show too.
	renders := func(want int) int {
		count := func() int { return strings.Count(sv.stderr.String(), "serve: rendered ") }
		for deadline := time.Now().Add(10 * time.Second); count() < want && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(50 * time.Millisecond)
		return count()
	}
	nonces := getAll("/")
	if got := renders(1); got != 1 {
		t.Errorf("%d concurrent GET / rendered the page %d times; want once\n%s", n, got, sv.stderr)
	}
	seen := map[string]bool{}
	for _, nc := range nonces {
		if seen[nc] {
			t.Errorf("two responses share the nonce %q; want one each", nc)
		}
		seen[nc] = true
	}
	getAll("/?part=main")
	getAll("/")
	if got := renders(2); got != 2 {
		t.Errorf("after GET /?part=main and GET / again at the same revision: %d renders; want 2 (the page and its <main>)\n%s", got, sv.stderr)
	}
	plEnv(t, env, "new-problem", "--name", "late", "--objective", "Show that $1 + 1 = 2$.")
	if _, body, _ := sv.get(t, "", "/"); !strings.Contains(body, "prob_late") {
		t.Errorf("GET / after a commit does not show it; want the new revision rendered")
	}
	if got := renders(3); got != 3 {
		t.Errorf("GET / after a commit: %d renders in all; want 3\n%s", got, sv.stderr)
	}
}

// TestServeEventStreamsBounded is the bounded load test of issue 23 S5 on
// the file store: 200 event streams against serve, all fed by one inotify
// watch; the next stream gets 503; meanwhile `events --follow` and `debate
// wait` still work, and every stream hears the commit.
func TestServeEventStreamsBounded(t *testing.T) {
	env := storeEnv(t, "")
	eventStreamsBounded(t, env, func(t *testing.T, sv *served) {
		if n := inotifyInstances(t, sv.cmd.Process.Pid); n > 1 {
			t.Errorf("serve holds %d inotify instances with 200 streams open; want 1, shared", n)
		}
	})
}

// TestServeEventStreamsBoundedPostgres is the same on PostgreSQL: one
// LISTEN connection for all streams, where each stream held one (45
// streams locked every agent out).
func TestServeEventStreamsBoundedPostgres(t *testing.T) {
	dsn := cluster.NewDB(t)
	env := storeEnv(t, dsn)
	eventStreamsBounded(t, env, func(t *testing.T, sv *served) {
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 3 {
			t.Errorf("serve holds %d connections to the database with 200 streams open; want at most 3 (one LISTEN, shared)", n)
		}
	})
}

func eventStreamsBounded(t *testing.T, env []string, check func(*testing.T, *served)) {
	const streams = 200
	sv := startServe(t, env, "--max-streams", strconv.Itoa(streams))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: streams}}
	seqs := make([]chan int, streams)
	for i := range streams {
		req, _ := http.NewRequestWithContext(ctx, "GET", sv.url+"/events", nil)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("stream %d: %v", i, err)
		}
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Fatalf("stream %d: %d %s; want 200 and an event stream", i, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		seqs[i] = make(chan int, 16)
		go func(body io.ReadCloser, out chan<- int) {
			defer body.Close()
			sc := bufio.NewScanner(body)
			for sc.Scan() {
				if v, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
					n, _ := strconv.Atoi(v)
					select {
					case out <- n:
					default:
					}
				}
			}
		}(resp.Body, seqs[i])
	}
	// Hang protection only, not a timing assertion.
	const patience = time.Minute
	first := make([]int, streams)
	for i, c := range seqs {
		select {
		case first[i] = <-c:
		case <-time.After(patience):
			t.Fatalf("stream %d got no first event", i)
		}
	}
	if code, body, hd := sv.get(t, "", "/events"); code != 503 || hd.Get("Retry-After") == "" || !strings.Contains(body, "at most 200") {
		t.Errorf("stream %d: %d %q; want 503 with Retry-After, naming the cap", streams+1, code, body)
	}
	check(t, sv)

	// The commit below must be what wakes the two waiters started next:
	// on PostgreSQL serve's own LISTEN is there already, so count theirs
	// above it.
	dsn := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PROOFLOOP_STORE="); ok {
			dsn = v
		}
	}
	before, err := watchtest.Count(dsn)
	if err != nil {
		t.Fatal(err)
	}
	follow := exec.Command("proofloop", "events", "--follow", "--json", "--since", strconv.Itoa(first[0]))
	follow.Env = env
	fout, err := follow.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var ferr bytes.Buffer
	follow.Stderr = &ferr
	if err := follow.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { follow.Process.Kill(); follow.Wait() }()
	followed := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(fout).ReadString('\n')
		followed <- line
	}()
	wait := exec.Command("proofloop", "--actor", "bob", "debate", "wait", "deb_cache_policy", "--participant-id", "p2", "--timeout", "2m")
	wait.Env = env
	var wout bytes.Buffer
	wait.Stdout, wait.Stderr = &wout, &wout
	if err := wait.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- wait.Wait() }()
	watchtest.Wait(t, before+2, dsn, follow.Process.Pid, wait.Process.Pid) // a commit before would still be seen
	plEnv(t, env, "--actor", "ann", "debate", "turn", "deb_cache_policy", "--participant-id", "p1", "--body", "LRU, because the working set is small.")

	select {
	case line := <-followed:
		if !strings.Contains(line, `"seq":`+strconv.Itoa(first[0]+1)) {
			t.Errorf("events --follow printed %q; want the turn's event, seq %d (stderr %q)", line, first[0]+1, ferr.String())
		}
	case <-time.After(patience):
		t.Errorf("events --follow printed nothing after the commit; stderr %q", ferr.String())
	}
	select {
	case err := <-waited:
		if err != nil {
			t.Errorf("debate wait: %v\n%s", err, wout.String())
		}
	case <-time.After(patience):
		wait.Process.Kill()
		t.Errorf("debate wait did not return after the turn")
	}
	heard := 0
	for i, c := range seqs {
		select {
		case n := <-c:
			if n > first[i] {
				heard++
			}
		case <-time.After(patience):
		}
	}
	if heard != streams {
		t.Errorf("%d of %d streams heard the commit; want all", heard, streams)
	}
}

// inotifyInstances counts the inotify instances process pid holds.
func inotifyInstances(t *testing.T, pid int) int {
	t.Helper()
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if l, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil && l == "anon_inode:inotify" {
			n++
		}
	}
	return n
}
