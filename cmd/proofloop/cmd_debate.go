package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

func (a *app) debateCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "debate start|join|turn|wait|close|show|list|transcript",
		Short: "Run a debate of one of the protocols (" + strings.Join(model.ProtocolNames(), ", ") + ") on the turn loop",
		Long: "A debate is a document of the store (debate/<id>.json) with a derived Markdown transcript\n" +
			"(.debates/YYYY-MM-DD-<slug>.md) rewritten in the same transaction as every change. The\n" +
			"protocols are data (`proofloop transitions` prints their turn fields); the engine validates\n" +
			"every turn before anything is written (exit 2 naming the field and the rule), refuses a turn out\n" +
			"of order or on a closed debate (exit 4) or under another's lease (exit 5), and decides the\n" +
			"outcome after every turn. --json results carry id, status, revision, protocol, artifact,\n" +
			"participant_id, role, participant_count, turn_number, whose_turn {closed, participant_id, role,\n" +
			"join_role, turn_number, require, advice}, candidate_convergence, mediator_needed and outcome\n" +
			"{outcome, reason, at, summary, actor} once closed.",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	c.AddCommand(a.debateStartCommand(), a.debateJoinCommand(), a.debateTurnCommand(), a.debateWaitCommand(),
		a.debateCloseCommand(), a.debateShowCommand(), a.debateListCommand(), a.debateTranscriptCommand(),
		a.debateExampleCommand())
	return c
}

// debateOpts are a debate command's transaction options; its event is
// named debate-<subcommand>.
func (a *app) debateOpts(cmd *cobra.Command) store.TxOptions {
	o := a.txOptions(cmd, "")
	o.Command = "debate-" + cmd.Name()
	return o
}

// debateOK prints a debate result: its JSON keys next to ok and command, or
// one line per fact for a person.
func (a *app) debateOK(r *loop.DebateResult, text string) error {
	if a.text != nil { // the MCP server's one line
		next := "next: " + nextText(r.WhoseTurn)
		if r.Outcome != nil {
			next = "outcome: " + r.Outcome.Outcome
		}
		fmt.Fprintf(a.text, "%s %s: %s.\n", text, r.ID, next)
	}
	if a.json {
		raw, err := json.Marshal(r)
		if err != nil {
			return err
		}
		out := map[string]any{}
		if err := json.Unmarshal(raw, &out); err != nil {
			return err
		}
		out["ok"], out["command"] = true, a.command
		return a.writeJSON(out)
	}
	fmt.Fprintln(a.stdout, text)
	fmt.Fprintf(a.stdout, "%s: %s, %s, %s; transcript %s\n", r.ID, r.Status, model.Count(r.ParticipantCount, "participant"), model.Count(r.TurnNumber, "turn"), r.Artifact)
	if r.Outcome != nil {
		fmt.Fprintf(a.stdout, "outcome: %s (%s)\n", r.Outcome.Outcome, r.Outcome.Reason)
	} else {
		fmt.Fprintf(a.stdout, "next: %s\n", nextText(r.WhoseTurn))
	}
	if r.CandidateConvergence {
		fmt.Fprintln(a.stdout, "candidate convergence: both latest stances converge")
	}
	return nil
}

func nextText(s model.TurnState) string {
	t := ""
	switch {
	case s.Closed:
		return "nobody: the debate is closed"
	case s.ParticipantID != "":
		t = fmt.Sprintf("%s (%s) writes turn %d", s.ParticipantID, s.Role, s.TurnNumber)
	default:
		t = fmt.Sprintf("%s must join (debate join)", model.A(s.JoinRole))
	}
	if s.Require != "" {
		t += "; the turn must carry " + s.Require
	}
	if s.Advice != "" {
		t += "; " + s.Advice
	}
	return t
}

func debateID(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return store.Errorf(store.CodeUsage, "debate %s takes one debate id, got %s", cmd.Name(), model.Count(len(args), "argument")).
			WithHint("e.g. proofloop debate " + cmd.Name() + " deb_example")
	}
	return nil
}

// protocolHelp is one line per protocol for `debate start --help`, from
// the protocols themselves.
func protocolHelp() string {
	var b strings.Builder
	for _, p := range model.Protocols {
		b.WriteString("  " + p.Help + "\n")
	}
	return b.String()
}

