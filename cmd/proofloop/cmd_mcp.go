package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os/signal"
	"sync"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

// The MCP server: `proofloop mcp` serves the commands of this very binary
// as tools over stdio (mcp_tools.go), with one prompt per role and the
// documents as resources (mcp_resources.go). A tool call runs the CLI's own
// command line in-process, so it gets the same transaction, validation and
// refusals as a shell call, without the process start-up.

func (a *app) mcpCommand() *cobra.Command {
	var watch bool
	c := &cobra.Command{
		Use:   "mcp [--watch]",
		Short: "Serve the skills and loop commands as MCP tools over stdio, for agent clients",
		Long: "mcp runs a Model Context Protocol server on standard input and output. Each skill and loop\n" +
			"command is a tool whose input schema comes from the skill registry and the command's flags; a\n" +
			"call runs the same code as the CLI with --json, and a refusal is a tool result with isError\n" +
			"and the CLI's error code. --root and --actor set the store and the default actor of every\n" +
			"call; a call may name its own actor. Prompts give each role's `prime`; resources give the\n" +
			"skill catalog, the transition table and every document as proofloop://statement/<id> or\n" +
			"proofloop://problem/<id>. With --watch, subscribed clients get resources/updated\n" +
			"notifications as the event log records changes. It ends when standard input closes.",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// Fail early, with the CLI's error, when --root is not a store.
			s, err := a.open()
			if err != nil {
				return err
			}
			s.Close()
			srv := newMCPServer(a, watch)
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			return srv.serve(ctx, a.stdin, a.stdout)
		},
	}
	c.Flags().BoolVar(&watch, "watch", false, "send resources/updated notifications for the documents each new event changes")
	return c
}

// mcpServer holds what every call shares: the server's settings, and the
// mutex that runs one command at a time (each call opens the store, as a
// CLI process would; calls of one server need not overlap, and the store's
// lock orders them against other processes anyway).
type mcpServer struct {
	root, actor string
	watch       bool
	srv         *mcp.Server
	mu          sync.Mutex
	resMu       sync.Mutex
	listed      map[string]bool // document URIs already added as resources
}

func newMCPServer(a *app, watch bool) *mcpServer {
	m := &mcpServer{root: a.root, actor: a.actor, watch: watch, listed: map[string]bool{}}
	opts := &mcp.ServerOptions{
		Instructions: "proofloop: a proof project's problems and statements, changed only through its skills. " +
			"Start with the prompt of your role (solve, prove, check, fix or decide), take an item with the next tool " +
			"(claim: true, holder: your name), pass the lease it returns to the skill you call on that item, and read " +
			"the isError results: they carry the error code, message and hint of the CLI.",
		Capabilities: &mcp.ServerCapabilities{},
	}
	if watch {
		// Subscriptions are kept by the SDK; the handlers only accept them.
		opts.SubscribeHandler = func(context.Context, *mcp.SubscribeRequest) error { return nil }
		opts.UnsubscribeHandler = func(context.Context, *mcp.UnsubscribeRequest) error { return nil }
	}
	m.srv = mcp.NewServer(&mcp.Implementation{Name: "proofloop", Version: readBuildVersion().Version}, opts)
	for _, t := range mcpTools(a.rootCommand()) {
		m.srv.AddTool(t.tool, m.handler(t))
	}
	m.addPrompts()
	m.addResources()
	return m
}

// serve runs the protocol on r and w until r ends or ctx is cancelled.
func (m *mcpServer) serve(ctx context.Context, r io.Reader, w io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if m.watch {
		ready := make(chan error, 1)
		go m.follow(ctx, ready)
		if err := <-ready; err != nil {
			return err
		}
	}
	d := newDrain()
	err := m.srv.Run(ctx, &mcp.IOTransport{Reader: d.reader(ctx, r), Writer: d.writer(w)})
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil
	}
	return err
}

// cli runs one proofloop command line in-process with the server's root,
// and returns its exit code, stdout, stderr and plain sentence.
func (m *mcpServer) cli(args []string, stdin []byte) (int, []byte, []byte, []byte) {
	var out, errb, text bytes.Buffer
	full := append([]string{"--root", m.root}, args...)
	m.mu.Lock()
	defer m.mu.Unlock()
	a := &app{stdin: bytes.NewReader(stdin), stdout: &out, stderr: &errb, text: &text}
	code := a.execute(full)
	return code, out.Bytes(), errb.Bytes(), text.Bytes()
}

// drain holds back the end of the client's input until every request read
// has its response written. A client may write its requests and close its
// end at once (printf ... | proofloop mcp); the SDK ends the session at EOF
// and would drop the replies still being computed.
type drain struct {
	mu      sync.Mutex
	cond    *sync.Cond
	pending map[string]bool // ids of requests without a response yet
	partial []byte          // the written bytes after the last newline
}

func newDrain() *drain {
	d := &drain{pending: map[string]bool{}}
	d.cond = sync.NewCond(&d.mu)
	return d
}

// message is what drain reads of a JSON-RPC message: a request has an id
// and a method, a response an id and no method.
func messageID(line []byte) (id string, request bool) {
	var msg struct {
		ID     any    `json:"id"`
		Method string `json:"method"`
	}
	if json.Unmarshal(line, &msg) != nil || msg.ID == nil {
		return "", false
	}
	b, _ := json.Marshal(msg.ID)
	return string(b), msg.Method != ""
}

// reader copies r line by line to the SDK; at r's end it waits for the
// pending responses (or ctx), then ends the SDK's input.
func (d *drain) reader(ctx context.Context, r io.Reader) io.ReadCloser {
	pr, pw := io.Pipe()
	stop := context.AfterFunc(ctx, func() { d.mu.Lock(); d.cond.Broadcast(); d.mu.Unlock() })
	go func() {
		defer stop()
		br := bufio.NewReader(r)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				if id, req := messageID(line); req {
					d.mu.Lock()
					d.pending[id] = true
					d.mu.Unlock()
				}
				if _, werr := pw.Write(line); werr != nil {
					return
				}
			}
			if err != nil {
				d.mu.Lock()
				for len(d.pending) > 0 && ctx.Err() == nil {
					d.cond.Wait()
				}
				d.mu.Unlock()
				pw.Close()
				return
			}
		}
	}()
	return pr
}

// writer passes the SDK's output to w and marks the responses it carries.
func (d *drain) writer(w io.Writer) io.WriteCloser { return drainWriter{d, w} }

type drainWriter struct {
	d *drain
	w io.Writer
}

func (dw drainWriter) Write(p []byte) (int, error) {
	n, err := dw.w.Write(p)
	d := dw.d
	d.mu.Lock()
	defer d.mu.Unlock()
	d.partial = append(d.partial, p[:n]...)
	for {
		i := bytes.IndexByte(d.partial, '\n')
		if i < 0 {
			break
		}
		if id, req := messageID(d.partial[:i]); id != "" && !req {
			delete(d.pending, id)
			d.cond.Broadcast()
		}
		d.partial = d.partial[i+1:]
	}
	return n, err
}

func (drainWriter) Close() error { return nil }
