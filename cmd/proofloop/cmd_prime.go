package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
	"github.com/proofloop/proofloop/store"
)

func (a *app) primeCommand() *cobra.Command {
	var o primeOptions
	c := &cobra.Command{
		Use:   "prime --role R [--id ID] [--hook]",
		Short: "Print a short orientation for an agent starting a session in a role; with --id, the item as the role needs it",
		Args:  noArgs,
		RunE:  func(*cobra.Command, []string) error { return a.runPrime(o) },
	}
	c.Flags().StringVar(&o.ID, "id", "", "the item of your turn ($PROOFLOOP_ID): print it as your role needs it, with the skills allowed now")
	c.Flags().BoolVar(&o.Hook, "hook", false, "run as a session-start hook: outside a project (no contents root) print nothing and exit 0")
	c.Flags().StringVar(&o.Role, "role", "", "solve, prove, check, fix or decide; or a debate role: "+strings.Join(model.DebateRoles(), ", "))
	return c
}

// primeOptions are prime's flags.
type primeOptions struct {
	Role, ID string
	Hook     bool // a session-start hook: quiet outside a project
}

// runPrime prints the orientation of a session in o.Role, or with o.ID
// the item of its turn.
func (a *app) runPrime(o primeOptions) error {
	if o.Role == "" {
		if _, err := parseRole(o.Role, false); err != nil {
			return err
		}
	}
	// A debate's roles read the debate with `debate show`: run
	// names it in $PROOFLOOP_ID too, and the hook passes it on.
	if k, err := model.KindOf(o.ID); o.ID != "" && (err != nil || k != model.KindDebate) {
		return a.primeItem(o.Role, o.ID, o.Hook)
	}
	// An open agora debate's position is a role too (run sets it as
	// $PROOFLOOP_ROLE for the session hook).
	s, r, err := a.openWithRole(o.Role)
	if err != nil && o.Hook && store.CodeOf(err) == store.CodeNotFound {
		return a.primeOutside()
	}
	if err != nil {
		return err
	}
	defer s.Close()
	v, err := primeGather(s, r, o.ID)
	if err != nil {
		return err
	}
	if a.json {
		return a.writeJSON(map[string]any{"ok": true, "command": "prime", "role": r, "roots": v.roots,
			"state": v.counts, "kernel_checked": v.kernel, "next": nonNilItems(v.next), "skills": v.skills, "protocols": v.protos, "guidance": v.guidance,
			"evidence_pools": v.pools, "debate": v.debate})
	}
	if len(v.protos) > 0 {
		primeDebate(a.stdout, a.root, r, v.state, v.next, v.protos, v.debate)
		primePools(a.stdout, v.pools)
		return nil
	}
	primeRole(a.stdout, a.root, v)
	return nil
}

// primeView is what `prime --role R` tells a session: the project's state,
// and the role's next items, skills, protocols, guidance and evidence pools.
type primeView struct {
	role     model.Role
	roots    []string
	counts   map[string]int // documents by "kind status"
	kernel   int            // true statements a kernel checked
	state    []string       // counts as phrases, in key order
	next     []*loop.Item
	skills   []string
	protos   []primeProtocol
	guidance []loop.Guidance
	pools    []loop.DebatePool
	debate   *model.DebateContext // with --id, the role's debate
}

// primeGather reads what prime says about role r; id, when set, is r's
// debate, given as seed 004's context injection gives it: the role's
// position, the topic, what the other side said.
func primeGather(s *store.Store, r model.Role, id string) (*primeView, error) {
	snap, err := loop.Load(s)
	if err != nil {
		return nil, err
	}
	v := &primeView{role: r, roots: snap.Roots, counts: map[string]int{}, skills: []string{}, protos: primeProtocols(r), pools: []loop.DebatePool{}}
	if v.roots == nil {
		v.roots = []string{}
	}
	for _, it := range snap.Items {
		v.counts[string(it.Kind)+" "+string(it.Status)]++
		if it.Status == model.StatementTrue && it.KernelChecked() {
			v.kernel++
		}
	}
	for _, k := range slices.Sorted(maps.Keys(v.counts)) {
		kind, status, _ := strings.Cut(k, " ")
		v.state = append(v.state, model.Count(v.counts[k], kind)+" "+status)
	}
	v.next = snap.Actionable(r, "")
	for _, sk := range skills.ForRole(r) {
		v.skills = append(v.skills, sk.Name)
	}
	if v.guidance, err = loop.GuidanceFor(context.Background(), s, r, "", 0); err != nil {
		return nil, err
	}
	if len(v.protos) > 0 {
		if v.pools, err = loop.EvidencePools(s, string(r)); err != nil {
			return nil, err
		}
	}
	if id != "" {
		d, _, err := loop.ShowDebate(s, id)
		if err != nil {
			return nil, err
		}
		c := model.ContextOf(d, string(r))
		v.debate = &c
	}
	return v, nil
}

