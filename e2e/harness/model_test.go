package harness

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The scripted model. It keeps no state: every request carries the whole
// conversation, and the next step is decided from it, as a model would:
// from the prompt (which role, which item), what the SessionStart hook's
// `prime --id` put in the session (a check or fix turn reads its revision,
// numbered sentences and open issues there, and makes no other read), the
// calls made so far and what they printed (ids, revisions read from
// proofloop's JSON), and, after a refusal, from the refusal's hint.

// The small proof the model works out: two even integers have an even sum.
// The first proof skips a step (sentence 3 does not say why 2k + 2m is
// even); the checker finds it and the fixer patches it.
const (
	proofText  = "Write a = 2k and b = 2m for integers k and m. Then a + b = 2k + 2m. Hence a + b is even."
	gapText    = "Hence a + b is even."
	patchText  = "Hence a + b = 2(k + m), and k + m is an integer, so a + b is even."
	foreignCmd = "cat /etc/passwd"
)

// call is one tool call of a conversation and what came back.
type call struct {
	ID      string
	Tool    string
	Input   map[string]any
	Result  string
	IsError bool
	Done    bool // a result came back
}

// command is a Bash call's command line.
func (c call) command() string { s, _ := c.Input["command"].(string); return s }

// result is what proofloop printed, as JSON: a Bash result may carry a
// line such as "Exit code 5" before the object.
func (c call) result() map[string]any {
	s := c.Result
	if i := strings.Index(s, "{"); i >= 0 {
		s = s[i:]
	}
	var m map[string]any
	if json.NewDecoder(strings.NewReader(s)).Decode(&m) != nil {
		return nil
	}
	return m
}

// conversation is what the model reads in a request.
type conversation struct {
	Prompt string // the first user text that is not a system reminder
	Role   string // the role the prompt names
	ID     string // the item the prompt names
	Prime  string // what the SessionStart hook's prime --id put in the session
	Calls  []call
}

var turnPrompt = regexp.MustCompile(`(?i)take the (\w+) turn on ([a-z0-9_]+)`)

// read digests a request.
func read(r *request) *conversation {
	c := &conversation{}
	byID := map[string]int{}
	for _, m := range r.Messages {
		for _, b := range m.blocks() {
			switch {
			case b.Type == "text" && m.Role == "user" && c.Prompt == "" && !strings.HasPrefix(strings.TrimSpace(b.Text), "<system-reminder>"):
				c.Prompt = b.Text
			case b.Type == "tool_use":
				var in map[string]any
				json.Unmarshal(b.Input, &in)
				byID[b.ID] = len(c.Calls)
				c.Calls = append(c.Calls, call{ID: b.ID, Tool: b.Name, Input: in})
			case b.Type == "tool_result":
				if i, ok := byID[b.ToolUseID]; ok {
					c.Calls[i].Result, c.Calls[i].IsError, c.Calls[i].Done = text(b.Content), b.IsError, true
				}
			}
		}
	}
	c.Prime = sessionStart(r)
	if m := turnPrompt.FindStringSubmatch(c.Prompt); m != nil {
		c.Role, c.ID = strings.ToLower(m[1]), m[2]
	}
	return c
}

// decide is the scripted model.
func decide(r *request) reply {
	c := read(r)
	if c.ID == "" {
		return reply{Text: "I was not given a proofloop item, so there is nothing for me to do."}
	}
	a := c.agent()
	if cmd, _ := a.Input["command"].(string); a.Tool == "Bash" && c.refused(cmd) {
		return done("proofloop refused %q already; I will not repeat it unchanged, so I stop.", cmd)
	}
	return a
}

// refused reports whether proofloop already refused this exact call.
func (c *conversation) refused(cmd string) bool {
	for _, k := range c.Calls {
		if res := k.result(); k.command() == cmd && res != nil && res["ok"] == false {
			return true
		}
	}
	return false
}

func bash(cmd string) reply {
	return reply{Tool: "Bash", Input: map[string]any{"command": cmd, "description": "proofloop"}}
}

func done(format string, a ...any) reply { return reply{Text: fmt.Sprintf(format, a...)} }

