package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
	"github.com/proofloop/proofloop/store"
)

// app carries the global flags and the streams of one run.
type app struct {
	root, actor, lease string
	actorDefaulted     bool   // no --actor, no $PROOFLOOP_ACTOR: the OS user; a lease names who acts
	storeURL           string // --store, resolved by resolveStore
	json, version      bool
	stdin              io.Reader
	stdout, stderr     io.Writer
	command            string
	ran                bool // a command's RunE started: errors before it are usage errors
	// text, when set, receives a result's plain sentence even in JSON mode:
	// the MCP server runs a command once and reports both (cmd_mcp.go).
	text io.Writer
	// project, when set, marks a call over MCP (cmd_mcp.go): its text
	// arguments are literal and a path it names must lie inside this
	// folder (skills.Source's Literal and Project).
	project string
	// ctx, when set, is the context the command runs under: an MCP call's,
	// which ends on notifications/cancelled.
	ctx context.Context
	// backends, when set, keeps the PostgreSQL store open between the
	// commands of one process: the MCP server's (cmd_db.go).
	backends *backends
	// oneShot is set when the command is what the process is for (run,
	// from main), not one call of a long-lived server: a skill call then
	// pauses the garbage collector (pauseGC).
	oneShot bool
}

// run builds the command tree, runs it and returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == loop.ReaperCommand {
		return loop.Reap(args[1:]) // run's reaper of one agent's turn, not a command of the CLI
	}
	return (&app{stdin: stdin, stdout: stdout, stderr: stderr, oneShot: true}).execute(args)
}

// execute runs one command line with a's streams and returns the exit code.
func (a *app) execute(args []string) int {
	rootCmd := a.newRoot()
	only := named(rootCmd, args)
	if handsOff(only) {
		return a.handOff(only, args)
	}
	a.addCommands(rootCmd, only)
	// Only cobra's hidden __complete command, which a shell's completion
	// script runs, looks completions up; registering them walks every flag
	// of the tree, a third of building it, so other command lines skip it.
	if slices.Contains(args, cobra.ShellCompRequestCmd) || slices.Contains(args, cobra.ShellCompNoDescRequestCmd) {
		a.registerCompletions(rootCmd)
	}
	rootCmd.SetArgs(configSetArgs(rootCmd, args))
	rootCmd.SetIn(a.stdin)
	rootCmd.SetOut(a.stdout)
	rootCmd.SetErr(a.stderr)
	ctx := a.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	err := rootCmd.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	if !a.ran {
		// Parsing failed before the command ran: find the command and
		// --json by hand, so the error still comes in the asked-for shape.
		c, _, ferr := rootCmd.Find(args)
		if ferr == nil && c != rootCmd {
			a.command = commandName(c)
		}
		if ferr != nil {
			c = rootCmd
		}
		if store.CodeOf(err) == "" {
			err = &store.Error{Code: store.CodeUsage, Msg: err.Error(), Hint: usageHint(c, err)}
		}
		a.json = a.json || jsonAsked(args)
	}
	return a.fail(err)
}

// rootCommand is the whole command tree.
func (a *app) rootCommand() *cobra.Command {
	c := a.newRoot()
	a.addCommands(c, "")
	return c
}