// primeRole prints the orientation of a proof role or decide: the state,
// the role's next items, its skills and commands, and the guidance.
func primeRole(w io.Writer, root string, v *primeView) {
	r := v.role
	fmt.Fprintf(w, "You are the %s agent of a proofloop project (root %s).\n\n", r, root)
	rootsLine := model.Count(len(v.roots), "root problem")
	if len(v.roots) > 0 {
		rootsLine += " (" + strings.Join(v.roots, ", ") + ")"
	}
	if len(v.state) > 0 {
		rootsLine += "; " + strings.Join(v.state, ", ")
	}
	fmt.Fprintf(w, "State: %s.\n", rootsLine)
	if n := v.counts["statement true"]; n > 0 {
		fmt.Fprintf(w, "Of the %s, %d kernel-checked; the others rest on the agents' word.\n", model.Count(n, "true statement"), v.kernel)
	}
	fmt.Fprintf(w, "\nNext for %s (%s, deepest first):\n", r, model.Count(len(v.next), "item"))
	for i, it := range v.next {
		if i == 5 {
			fmt.Fprintf(w, "  ... and %d more (`proofloop next --role %s`)\n", len(v.next)-5, r)
			break
		}
		lease := ""
		if it.Holder != "" {
			lease = " (leased to " + it.Holder + ")"
		}
		fmt.Fprintf(w, "  %s [%s]: %s%s\n", it.ID, it.Status, it.Reason, lease)
	}
	if len(v.next) == 0 {
		fmt.Fprintln(w, "  nothing now; `proofloop status` shows what everything waits on.")
	}
	fmt.Fprintf(w, "\nYour skills: %s (`proofloop <skill> --help`).\n", strings.Join(v.skills, ", "))
	primeNotes(w, r)
	fmt.Fprintf(w, "\nCommands:\n")
	fmt.Fprintf(w, "  proofloop next --role %s --claim --holder NAME --json   take an item; export PROOFLOOP_LEASE=<lease>\n", r)
	fmt.Fprintf(w, "  proofloop show ID --sentences                            read an item, proof numbered as checkers cite it\n")
	fmt.Fprintf(w, "  proofloop <skill> ... --json                             act; one skill that changes the status ends your turn\n")
	fmt.Fprintf(w, "  proofloop release ID                                     give the item back if you cannot act\n")
	fmt.Fprintf(w, "  proofloop status                                         the whole tree and whose turn it is\n")
	if len(v.guidance) > 0 {
		fmt.Fprintln(w)
		primeGuidance(w, v.guidance)
	}
	primeShared(w)
}

// primeProtocol is what `prime --role R` says about a debate protocol R
// takes part in: the turn fields R writes, the generated file that tells it
// the rest, and its commands (skills.DebateCommands, the list the file
// prints too).
type primeProtocol struct {
	Name     string                 `json:"name"`
	Summary  string                 `json:"summary"`
	File     string                 `json:"file"`
	Writes   []string               `json:"writes"`
	Commands []skills.DebateCommand `json:"commands"`
	// Shape and Fields are the turn format: what a turn is, and every
	// field the role writes with its values and rule.
	Shape string   `json:"shape"`
	Lines []string `json:"fields"`
}

// primeProtocols returns the debate protocols role takes part in, none for
// the proof roles and decide. A name that is neither a proof role nor a
// fixed debate role was accepted by parseRole as an agora position.
func primeProtocols(r model.Role) []primeProtocol {
	out := []primeProtocol{}
	if slices.Contains(skills.Roles(), r) || r == "decide" {
		return out
	}
	for _, p := range model.ProtocolsOfRole(string(r), true) {
		pp := primeProtocol{Name: p.Name, Summary: p.Summary, File: p.DocOf(string(r)).Path, Writes: []string{},
			Commands: skills.DebateCommands(p, string(r))}
		pp.Shape = p.TurnShape(string(r))
		for _, f := range p.FieldsOf(string(r)) {
			pp.Writes = append(pp.Writes, f.Name)
			pp.Lines = append(pp.Lines, fieldLine(f, false))
		}
		out = append(out, pp)
	}
	return out
}