func (a *app) debateStartCommand() *cobra.Command {
	var in loop.DebateStart
	c := &cobra.Command{
		Use:   "start --protocol P [--topic TEXT] [--source FILE.md] [--subject TEXT] [--methodology M] [--position ROLE=TEXT]... [--research N] [--max-turns N] [--about STMT#ISSUE]",
		Short: "Start a debate; prints its id (deb_<topic_slug>, then _2, _3) and transcript path",
		Long: "start creates debate/<id>.json and its transcript. Protocols:\n" + protocolHelp() +
			"--max-turns overrides the limit. --source FILE.md is hashed (SHA-256): support quotes must occur\n" +
			"in it, and a changed source invalidates the debate; without --topic, the source's first heading\n" +
			"(else its file name), or else --subject, is the topic. --about STMT#ISSUE (socratic only) disputes a\n" +
			"statement's issue: the statement waits while the dispute is open, and ACCEPTED_CONSENSUS with\n" +
			"both latest verdicts `withdrawn` withdraws the issue.",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if in.Protocol == "" {
				// Without --topic, loop.StartDebate takes the source's heading
				// or the subject, and refuses when there is neither.
				return store.Errorf(store.CodeUsage, "debate start needs --protocol P").
					WithHint("protocols: " + strings.Join(model.ProtocolNames(), ", "))
			}
			s, err := a.open()
			if err != nil {
				return err
			}
			defer s.Close()
			src, err := a.source(s)
			if err != nil {
				return err
			}
			if in.Topic, err = src.Text("topic", in.Topic); err != nil {
				return err
			}
			if in.Source, err = src.Path(in.Source, "--source"); err != nil {
				return err
			}
			if in.Artifact, in.FreshArtifact, err = a.artifactPath(s, in.Artifact); err != nil {
				return err
			}
			r, err := loop.StartDebate(s, a.debateOpts(cmd), in)
			if err != nil {
				return err
			}
			if r.Existing {
				return a.debateOK(r, "The active duel on this source and topic is "+r.ID+"; nothing was started: join it.")
			}
			return a.debateOK(r, "Started "+r.ID+" ("+r.Protocol+").")
		},
	}
	f := c.Flags()
	f.StringVar(&in.Protocol, "protocol", "", "the protocol: "+strings.Join(model.ProtocolNames(), ", "))
	f.StringVar(&in.Topic, "topic", "", "what the debate is about (@FILE or @- reads it)")
	f.StringVar(&in.Source, "source", "", "a Markdown `FILE` that support quotes are checked against; its SHA-256 is recorded")
	f.StringVar(&in.Subject, "subject", "", "review: what is reviewed")
	f.StringVar(&in.Methodology, "methodology", "", "agora: opinion (default), fact-based (evidence on every turn) or mixed")
	f.StringArrayVar(&in.Positions, "position", nil, "agora: a starting position `ROLE=TEXT`; one participant joins per position, in order")
	f.IntVar(&in.MessageTokens, "message-tokens", 0, "agora: a turn's message limit in estimated tokens (default 100, seed 004's; at most 4 sentences too)")
	f.IntVar(&in.Research, "research", 0, "agora: open with `N` research turns of a researcher seat, evidence only, gathered into the evidence pool (pool-1, ...) before the positions debate")
	f.IntVar(&in.MaxTurns, "max-turns", 0, "override the protocol's limit ("+limitUnits()+")")
	f.StringVar(&in.About, "about", "", "socratic: dispute issue `STMT#ISSUE` of a statement")
	f.StringVar(&in.Artifact, "artifact", "", "also render the transcript to `PATH` inside the project folder (the folder holding the contents root)")
	return c
}

// artifactPath checks debate start's --artifact: a file inside the project
// folder (the folder holding the contents root), symlinks resolved; a
// relative path is read against the working directory, or over MCP against
// the project folder. Over MCP it must also lie under the project's
// debates folder and be new (mcpArtifact). It returns the path relative to
// the project folder, and the absolute path that must not exist yet when
// the debate is created ("" from the CLI, a person's).
func (a *app) artifactPath(s *store.Store, p string) (rel, fresh string, err error) {
	if p == "" {
		return "", "", nil
	}
	base, err := os.Getwd()
	if err != nil {
		return "", "", store.Errorf(store.CodeInternal, "working directory").Wrap(err)
	}
	if a.project != "" {
		if base, err = filepath.EvalSymlinks(a.project); err != nil {
			return "", "", store.Errorf(store.CodeInvalidInput, "the project folder %s: %v", a.project, err)
		}
		real := p
		if !filepath.IsAbs(real) {
			real = filepath.Join(base, real)
		}
		project, perr := s.ProjectDir()
		if perr != nil || project != base {
			if rel, err := filepath.Rel(base, filepath.Clean(real)); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return "", "", store.Errorf(store.CodeUsage, "--artifact %q is outside the project folder %s; over MCP a tool writes only inside it", p, base).
					WithHint("nothing was written; give a path relative to the project folder")
			}
		}
	}
	if rel, err = s.ProjectPath(p, base, "--artifact"); err != nil || a.project == "" {
		return rel, "", err
	}
	project, err := s.ProjectDir()
	if err != nil {
		return "", "", store.Errorf(store.CodeInvalidInput, "the project folder of %s: %v", s.Dir, err)
	}
	return rel, filepath.Join(project, filepath.FromSlash(rel)), mcpArtifact(p, rel)
}