// newRoot is the root command, with its flags and no subcommands.
func (a *app) newRoot() *cobra.Command {
	c := &cobra.Command{
		Use:           "proofloop",
		Short:         "A proof-workflow engine for teams of AI agents",
		Long:          "proofloop keeps a proof project (problems and statements as JSON files under a contents root)\nand lets agents in four roles (solve, prove, check, fix) change it through skills that are\nschema-checked, allowed only from the right status, atomic, and safe under concurrency.\n\nExit codes: 0 done; 1 internal error; 2 bad usage or input; 3 not found; 4 refused by the\nworkflow rules; 5 conflict, retry later; 6 the store is damaged. run also ends with 7 stuck,\n8 out of turns or budget, or 130 interrupted.",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			a.command, a.ran = commandName(cmd), true
			var err error
			if a.actor, a.actorDefaulted, err = resolveActor(a.actor); err != nil {
				return err
			}
			if err := a.checkTexts(cmd, args); err != nil {
				return err
			}
			if err := a.resolveStore(); err != nil {
				return err
			}
			return a.checkOutputs(cmd)
		},
		// The root runs only for --version; without it, it prints the help
		// as cobra does for a root that cannot run.
		RunE: func(cmd *cobra.Command, _ []string) error {
			if a.version {
				a.command = "version"
				return a.printVersion()
			}
			return cmd.Help()
		},
	}
	c.Flags().BoolVar(&a.version, "version", false, "print the version and the VCS revision it was built from (with --json: one object)")
	pf := c.PersistentFlags()
	pf.StringVar(&a.root, "root", envOr("PROOFLOOP_ROOT", "contents"), "contents root `DIR` (default $PROOFLOOP_ROOT, else ./contents)")
	pf.BoolVar(&a.json, "json", false, "print exactly one JSON object on stdout, for success and failure")
	pf.StringVar(&a.actor, "actor", "", "who is acting, recorded in the history (default $PROOFLOOP_ACTOR, else the OS user name)")
	pf.StringVar(&a.lease, "lease", os.Getenv("PROOFLOOP_LEASE"), "lease `TOKEN` for the item (default $PROOFLOOP_LEASE)")
	pf.StringVar(&a.storeURL, "store", os.Getenv("PROOFLOOP_STORE"), "keep the store in the PostgreSQL database at `URL` (postgres://USER@HOST:PORT/DB; default $PROOFLOOP_STORE, else \"store\" in proofloop.json beside the root, else the files under --root)")
	// The defaults come from the environment; the usage text already says
	// so, and pflag would repeat the value it resolved to ("(default
	// "contents")") after it.
	for _, name := range []string{"root", "actor", "lease", "store"} {
		pf.Lookup(name).DefValue = ""
	}
	c.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return &store.Error{Code: store.CodeUsage, Msg: err.Error(), Hint: flagHint(cmd, err)}
	})
	return c
}

// addCommands adds to root the subcommand called only, or every one when
// only is "". Building the whole tree, each command's flags and help
// text, is a millisecond that a command line naming one command does not
// need: its help, flags and errors are its own.
func (a *app) addCommands(root *cobra.Command, only string) {
	for _, g := range commandGroups() {
		for _, c := range g.Commands {
			if c.build != nil && (only == "" || only == c.name) {
				root.AddCommand(c.build(a))
			}
		}
	}
	for _, s := range skills.Registry {
		if only == "" || only == s.Name {
			root.AddCommand(a.skillCommand(s))
		}
	}
	groupCommands(root)
}

// named returns the subcommand that args name, the first word that is not
// a flag of root or its value, as cobra finds it; or "" when that is not
// one of ours (help, completion, a typo: the whole tree answers) or a flag
// unknown to root comes first (cobra would read it with the tree).
func named(root *cobra.Command, args []string) string {
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			return ""
		}
		if !strings.HasPrefix(arg, "-") || arg == "-" {
			return ours(arg)
		}
		if strings.Contains(arg, "=") {
			continue
		}
		var f *pflag.Flag
		for _, fs := range []*pflag.FlagSet{root.PersistentFlags(), root.Flags()} {
			if name, long := strings.CutPrefix(arg, "--"); long && f == nil {
				f = fs.Lookup(name)
			} else if len(arg) == 2 && f == nil {
				f = fs.ShorthandLookup(arg[1:])
			}
		}
		if f == nil {
			return ""
		}
		if f.NoOptDefVal == "" {
			i++ // the flag's value
		}
	}
	return ""
}

// ours returns name when it is one of the root's own commands, else "".
func ours(name string) string {
	if _, ok := skills.Find(name); ok {
		return name
	}
	for _, g := range commandGroups() {
		for _, c := range g.Commands {
			if c.name == name && c.build != nil {
				return name
			}
		}
	}
	return ""
}

