package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
	"github.com/proofloop/proofloop/store"
)

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
			return a.withSource(func(s *store.Store, src skills.Source) error {
				var err error
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
			})
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
// the project folder. Where an agent may be acting (over MCP, in a run's
// turn, under a lease: personOnly) it must also lie under the project's
// debates folder and be new (agentArtifact). It returns the path relative
// to the project folder, and the absolute path that must not exist yet
// when the debate is created ("" for a person's).
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
	if rel, err = s.ProjectPath(p, base, "--artifact"); err != nil || !a.agentMayAct() {
		return rel, "", err
	}
	project, err := s.ProjectDir()
	if err != nil {
		return "", "", store.Errorf(store.CodeInvalidInput, "the project folder of %s: %v", s.Dir, err)
	}
	return rel, filepath.Join(project, filepath.FromSlash(rel)), agentArtifact(p, rel)
}

// agentArtifact is what an artifact named where an agent may act (over
// MCP, in a run's turn, under a lease) must be besides lying in the
// project folder (N3): a file under its debates folder, in no dot-folder
// and no dot-file (rel has its symlinks resolved, so a linked debates/
// that leads to .git/hooks is seen as that). A file already there is
// refused when the debate is created (loop.DebateStart.FreshArtifact),
// unless the call joins the debate it is the artifact of: an agent could
// otherwise replace README.md or a git hook.
func agentArtifact(p, rel string) error {
	under, ok := strings.CutPrefix(rel, model.ProjectDebatesDir+"/")
	hint := "nothing was written; over MCP and in an agent's turn a debate's artifact is a new file under the project's " + model.ProjectDebatesDir + "/ folder, e.g. " + model.ProjectDebatesDir + "/review.md"
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
			return a.withStore(func(s *store.Store) error {
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
					var err error
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
			})
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