// mcpArtifact is what an artifact named over MCP must be besides lying in
// the project folder (N3): a file under its debates folder, in no
// dot-folder and no dot-file (rel has its symlinks resolved, so a linked
// debates/ that leads to .git/hooks is seen as that). A file already there
// is refused when the debate is created (loop.DebateStart.FreshArtifact),
// unless the call joins the debate it is the artifact of: an agent could
// otherwise replace README.md, proofloop.json (after which every command
// fails) or a git hook.
func mcpArtifact(p, rel string) error {
	under, ok := strings.CutPrefix(rel, model.ProjectDebatesDir+"/")
	hint := "nothing was written; over MCP a debate's artifact is a new file under the project's " + model.ProjectDebatesDir + "/ folder, e.g. " + model.ProjectDebatesDir + "/review.md"
	if !ok || under == "" {
		return store.Errorf(store.CodeInvalidInput, "--artifact %q is not under the project's %s/ folder (symlinks resolved: %s)", p, model.ProjectDebatesDir, rel).WithHint(hint)
	}
	for _, part := range strings.Split(rel, "/") {
		if strings.HasPrefix(part, ".") {
			return store.Errorf(store.CodeInvalidInput, "--artifact %q names a dot-folder or dot-file (%s)", p, rel).WithHint(hint)
		}
	}
	return nil
}

func (a *app) debateJoinCommand() *cobra.Command {
	var in loop.DebateJoin
	var start loop.DebateStart
	c := &cobra.Command{
		Use:   "join (ID | --protocol P --subject S | --protocol P --source FILE.md [--topic T]) --participant-name NAME [--harness H] [--model-id M]",
		Short: "Join a debate in the next role it needs; idempotent per name (resume in a new session)",
		Long: "join gives the caller the next role the debate needs (" + joinOrders() + ")\n" +
			"and a participant id (p1, p2, ...). A name that\n" +
			"already joined gets its participant back and nothing is written (joined: false). A full or\n" +
			"closed debate refuses (exit 4). The seat is the caller's actor's (--actor, or the lease's):\n" +
			"only that actor writes its turns, and one actor holds one seat of a debate (else exit 4).\n" +
			"Without ID, `join --protocol P --subject S` (review) or `--source FILE.md [--topic T]` (socratic) joins the open\n" +
			"debate on it, or starts it: two sessions run the same command and the first is the reviewer.",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 && start.Protocol != "" {
				return nil
			}
			return debateID(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				in.ID = args[0]
			} else if start.Subject == "" && start.Source == "" {
				return store.Errorf(store.CodeUsage, "debate join --protocol %s needs --subject or --source to find its debate", start.Protocol).
					WithHint("e.g. proofloop debate join --protocol review --subject 'commit abc123' --participant-name alice")
			} else {
				in.Start = &start
			}
			s, err := a.open()
			if err != nil {
				return err
			}
			defer s.Close()
			if in.Start != nil {
				// The join that starts a duel reads its source as debate
				// start does: over MCP only inside the project folder.
				src, err := a.source(s)
				if err != nil {
					return err
				}
				if start.Source, err = src.Path(start.Source, "--source"); err != nil {
					return err
				}
			}
			if start.Artifact != "" {
				if in.Start == nil {
					return store.Errorf(store.CodeUsage, "debate join ID takes no --artifact: only a join that starts the debate (--protocol P --subject S) records one").
						WithHint("nothing was written; give --artifact to debate start, or to join --protocol review --subject S")
				}
				if start.Artifact, start.FreshArtifact, err = a.artifactPath(s, start.Artifact); err != nil {
					return err
				}
			}
			r, err := loop.JoinDebate(s, a.debateOpts(cmd), in)
			if err != nil {
				return err
			}
			verb := "Joined"
			if r.Joined != nil && !*r.Joined {
				verb = "Already joined"
			}
			return a.debateOK(r, fmt.Sprintf("%s %s as %s (%s).", verb, r.ID, r.ParticipantID, r.Role))
		},
	}
	c.Flags().StringVar(&start.Protocol, "protocol", "", "without ID: the protocol of the debate to join or start")
	c.Flags().StringVar(&start.Subject, "subject", "", "without ID: join the open debate on this subject (review), or start it")
	c.Flags().StringVar(&start.Source, "source", "", "without ID: join the open duel on this Markdown `FILE` (socratic), or start it")
	c.Flags().StringVar(&start.Artifact, "artifact", "", "without ID, when the join starts the debate: also render its transcript to `PATH` inside the project folder")
	c.Flags().StringVar(&start.Topic, "topic", "", "without ID: the topic (default: the subject, or the source's first heading)")
	c.Flags().StringVar(&in.Name, "participant-name", "", "the participant's name (required; the same name resumes)")
	c.Flags().StringVar(&in.AgentType, "agent-type", "", "the host's agent type the participant runs as, e.g. general-purpose (recorded and shown in the transcript)")
	c.Flags().StringVar(&in.FallbackFrom, "fallback-from", "", "the agent type first chosen, when --agent-type is a fallback (needs --fallback-reason)")
	c.Flags().StringVar(&in.FallbackReason, "fallback-reason", "", "why the --fallback-from type was not used")
	// run sets both variables for the agent it starts to join a debate
	// (loop.DebateAgentEnv), so its transcript says who spoke.
	c.Flags().StringVar(&in.Harness, "harness", os.Getenv("PROOFLOOP_HARNESS"), "the agent harness, e.g. claude-code (shown in the transcript; default $PROOFLOOP_HARNESS, which run sets)")
	c.Flags().StringVar(&in.ModelID, "model-id", os.Getenv("PROOFLOOP_MODEL_ID"), "the model, e.g. claude-opus-4 (shown in the transcript; default $PROOFLOOP_MODEL_ID, which run sets when the agent's command has --model)")
	return c
}