// commandName names a command as the JSON "command" field and the error
// prefix do: its path below the root ("show", "config set"), or "" for the
// root itself.
func commandName(c *cobra.Command) string {
	if !c.HasParent() {
		return ""
	}
	return strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" ")
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// resolveActor finds who acts: --actor, else $PROOFLOOP_ACTOR, else the
// operating-system user, so that an actor is always known; and returns it
// in its normal form (model.NormalizeActor). This is the one place the
// rule is applied: every actor a command records or compares came
// through here. defaulted says that the OS user stood in: then a lease
// the command presents names who acts (store.Tx.UseLease).
func resolveActor(flag string) (actor string, defaulted bool, err error) {
	from, v := "--actor", flag
	if strings.TrimSpace(v) == "" {
		from, v = "$PROOFLOOP_ACTOR", os.Getenv("PROOFLOOP_ACTOR")
	}
	if strings.TrimSpace(v) == "" {
		from, v = "the operating-system user name", osUser()
	}
	if err := model.CheckText(v); err != nil {
		return "", false, store.Errorf(store.CodeInvalidInput, "%s: %v", from, err).WithHint("nothing was written; " + model.TextRule)
	}
	a, err := model.NormalizeActor(v)
	if err != nil {
		hint := fmt.Sprintf("an actor is a name of 1 to %d characters without control characters; it is compared trimmed, NFKC-normalised and case-folded", model.MaxActorLen)
		if model.ReservedActor(v) != nil {
			hint = "kernel:... names the engine's own proof checker, whose verdicts check-formal records; act under your own name"
		}
		return "", false, store.Errorf(store.CodeInvalidInput, "%s: %v", from, err).WithHint(hint)
	}
	return a, from == "the operating-system user name", nil
}

// osUser names the user running the command: from the user database,
// else $USER, else by number.
func osUser() string {
	if u, err := user.Current(); err == nil && strings.TrimSpace(u.Username) != "" {
		return u.Username
	}
	if u := os.Getenv("USER"); strings.TrimSpace(u) != "" {
		return u
	}
	return "uid-" + strconv.Itoa(os.Getuid())
}

// source reads the command's inputs (@FILE, @-, --input) capped at the
// store's max_input_bytes: a command opens its store before it reads them.
func (a *app) source(s *store.Store) (skills.Source, error) {
	cfg, err := s.Config()
	if err != nil {
		return skills.Source{}, err
	}
	src := skills.NewSource(a.stdin, cfg)
	switch {
	case a.project != "":
		src.Literal, src.Project = true, a.project
	case a.agentMayAct():
		// An agent's turn reads files only inside the project, as over MCP.
		if src.Project, err = s.ProjectDir(); err != nil {
			return skills.Source{}, store.Errorf(store.CodeInvalidInput, "the project folder of %s: %v", s.Dir, err)
		}
		src.Confined = true
	}
	return src, nil
}

// withStore runs f over the store of --root (a.open), closed when f
// returns: the preamble of every command that reads or writes a project.
func (a *app) withStore(f func(*store.Store) error) error {
	s, err := a.open()
	if err != nil {
		return err
	}
	defer s.Close()
	return f(s)
}

// withSource is withStore for a command that reads inputs (@FILE, @-,
// --input): f gets them as a.source reads them, capped by the store's
// config.
func (a *app) withSource(f func(*store.Store, skills.Source) error) error {
	return a.withStore(func(s *store.Store) error {
		src, err := a.source(s)
		if err != nil {
			return err
		}
		return f(s, src)
	})
}

// withRef is withStore for a command on one document: f gets the id that
// ref names (an id, or the path of the document's file).
func (a *app) withRef(ref string, f func(s *store.Store, id string) error) error {
	return a.withStore(func(s *store.Store) error {
		id, _, err := s.ParseRef(ref)
		if err != nil {
			return err
		}
		return f(s, id)
	})
}

