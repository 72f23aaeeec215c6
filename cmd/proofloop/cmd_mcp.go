package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
)

// The MCP server: `proofloop mcp` serves the commands of this very binary
// as tools over stdio (mcp_tools.go), with one prompt per role and the
// documents as resources (mcp_resources.go). A tool call runs the CLI's own
// command line in-process, so it gets the same transaction, validation and
// refusals as a shell call, without the process start-up.

func (a *app) mcpCommand() *cobra.Command {
	var watch bool
	var role string
	c := &cobra.Command{
		Use:   "mcp [--role R] [--watch]",
		Short: "Serve the skills and loop commands as MCP tools over stdio, for agent clients",
		Long: "mcp runs a Model Context Protocol server on standard input and output. Each skill and loop\n" +
			"command is a tool whose input schema comes from the skill registry and the command's flags; a\n" +
			"call runs the same code as the CLI with --json, and a refusal is a tool result with isError\n" +
			"and the CLI's error code. --role R (default $PROOFLOOP_ROLE) offers only that role's tools:\n" +
			"its skills and " + strings.Join(skills.MCPLoopTools, ", ") + " (a debate role gets the\n" +
			"debate tools instead of skills). Admin and host commands, and a person's, are never tools:\n" +
			neverTools() + ".\nOver MCP every text argument is literal (no @FILE), and every path (a debate's source, an artifact) must lie inside the project\n" +
			"folder, the folder that holds the root. --root and --actor set the store and the default\n" +
			"actor of every call; a call may name its own actor. Prompts give each role's `prime`;\n" +
			"resources give the skill catalog, the transition table and every document as\n" +
			"proofloop://statement/<id> or proofloop://problem/<id>. With --watch, subscribed clients get\n" +
			"resources/updated notifications as the event log records changes. A malformed or oversized\n" +
			"line is answered with a JSON-RPC error and the server goes on. It ends when standard input\n" +
			"closes, after answering every request it read.",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// Fail early, with the CLI's error, when --root is not a store
			// or --role names no role.
			s, r, err := a.openWithRole(role)
			if err != nil {
				return err
			}
			cfg, err := s.Config()
			s.Close()
			if err != nil {
				return err
			}
			project, err := projectFolder(a.root)
			if err != nil {
				return err
			}
			srv := newMCPServer(a, watch, r, project)
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			defer srv.backends.close()
			return srv.serve(ctx, a.stdin, a.stdout, frameLimit(cfg.MaxInputBytes))
		},
	}
	c.Flags().BoolVar(&watch, "watch", false, "send resources/updated notifications for the documents each new event changes")
	c.Flags().StringVar(&role, "role", os.Getenv("PROOFLOOP_ROLE"), "offer only the tools of role `R` (default $PROOFLOOP_ROLE; none: every tool)")
	c.Flags().Lookup("role").DefValue = ""
	return c
}

// projectFolder is the folder that holds the contents root (where
// proofloop.json, .mcp.json and .claude/ live): over MCP, a path argument
// must lie inside it.
func projectFolder(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return filepath.Dir(abs), nil
}

// frameLimit bounds one JSON-RPC line: room for max_input_bytes of text
// escaped in JSON. The drain (mcp_drain.go) enforces it; the SDK's own
// limit is set above it, so that the SDK, which ends the session at a line
// over its limit, never meets one.
func frameLimit(maxInput int64) int { return int(4*maxInput + 64<<10) }

// mcpServer holds what every call shares: the server's settings, and the
// mutex that runs one change at a time (each call opens the store, as a
// CLI process would; readers, debate_wait among them, run beside the
// changes, as reading processes do, so a wait never holds up a turn).
type mcpServer struct {
	root, actor string
	storeURL    string     // the PostgreSQL store served, "" for the files under root
	project     string     // the folder a path argument must lie in
	role        model.Role // --role: the tools and prompt offered; "" for all
	// actorDefaulted: the server's actor is the OS user, not declared; a
	// call that names no actor then acts as the lease it presents.
	actorDefaulted bool
	watch          bool
	srv            *mcp.Server
	tools          []*mcpTool
	mu             sync.Mutex
	resMu          sync.Mutex
	listed         map[string]bool // document URIs already added as resources
	// The kebab-case names of the tools' commands, for toolNames.
	namesOnce sync.Once
	kebab     map[string]string
	kebabRE   *regexp.Regexp
	// backends keeps the PostgreSQL store open across calls: one pool, one
	// connection kept, for the life of the server.
	backends backends
}

func newMCPServer(a *app, watch bool, role model.Role, project string) *mcpServer {
	m := &mcpServer{root: a.root, actor: a.actor, storeURL: a.storeURL, actorDefaulted: a.actorDefaulted, project: project, role: role, watch: watch, listed: map[string]bool{}}
	opts := &mcp.ServerOptions{
		Instructions: "proofloop: a proof project's problems and statements, changed only through its skills. " +
			"Start with the prompt of your role (solve, prove, check, fix or decide), take an item with the next tool " +
			"(claim: true, holder: your name), pass the lease it returns to the skill you call on that item, and read " +
			"the isError results: they carry the error code, message and hint.",
		Capabilities: &mcp.ServerCapabilities{},
	}
	if watch {
		// Subscriptions are kept by the SDK; the handlers only accept them.
		opts.SubscribeHandler = func(context.Context, *mcp.SubscribeRequest) error { return nil }
		opts.UnsubscribeHandler = func(context.Context, *mcp.UnsubscribeRequest) error { return nil }
	}
	m.srv = mcp.NewServer(&mcp.Implementation{Name: "proofloop", Version: readBuildVersion().Version}, opts)
	m.tools = mcpTools(a.rootCommand(), role)
	for _, t := range m.tools {
		m.srv.AddTool(t.tool, m.handler(t))
	}
	m.addPrompts()
	m.addResources()
	return m
}

// serve runs the protocol on r and w until r ends or ctx is cancelled.
func (m *mcpServer) serve(ctx context.Context, r io.Reader, w io.Writer, limit int) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if m.watch {
		ready := make(chan error, 1)
		go m.follow(ctx, ready)
		if err := <-ready; err != nil {
			return err
		}
	}
	d := newDrain(w, limit)
	err := m.srv.Run(ctx, &mcp.IOTransport{Reader: d.reader(ctx, r), Writer: d.writer(), MaxLineLength: 2*limit + 1<<20})
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil
	}
	return err
}

// cli runs one proofloop command line in-process with the server's root,
// as a call over MCP (literal text, paths inside the project folder), and
// returns its exit code, stdout, stderr and plain sentence. serial runs it
// alone among this server's calls (a change); a reader runs at once.
func (m *mcpServer) cli(ctx context.Context, serial bool, args []string, stdin []byte) (int, []byte, []byte, []byte) {
	var out, errb, text bytes.Buffer
	full := append([]string{"--root", m.root}, args...)
	if serial {
		m.mu.Lock()
		defer m.mu.Unlock()
	}
	a := &app{stdin: bytes.NewReader(stdin), stdout: &out, stderr: &errb, text: &text, project: m.project, ctx: ctx, backends: &m.backends}
	code := a.execute(full)
	return code, out.Bytes(), errb.Bytes(), text.Bytes()
}