// primeDebate prints the orientation of a debate role: the open debates
// waiting on it (the derivation `next` uses), its protocols, and the
// commands it runs.
func primeDebate(w io.Writer, root string, r model.Role, state []string, next []*loop.Item, protos []primeProtocol, dctx *model.DebateContext) {
	if len(state) == 0 {
		state = []string{"an empty store"}
	}
	fmt.Fprintf(w, "You are a %s in proofloop debates (root %s).\n\n", r, root)
	fmt.Fprintf(w, "State: %s.\n", strings.Join(state, ", "))
	if dctx != nil {
		fmt.Fprintf(w, "\nYour debate:\n")
		for _, l := range dctx.Lines() {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
	fmt.Fprintf(w, "\nOpen debates waiting on %s (%d):\n", r, len(next))
	for _, it := range next {
		lease := ""
		if it.Holder != "" {
			lease = " (leased to " + it.Holder + ")"
		}
		fmt.Fprintf(w, "  %s: %s%s\n", it.ID, it.Reason, lease)
	}
	if len(next) == 0 {
		fmt.Fprintln(w, "  none now; `proofloop debate list --status open` shows every open debate.")
	}
	for _, p := range protos {
		fmt.Fprintf(w, "\nProtocol %s: %s\n", p.Name, p.Summary)
		fmt.Fprintf(w, "You write: %s. %s has your guide and the outcomes; `proofloop debate example %s` prints a worked debate.\n", strings.Join(p.Writes, ", "), p.File, p.Name)
		fmt.Fprintf(w, "\nTurn format: %s. The engine stamps turn_number, participant_id, role and at; any other key is refused.\n", p.Shape)
		for _, l := range p.Lines {
			fmt.Fprintf(w, "  %s\n", l)
		}
		fmt.Fprintf(w, "\nCommands (ID is the debate, P your participant_id from join):\n")
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, c := range p.Commands {
			fmt.Fprintf(tw, "  %s\t%s\n", c.Run, c.What)
		}
		tw.Flush()
	}
	fmt.Fprintf(w, "\n`proofloop next --role %s` lists the same debates; `proofloop transitions --protocols` prints every turn field and rule.\n", r)
	fmt.Fprintln(w, "\nTurns go in join order. A turn out of order or on a closed debate is refused (exit 4), one while")
	fmt.Fprintln(w, "another holds the debate's lease exit 5; a turn that breaks a field's rule exit 2, naming the field.")
	fmt.Fprintln(w, "A refused call writes nothing. Do not poll: `debate wait` returns when it is your turn or the debate")
	fmt.Fprintln(w, "closed (exit 5 `timeout`: run it again); its --json has whose_turn (with require or advice) and the")
	fmt.Fprintln(w, "outcome. Read the other side first (`debate show ID --transcript`). The engine closes the debate")
	fmt.Fprintln(w, "when an outcome's rule holds. Every change rewrites the transcript, .debates/DATE-TOPIC.md under the")
	fmt.Fprintln(w, "root; `debate join` with the same name gives your participant back after a lost session.")
}

// primePools prints the evidence pool of each open debate with a research
// stage that the role takes part in, as seed 004's EVIDENCE POOL section.
func primePools(w io.Writer, pools []loop.DebatePool) {
	for _, p := range pools {
		fmt.Fprintf(w, "\nEVIDENCE POOL of %s (%s, from %s): use it, cite an item by its id; cite nothing else you cannot verify.\n",
			p.ID, model.Count(len(p.Pool), "item"), model.Count(p.Research, "research turn"))
		for _, e := range p.Pool {
			fmt.Fprintf(w, "  %s\n", e.Line())
		}
	}
}

// primeOutside answers a session-start hook run outside a project: there is
// nothing to orient for, and a hook that fails would show an error in every
// session of an unrelated folder (beads' `bd prime` keeps quiet there too).
func (a *app) primeOutside() error {
	if a.json {
		return a.writeJSON(map[string]any{"ok": true, "command": "prime", "project": false})
	}
	return nil
}

// primeItem prints `prime --role R --id ID`: the item, then what every
// turn needs (primeShared). As a hook outside a project it keeps quiet.
func (a *app) primeItem(role, id string, hook bool) error {
	r, err := parseRole(role, false)
	if err != nil {
		return err
	}
	s, err := a.open()
	if err != nil && hook && store.CodeOf(err) == store.CodeNotFound {
		return a.primeOutside()
	}
	if err != nil {
		return err
	}
	defer s.Close()
	b, err := loop.ReadBrief(s, r, id, a.lease)
	if err != nil {
		return err
	}
	if a.json {
		purposes := map[string]string{}
		for _, al := range b.Allowed {
			purposes[al.Skill] = decideShort
			if sk, ok := skills.Find(al.Skill); ok {
				purposes[al.Skill] = sk.Purpose
			}
		}
		return a.writeJSON(map[string]any{"ok": true, "command": "prime", "role": r, "brief": b, "skills": purposes})
	}
	primeBrief(a.stdout, b)
	primeShared(a.stdout)
	return nil
}