// givenText reads the text of flag name (v, or the @FILE or @- it names)
// when the command line gave the flag, and is nil when it did not.
func (a *app) givenText(cmd *cobra.Command, s *store.Store, name, v string) (*string, error) {
	if !cmd.Flags().Changed(name) {
		return nil, nil
	}
	src, err := a.source(s)
	if err != nil {
		return nil, err
	}
	t, err := src.Text(name, v)
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// open opens the store of --root, with the lock timeout of
// $PROOFLOOP_LOCK_TIMEOUT, else of config.json. config.json is checked on
// every open: a bad one is a damaged store (exit 6).
func (a *app) open() (*store.Store, error) {
	s, err := a.openRoot()
	if err != nil {
		return nil, err
	}
	cfg, err := s.Config()
	if err != nil {
		s.Close()
		return nil, err
	}
	s.LockTimeout = cfg.LockTimeoutDuration()
	if env := os.Getenv("PROOFLOOP_LOCK_TIMEOUT"); env != "" {
		d, err := time.ParseDuration(env)
		if err != nil || d < 0 {
			s.Close()
			return nil, store.Errorf(store.CodeUsage, "PROOFLOOP_LOCK_TIMEOUT %q is not a duration such as 10s", env).
				WithHint("set it to a duration such as 10s or 1m, or unset it to use lock_timeout of config.json")
		}
		s.LockTimeout = d
	}
	return s, nil
}

// txOptions are the transaction options every mutating command shares.
func (a *app) txOptions(cmd *cobra.Command, target string) store.TxOptions {
	o := store.TxOptions{Command: cmd.Name(), Actor: a.actor, ActorDefaulted: a.actorDefaulted, Target: target, Lease: a.lease}
	if f := cmd.Flags().Lookup("expect-revision"); f != nil && f.Changed {
		n, _ := cmd.Flags().GetInt("expect-revision")
		o.ExpectRevision = &n
	}
	return o
}

func addExpectRevision(cmd *cobra.Command) {
	cmd.Flags().Int("expect-revision", 0, "fail with a conflict (exit 5) unless the document is at revision `N`")
}

// ok renders a successful result: one JSON object, or its text.
func (a *app) ok(r *skills.Result) error {
	if a.text != nil {
		fmt.Fprintln(a.text, r.Text)
	}
	if !a.json {
		fmt.Fprintln(a.stdout, r.Text)
		return nil
	}
	out := map[string]any{"ok": true, "command": a.command}
	if r.ID != "" {
		out["id"], out["status"], out["revision"] = r.ID, r.Status, r.Revision
	}
	created := r.Created
	if created == nil {
		created = []skills.Created{}
	}
	out["created"] = created
	for k, v := range r.Extra {
		out[k] = v
	}
	return a.writeJSON(out)
}

func (a *app) writeJSON(v any) error {
	enc := json.NewEncoder(a.stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// fail is the one place that maps errors to exit codes and error codes.
func (a *app) fail(err error) int {
	var es exitStatus
	if errors.As(err, &es) {
		return int(es)
	}
	if !a.ran && store.CodeOf(err) == "" {
		err = &store.Error{Code: store.CodeUsage, Msg: err.Error(), Hint: "run `proofloop --help` for the commands and flags"}
	}
	code, exit := classify(err)
	msg, hint := err.Error(), a.hint(err)
	if code == store.CodeStoreUnwritable && a.storeURL == "" {
		if root, rerr := filepath.Abs(a.root); rerr == nil && a.root != "" {
			msg += " (the contents root is " + root + ")" // which path, whole
		}
	}
	var wr *withReport
	hasReport := errors.As(err, &wr)
	prefix := "proofloop"
	if a.command != "" {
		prefix += " " + a.command
	}
	plain := fmt.Sprintf("%s: %s\n", prefix, msg)
	if hint != "" {
		plain += fmt.Sprintf("hint: %s\n", hint)
	}
	if a.json {
		e := map[string]any{"code": code, "message": msg}
		if hint != "" {
			e["hint"] = hint
		}
		out := map[string]any{"ok": false, "command": a.command, "error": e}
		if hasReport {
			for k, v := range wr.extra {
				out[k] = v
			}
		}
		// One stream: the object on stdout is the whole answer; a plain
		// copy on stderr would reach an agent reading 2>&1 twice. The MCP
		// server still gets the sentence, through a.text.
		a.writeJSON(out)
		if a.text != nil {
			io.WriteString(a.text, plain)
		}
		return exit
	}
	if hasReport {
		wr.printText(a)
	}
	io.WriteString(a.stderr, plain)
	return exit
}

// classify finds an error's code; its exit code comes from the one table
// of the contract, skills.ExitCodes, which the generated docs quote too.
func classify(err error) (store.Code, int) {
	code := codeOf(err)
	return code, skills.ExitOf(code)
}

func codeOf(err error) store.Code {
	var te *model.TransitionError
	var ge *model.GuardError
	var ie *model.IDError
	switch {
	case errors.As(err, &te):
		return store.CodeInvalidTransition
	case errors.As(err, &ge):
		return store.CodeGuardFailed
	}
	if c := store.CodeOf(err); c != "" {
		return c
	}
	if errors.As(err, &ie) {
		return store.CodeInvalidInput
	}
	return store.CodeInternal
}