func (a *app) debateTurnCommand() *cobra.Command {
	var pid, input string
	var tf turnFlags
	c := &cobra.Command{
		Use:   "turn ID --participant-id P (--input FILE|- | --body TEXT [--suggestion TEXT]... [--conclusion O --conclusion-text TEXT ...])",
		Short: "Write a participant's turn; the engine validates it, then decides the outcome",
		Long: "turn reads the turn as one JSON object (--input FILE, or - for standard input) with the\n" +
			"protocol's fields (`proofloop transitions` lists them), or, for " + withField("body") + ", from --body\n" +
			"(Markdown), --suggestion (" + withField("suggestions") + ", repeatable) and --conclusion O with --conclusion-text\n" +
			"(" + withField("conclusion") + "; O one of " + strings.Join(conclusions(), "|") + ") and, for a dialectic\n" +
			"conclusion, its summary: --agreed, --insight, --open-point (each repeatable) and --position ROLE=TEXT.\n" +
			"Unknown keys and trailing data are\n" +
			"refused. A dialectic user interjects with --participant-id user. The turn is checked before anything is written: a\n" +
			"broken field exits 2 naming it and the rule; a turn out of order, on a closed debate, or for a\n" +
			"seat another actor joined exits 4;\n" +
			"a turn while another holds the debate's lease exits 5 (give yours with --lease). After the turn\n" +
			"the engine evaluates the protocol's terminal rules and closes the debate in the same\n" +
			"transaction when one holds (outcome in the result).",
		Args: debateID,
		RunE: func(cmd *cobra.Command, args []string) error {
			if pid == "" {
				return store.Errorf(store.CodeUsage, "debate turn needs --participant-id").WithHint("debate join prints it")
			}
			if (input == "") == !tf.set() {
				return store.Errorf(store.CodeUsage, "give either --input FILE|- or --body TEXT (with --suggestion, --conclusion)").
					WithHint("a turn comes from one of the two: the whole turn as JSON with --input, or its flags (--body ...); drop the other")
			}
			s, err := a.open()
			if err != nil {
				return err
			}
			defer s.Close()
			src, err := a.source(s)
			if err != nil {
				return err
			}
			var raw []byte
			if input != "" {
				raw, err = turnInput(src, input)
			} else {
				raw, err = tf.turn(src)
			}
			if err != nil {
				return err
			}
			r, err := loop.TurnDebate(s, a.debateOpts(cmd), args[0], pid, raw)
			if err != nil {
				return err
			}
			return a.debateOK(r, fmt.Sprintf("Turn %d by %s (%s) recorded.", r.TurnNumber, r.ParticipantID, r.Role))
		},
	}
	f := c.Flags()
	f.StringVar(&pid, "participant-id", "", "the writer's participant id (from debate join), or user for a dialectic interjection")
	f.StringVar(&input, "input", "", "the turn as a JSON object in `FILE` (- reads standard input)")
	tf.register(f)
	return c
}