// q quotes s for the shell.
func q(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// agent is the session of a role's agent: it reads the item, acts with
// one skill, and recovers from a refusal by doing what its hint says.
func (c *conversation) agent() reply {
	if n := len(c.Calls); n >= 2 {
		// A refused call, then the command its hint named: decide again
		// with what that command said.
		refused, read := c.Calls[n-2], c.Calls[n-1]
		if res, now := refused.result(), read.result(); res != nil && res["ok"] == false && now != nil && now["ok"] == true &&
			skillCall(refused.command()) != "" && skillCall(read.command()) == "" && strings.Contains(refused.command(), "--expect-revision ") {
			return bash(setFlag(refused.command(), "--expect-revision", fmt.Sprint(now["revision"])))
		}
	}
	if len(c.Calls) > 0 {
		last := c.Calls[len(c.Calls)-1]
		if strings.HasPrefix(last.command(), "proofloop ") && last.result() == nil {
			return done("I was not allowed to run proofloop (%q), so I cannot take this turn.", last.Result)
		}
		if res := last.result(); res != nil && res["ok"] == false {
			return c.recover(last, res)
		}
		if res := last.result(); res != nil && res["ok"] == true && skillCall(last.command()) != "" {
			return done("Done: %s on %s left it %v.", skillCall(last.command()), c.ID, res["status"])
		}
	}
	// A check or fix turn acts on what the SessionStart hook's prime gave it.
	if c.Role == "check" || c.Role == "fix" {
		b, read := c.briefed()
		if read != nil {
			return *read
		}
		if c.Role == "check" {
			return c.check(b)
		}
		return c.fix(b)
	}
	// Read the item first; every decision below rests on what it says.
	doc, ok := c.shown(c.ID)
	if !ok {
		return bash("proofloop show " + c.ID + " --sentences --json")
	}
	switch c.Role {
	case "solve":
		return c.solve(doc)
	case "prove":
		return bash("proofloop state-complete-proof --statement-path " + c.ID + " --strategy direct --proof-text " + q(proofText) + " --json")
	}
	return done("There is no %s role I know.", c.Role)
}

// shown is the document of the latest successful `proofloop show ID`.
func (c *conversation) shown(id string) (map[string]any, bool) {
	for i := len(c.Calls) - 1; i >= 0; i-- {
		k := c.Calls[i]
		if f := strings.Fields(k.command()); len(f) >= 3 && f[0] == "proofloop" && f[1] == "show" && f[2] == id {
			if res := k.result(); res != nil && res["ok"] == true {
				doc, _ := res["document"].(map[string]any)
				return doc, doc != nil
			}
		}
	}
	return nil, false
}

// tried reports whether a Bash call with this exact command was made.
func (c *conversation) tried(cmd string) bool {
	for _, k := range c.Calls {
		if k.command() == cmd {
			return true
		}
	}
	return false
}

// skillCall is the proofloop skill a command line calls, or "".
func skillCall(cmd string) string {
	f := strings.Fields(cmd)
	if len(f) < 2 || f[0] != "proofloop" {
		return ""
	}
	switch f[1] {
	case "show", "prime", "next", "status", "release", "list", "events":
		return ""
	}
	return f[1]
}

func strs(v any) []string {
	var out []string
	l, _ := v.([]any)
	for _, x := range l {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// solve wraps the problem up into a statement, or finishes it once a
// wrap-up statement is true. Before its first wrap-up it also looks at a
// file outside the project, which the permissions must refuse.
func (c *conversation) solve(doc map[string]any) reply {
	id := c.ID
	for _, w := range strs(doc["progresses"]) {
		st, ok := c.shown(w)
		if !ok {
			return bash("proofloop show " + w + " --json")
		}
		if st["status"] == "true" {
			return bash("proofloop prob-finish-up --problem-path " + id + " --key-statement-id " + w +
				" --resolution " + q("The objective is exactly what "+w+" states, and "+w+" is proved.") + " --json")
		}
	}
	if len(strs(doc["progresses"])) > 0 {
		return done("%s waits for its statements; nothing for me to do.", id)
	}
	if !c.tried(foreignCmd) {
		return bash(foreignCmd)
	}
	objective, _ := doc["objective"].(string)
	cmd := "proofloop prob-wrapup-statement --problem-path " + id + " --claim " + q(objective)
	for _, h := range strs(doc["hypothesis"]) {
		cmd += " --premises " + q(h)
	}
	return bash(cmd + " --purpose " + q("It is the objective, stated as a claim to prove.") + " --json")
}

// brief is what a check or fix turn acts on: the item's revision, the
// proof's revision, its numbered sentences and its open issues.
type brief struct {
	Revision, ProofRevision int
	Sentences               map[int]string
	Issues                  []issue // the open ones
}

// issue is an open issue and the sentence it cites.
type issue struct{ Number, Sentence int }

// enough reports whether the brief holds what the role's decision needs:
// the revision to pass, and the sentences to judge (check) or an open
// issue and its sentence (fix).
func (b brief) enough(role string) bool {
	if role == "check" {
		return b.Revision > 0 && b.ProofRevision > 0 && len(b.Sentences) > 0
	}
	return b.Revision > 0 && len(b.Issues) > 0 && b.Sentences[b.Issues[0].Sentence] != ""
}

var (
	primeHead     = regexp.MustCompile(`turn on \S+ \(\w+, status \w+, revision (\d+)`)
	primeProof    = regexp.MustCompile(`(?m)^Proof \(revision (\d+)`)
	primeSentence = regexp.MustCompile(`^\[(\d+)\] (.*)$`)
	primeIssue    = regexp.MustCompile(`^\s+\^ open issue (\d+) `)
	primeOldIssue = regexp.MustCompile(`^Open issue on proof revision \d+, sentence (\d+): open issue (\d+) `)
)

// primed reads the brief from the text of `prime --role R --id ID` that the
// SessionStart hook put in the session: the revision from its first line,
// the proof's revision, each "[N] sentence", and each open issue under the
// sentence it cites.
func primed(text string) brief {
	b := brief{Sentences: map[int]string{}}
	if m := primeHead.FindStringSubmatch(text); m != nil {
		b.Revision, _ = strconv.Atoi(m[1])
	}
	if m := primeProof.FindStringSubmatch(text); m != nil {
		b.ProofRevision, _ = strconv.Atoi(m[1])
	}
	at := 0
	for _, l := range strings.Split(text, "\n") {
		if m := primeSentence.FindStringSubmatch(l); m != nil {
			at, _ = strconv.Atoi(m[1])
			b.Sentences[at] = m[2]
		} else if m := primeIssue.FindStringSubmatch(l); m != nil && at > 0 {
			n, _ := strconv.Atoi(m[1])
			b.Issues = append(b.Issues, issue{Number: n, Sentence: at})
		} else if m := primeOldIssue.FindStringSubmatch(l); m != nil {
			s, _ := strconv.Atoi(m[1])
			n, _ := strconv.Atoi(m[2])
			b.Issues = append(b.Issues, issue{Number: n, Sentence: s})
		}
	}
	return b
}

// shownBrief reads the brief from `proofloop show ID --sentences --json`,
// which the model runs only when prime fell short.
func shownBrief(res map[string]any) brief {
	b := brief{Sentences: map[int]string{}}
	doc, _ := res["document"].(map[string]any)
	rev, _ := doc["revision"].(float64)
	proofRev, _ := doc["proof_revision"].(float64)
	b.Revision, b.ProofRevision = int(rev), int(proofRev)
	sentences, _ := res["sentences"].([]any)
	for _, x := range sentences {
		m, _ := x.(map[string]any)
		n, _ := m["number"].(float64)
		b.Sentences[int(n)], _ = m["text"].(string)
	}
	v, _ := doc["validate"].(map[string]any)
	answered := map[float64]bool{}
	responses, _ := v["responses"].([]any)
	for _, r := range responses {
		m, _ := r.(map[string]any)
		for _, n := range toList(m["issue_addressed"]) {
			answered[n] = true
		}
	}
	issues, _ := v["issues"].([]any)
	for _, x := range issues {
		m, _ := x.(map[string]any)
		n, _ := m["issue_number"].(float64)
		s, _ := m["sentence"].(float64)
		if !answered[n] {
			b.Issues = append(b.Issues, issue{Number: int(n), Sentence: int(s)})
		}
	}
	return b
}

// briefed is the brief a check or fix turn acts on: prime's, which the
// SessionStart hook gave it; only when that lacks what the decision needs
// does the model read the item itself, as a model would (and the test then
// fails: a check or fix turn must need no other read).
func (c *conversation) briefed() (brief, *reply) {
	if b := primed(c.Prime); b.enough(c.Role) {
		return b, nil
	}
	read := "proofloop show " + c.ID + " --sentences --json"
	for _, k := range c.Calls {
		if res := k.result(); k.command() == read && res != nil && res["ok"] == true {
			if b := shownBrief(res); b.enough(c.Role) {
				return b, nil
			}
			r := done("Neither prime nor show gives me what a %s turn on %s needs; I stop.", c.Role, c.ID)
			return brief{}, &r
		}
	}
	r := bash(read)
	return brief{}, &r
}

// check rejects the first proof at the sentence that skips a step, and
// confirms a proof without that sentence, each with the revision prime
// gave. The rejection takes the number from the wrong place (the proof's
// revision, not the item's): the refusal's hint has to put it right.
func (c *conversation) check(b brief) reply {
	for n, text := range b.Sentences {
		if text == gapText {
			return bash(fmt.Sprintf("proofloop check-reject-proof --statement-path %s --sentence-number %d --sentence-text %s"+
				" --error-type unjustified_leap --explanation %s --suggested-fix %s --expect-revision %d --json",
				c.ID, n, q(gapText), q("It does not say why 2k + 2m is even."),
				q("Factor out 2: 2k + 2m = 2(k + m)."), b.ProofRevision))
		}
	}
	return bash(fmt.Sprintf("proofloop check-confirm-proof --statement-path %s --verification-summary %s --expect-revision %d --json",
		c.ID, q("Checked every sentence; each follows from the premises and the ones before."), b.Revision))
}

// fix patches the sentence of the first open issue.
func (c *conversation) fix(b brief) reply {
	is := b.Issues[0]
	return bash(fmt.Sprintf("proofloop fix-patch-proof --statement-path %s --issue-number %d --sentence-range %d"+
		" --replacement-text %s --change-description %s --expect-revision %d --json", c.ID, is.Number, is.Sentence,
		q(patchText), q("Say why 2k + 2m is even."), b.Revision))
}

// toList reads a number or a list of numbers.
func toList(v any) []float64 {
	switch x := v.(type) {
	case float64:
		return []float64{x}
	case []any:
		var out []float64
		for _, y := range x {
			if f, ok := y.(float64); ok {
				out = append(out, f)
			}
		}
		return out
	}
	return nil
}

var (
	hintCommand = regexp.MustCompile("`(proofloop [^`]+)`")
	hintFlag    = regexp.MustCompile(`(--[a-z-]+)[ =](\d+)`)
)

// recover answers a refused call by following its hint: when the hint
// names a flag with a value, it retries the call with that value; when it
// names a proofloop command, it runs it (with --json, to read the result)
// and then retries with what that command said. Without a hint it gives
// up, as a model with nothing to go on should.
func (c *conversation) recover(failed call, res map[string]any) reply {
	e, _ := res["error"].(map[string]any)
	hint, _ := e["hint"].(string)
	code, _ := e["code"].(string)
	cmd := failed.command()
	if m := hintFlag.FindStringSubmatch(hint); m != nil && strings.Contains(cmd, m[1]+" ") {
		if retry := setFlag(cmd, m[1], m[2]); retry != cmd {
			return bash(retry)
		}
	}
	if m := hintCommand.FindStringSubmatch(hint); m != nil {
		run := m[1]
		if !strings.Contains(run, "--json") {
			run += " --json"
		}
		return bash(run)
	}
	return done("proofloop refused (%s): %v; the hint %q gives me nothing to do, so I stop.", code, e["message"], hint)
}

// setFlag gives a flag of a command line a new value.
func setFlag(cmd, flag, value string) string {
	return regexp.MustCompile(regexp.QuoteMeta(flag)+` \S+`).ReplaceAllString(cmd, flag+" "+value)
}
