package main

import (
	"bytes"
	"context"
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
	err := m.srv.Run(ctx, &mcp.IOTransport{Reader: readCloser(r), Writer: nopWriteCloser{w}})
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

func readCloser(r io.Reader) io.ReadCloser {
	if rc, ok := r.(io.ReadCloser); ok {
		return rc
	}
	return io.NopCloser(r)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