// joinOrders says each protocol's roles in join order: "socratic:
// participant, participant; ...; agora: the --position roles in order, and
// mediator when the debate asks for one".
func joinOrders() string {
	var out []string
	for _, p := range model.Protocols {
		roles := strings.Join(p.Roles, ", ")
		if len(p.Roles) == 0 {
			roles = "the --position roles in order, and mediator when the debate asks for one"
		}
		out = append(out, p.Name+": "+roles)
	}
	return strings.Join(out, "; ")
}

// limitUnits says the unit of each protocol's limit: "turns for socratic,
// agora; rounds for review, dialectic, panel".
func limitUnits() string {
	by := map[string][]string{}
	var units []string
	for _, p := range model.Protocols {
		if by[p.Limit.Unit] == nil {
			units = append(units, p.Limit.Unit)
		}
		by[p.Limit.Unit] = append(by[p.Limit.Unit], p.Name)
	}
	var out []string
	for _, u := range units {
		out = append(out, u+" for "+strings.Join(by[u], ", "))
	}
	return strings.Join(out, "; ")
}

func (a *app) debateWaitCommand() *cobra.Command {
	var pid string
	var timeout time.Duration
	c := &cobra.Command{
		Use:   "wait ID --participant-id P [--timeout D]",
		Short: "Block until it is P's turn or the debate is closed (file notifications, no polling)",
		Long: "wait returns as soon as it is the participant's turn or the debate is closed, watching the\n" +
			"event log with inotify; it exits 5 with code timeout when --timeout (default 10m; 0 waits\n" +
			"forever) runs out. Many waiters may run at once. Its result is the debate's state (whose_turn,\n" +
			"status, outcome).",
		Args: debateID,
		RunE: func(cmd *cobra.Command, args []string) error {
			if pid == "" {
				return store.Errorf(store.CodeUsage, "debate wait needs --participant-id")
			}
			if timeout < 0 {
				return store.Errorf(store.CodeUsage, "--timeout must not be negative")
			}
			s, err := a.open()
			if err != nil {
				return err
			}
			defer s.Close()
			r, err := loop.WaitDebate(cmd.Context(), s, args[0], pid, timeout)
			if err != nil {
				return err
			}
			what := "It is " + pid + "'s turn."
			if r.WhoseTurn.Closed {
				what = "The debate is closed."
			}
			return a.debateOK(r, what)
		},
	}
	c.Flags().StringVar(&pid, "participant-id", "", "the waiting participant's id")
	c.Flags().DurationVar(&timeout, "timeout", 10*time.Minute, "give up after `D` (exit 5, timeout); 0 waits forever")
	return c
}

func (a *app) debateCloseCommand() *cobra.Command {
	var outcome, summary string
	var discard bool
	c := &cobra.Command{
		Use:   "close ID (--outcome O [--summary TEXT] | --discard)",
		Short: "Close a debate with an outcome whose rule holds, TIMEOUT, or invalidated; or discard it",
		Long: "close --outcome O is accepted only when O's rule holds now (the engine usually closes a\n" +
			"debate itself after the deciding turn); when O is TIMEOUT (socratic) after `proofloop claim ID\n" +
			"--for-timeout` re-checked that a participant never joined (give its token with --lease); or\n" +
			"when O is the protocol's invalidated outcome (INVALIDATED, or invalidated) with the reason in\n" +
			"--summary. Otherwise it exits 4 saying what is missing. --discard removes the debate and its\n" +
			"transcript; the event log still records that it existed.",
		Args: debateID,
		RunE: func(cmd *cobra.Command, args []string) error {
			if (outcome == "") == !discard {
				return store.Errorf(store.CodeUsage, "give either --outcome O or --discard").
					WithHint("--outcome O closes the debate with an outcome whose rule holds; --discard removes it: give one")
			}
			s, err := a.open()
			if err != nil {
				return err
			}
			defer s.Close()
			in := loop.DebateClose{ID: args[0], Outcome: outcome, Discard: discard}
			if cmd.Flags().Changed("summary") {
				src, err := a.source(s)
				if err != nil {
					return err
				}
				if summary, err = src.Text("summary", summary); err != nil {
					return err
				}
				in.Summary = &summary
			}
			r, err := loop.CloseDebate(s, a.debateOpts(cmd), in)
			if err != nil {
				return err
			}
			if discard {
				if a.json {
					return a.debateOK(r, "")
				}
				fmt.Fprintf(a.stdout, "Discarded %s and its transcript %s.\n", r.ID, r.Artifact)
				return nil
			}
			return a.debateOK(r, "Closed "+r.ID+".")
		},
	}
	c.Flags().StringVar(&outcome, "outcome", "", "the `OUTCOME`: one of the protocol's outcomes (proofloop transitions --protocols lists them)")
	c.Flags().StringVar(&summary, "summary", "", "a closing summary; the reason of an invalidation (@FILE or @- reads it)")
	c.Flags().BoolVar(&discard, "discard", false, "remove the debate and its transcript (the event log keeps that it existed)")
	return c
}

func (a *app) debateShowCommand() *cobra.Command {
	var transcript bool
	c := &cobra.Command{
		Use:   "show ID [--transcript]",
		Short: "Print a debate's state (--json: the result keys plus the document as debate), or its transcript",
		Args:  debateID,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.open()
			if err != nil {
				return err
			}
			defer s.Close()
			d, r, err := loop.ShowDebate(s, args[0])
			if err != nil {
				return err
			}
			if transcript && !a.json {
				_, err := a.stdout.Write(loop.RenderDebate(d))
				return err
			}
			if a.json {
				raw, _ := json.Marshal(r)
				out := map[string]any{}
				json.Unmarshal(raw, &out)
				out["ok"], out["command"], out["debate"] = true, a.command, d
				if transcript {
					out["transcript"] = string(loop.RenderDebate(d))
				}
				return a.writeJSON(out)
			}
			if err := a.debateOK(r, d.Topic); err != nil {
				return err
			}
			if d.Research > 0 {
				fmt.Fprintf(a.stdout, "evidence pool (%s; cite an item by its id):\n", model.Count(len(d.EvidencePool), "item"))
				for _, l := range model.PoolLines(d) {
					fmt.Fprintf(a.stdout, "  %s\n", l)
				}
			}
			return nil
		},
	}
	c.Flags().BoolVar(&transcript, "transcript", false, "print the Markdown transcript (with --json: as the transcript key)")
	return c
}

func (a *app) debateListCommand() *cobra.Command {
	var status string
	c := &cobra.Command{
		Use:   "list [--status open|completed|invalidated]",
		Short: "List the debates with their status, whose turn and outcome",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if status != "" {
				if err := model.OneOf("status", status, []string{"open", "completed", "invalidated"}); err != nil {
					return store.Errorf(store.CodeInvalidInput, "%v", err).WithHint("--status takes open, completed or invalidated; without it every debate is listed")
				}
			}
			s, err := a.open()
			if err != nil {
				return err
			}
			defer s.Close()
			rs, err := loop.ListDebates(s, model.Status(status))
			if err != nil {
				return err
			}
			if a.json {
				return a.writeJSON(map[string]any{"ok": true, "command": a.command, "debates": rs})
			}
			if len(rs) == 0 {
				fmt.Fprintln(a.stdout, "No debates.")
			}
			for _, r := range rs {
				state := nextText(r.WhoseTurn)
				if r.Outcome != nil {
					state = r.Outcome.Outcome
				}
				fmt.Fprintf(a.stdout, "%s  %s  %s  %s\n", r.ID, r.Protocol, r.Status, state)
			}
			return nil
		},
	}
	c.Flags().StringVar(&status, "status", "", "only debates of this status: open, completed or invalidated")
	return c
}

func (a *app) debateTranscriptCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "transcript ID",
		Short: "Print the Markdown transcript of a debate, or a statement's check/fix thread as one",
		Args:  debateID,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.open()
			if err != nil {
				return err
			}
			defer s.Close()
			out, err := loop.Transcript(s, args[0])
			if err != nil {
				return err
			}
			if a.json {
				return a.writeJSON(map[string]any{"ok": true, "command": a.command, "id": args[0], "transcript": string(out)})
			}
			_, err = a.stdout.Write(out)
			return err
		},
	}
}
