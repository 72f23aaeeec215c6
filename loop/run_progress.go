package loop

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/proofloop/proofloop/model"
)

// The progress of a run comes two ways. For a person (RunOptions.Progress,
// stderr): a line when each turn starts and ends, a line when an agent is
// given up, and on a terminal a live line that is rewritten in place. For
// programs (RunOptions.Events, stdout under --json): one JSON object per
// line, in these shapes. The summary line that ends the stream is the
// command's result object, written by the CLI.

// TurnStarted is the turn_started line: a turn claimed its item and is
// about to start the agent. Turns are numbered in the order they start.
type TurnStarted struct {
	Event  string     `json:"event"` // "turn_started"
	RunID  string     `json:"run_id"`
	Turn   int        `json:"turn"`
	Role   model.Role `json:"role"`
	ID     string     `json:"id"`
	Kind   model.Kind `json:"kind"`
	Reason string     `json:"reason"` // why it is this role's turn
	Agent  string     `json:"agent"`  // the command line, run with sh -c
	// AgentName and Model are the agent's name and model label in
	// config.json, when it has them.
	AgentName string `json:"agent_name,omitempty"`
	Model     string `json:"model,omitempty"`
	Actor     string `json:"actor"`
	Log       string `json:"log"` // root-relative
	Time      string `json:"time"`
}

// TurnEnded is the turn_ended line: how the agent ended and what changed.
type TurnEnded struct {
	Event        string     `json:"event"` // "turn_ended"
	RunID        string     `json:"run_id"`
	Turn         int        `json:"turn"`
	Role         model.Role `json:"role"`
	ID           string     `json:"id"`
	Outcome      string     `json:"outcome"`   // ok, failed, timeout, interrupted, not_started
	ExitCode     *int       `json:"exit_code"` // null when the agent was killed or did not start
	DurationMS   int64      `json:"duration_ms"`
	StatusBefore string     `json:"status_before"`
	StatusAfter  string     `json:"status_after"` // "" when the item could not be read back
	Changed      bool       `json:"changed"`      // the item's revision moved
	Idle         bool       `json:"idle"`         // changed nothing, and was charged to the item's budget
	Error        string     `json:"error,omitempty"`
	// AgentError is the error the agent's CLI reported (its JSON output),
	// for a turn that did not end ok.
	AgentError string `json:"agent_error,omitempty"`
	// NoCall: the turn failed before any proofloop call, and is not
	// charged to the item's budget.
	NoCall       bool   `json:"no_call,omitempty"`
	UsageWarning string `json:"usage_warning,omitempty"` // the usage the agent reported was not counted, and why
	Time         string `json:"time"`
}

// AgentGivenUp is the agent_given_up line: a role's agent failed
// max_agent_failures turns in a row, and the run starts it no more.
type AgentGivenUp struct {
	Event string `json:"event"` // "agent_given_up"
	RunID string `json:"run_id"`
	GivenUp
	Time string `json:"time"`
}

// reporter writes a run's progress. Its methods are safe for concurrent use.
type reporter struct {
	text   io.Writer
	events io.Writer
	width  int // of the live line; 0 for none
	runID  string
	start  time.Time

	mu       sync.Mutex
	inflight map[int]*turnRecord
	shown    bool // the live line is on the terminal
	stop     chan struct{}
	stopped  chan struct{}
}

func newReporter(o RunOptions, runID string, start time.Time) *reporter {
	p := &reporter{text: o.Progress, events: o.Events, runID: runID, start: start, inflight: map[int]*turnRecord{}}
	if o.Progress != nil && o.LiveWidth > 0 {
		p.width = o.LiveWidth
		p.stop, p.stopped = make(chan struct{}), make(chan struct{})
		go p.tick()
	}
	return p
}

// tick rewrites the live line every second, for its elapsed times.
func (p *reporter) tick() {
	defer close(p.stopped)
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			p.drawLive()
			p.mu.Unlock()
		}
	}
}

// close stops the live line and clears it from the terminal.
func (p *reporter) close() {
	if p.stop != nil {
		close(p.stop)
		<-p.stopped
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLive()
}

func (p *reporter) turnStarted(t *turnRecord) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.inflight[t.N] = t
	as := ""
	if t.AgentName != "" || t.Model != "" {
		as = fmt.Sprintf(" as %s (%s)", t.Actor, strings.Trim(t.AgentName+", "+t.Model, ", "))
	}
	p.line(fmt.Sprintf("turn %d: %s on %s started%s: %s", t.N, t.Role, t.ID, as, t.Agent))
	p.event(TurnStarted{Event: "turn_started", RunID: p.runID, Turn: t.N, Role: t.Role, ID: t.ID, Kind: t.Kind,
		Reason: t.Reason, Agent: t.Agent, AgentName: t.AgentName, Model: t.Model, Actor: t.Actor, Log: t.Log, Time: eventTime(t.Start)})
	p.drawLive()
}

func (p *reporter) turnEnded(t *turnRecord) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.inflight, t.N)
	e := TurnEnded{Event: "turn_ended", RunID: p.runID, Turn: t.N, Role: t.Role, ID: t.ID, Outcome: t.Outcome,
		ExitCode: t.ExitCode, DurationMS: t.Duration.Milliseconds(), Idle: t.Idle, Error: t.ErrText, AgentError: t.AgentError,
		NoCall: t.NoCall, UsageWarning: t.UsageWarning, Time: eventTime(cmpOr2(t.Ended, time.Now()))}
	if t.Before != nil {
		e.StatusBefore = string(t.Before.Status())
	}
	if t.After != nil {
		e.StatusAfter = string(t.After.Status())
		e.Changed = t.Before != nil && t.After.Revision() != t.Before.Revision()
	}
	var change string
	switch {
	case t.After == nil:
		change = "could not read " + t.ID + " back: " + t.ErrText
	case t.Idle:
		change = "changed nothing (counts against its budget)"
	case t.NoCall:
		change = "failed before any proofloop call (not charged to " + t.ID + ")"
	case !e.Changed:
		change = "changed nothing"
	case e.StatusBefore == e.StatusAfter:
		change = fmt.Sprintf("still %s, revision %d -> %d", e.StatusAfter, t.Before.Revision(), t.After.Revision())
	default:
		change = e.StatusBefore + " -> " + e.StatusAfter
	}
	how := exitText(t)
	switch t.Outcome {
	case TurnTimeout:
		how = "timed out, killed"
	case TurnInterrupted:
		how = "interrupted, killed"
	case TurnNotStarted:
		how = "did not start (" + exitText(t) + "; not charged to " + t.ID + ")"
	}
	if t.AgentError != "" {
		how += " (" + t.AgentError + ")"
	}
	p.line(fmt.Sprintf("turn %d: %s on %s ended: %s after %s; %s", t.N, t.Role, t.ID, how, fmtDuration(t.Duration), change))
	if t.UsageWarning != "" {
		p.line(fmt.Sprintf("turn %d: warning: %s", t.N, t.UsageWarning))
	}
	p.event(e)
	p.drawLive()
}

func (p *reporter) givenUp(g GivenUp) {
	p.mu.Lock()
	defer p.mu.Unlock()
	last := lastWords(GivenUp{LastOutcome: g.LastOutcome, LastExitCode: g.LastExitCode, AgentError: g.AgentError})
	failed := "failed"
	if g.LastOutcome == TurnNotStarted {
		failed, last = "could not start", last+" (its command was not found or is not executable; check agents."+string(g.Role)+" in config.json)"
	}
	msg := fmt.Sprintf("giving up on the %s agent (%s): it %s %s in a row, the last with %s", g.Role, g.Agent, failed, plural(g.Failures, "turn"), last)
	if len(g.StderrTail) > 0 {
		msg += "; the last lines of its stderr:\n    " + strings.Join(g.StderrTail, "\n    ")
	}
	p.line(msg)
	p.event(AgentGivenUp{Event: "agent_given_up", RunID: p.runID, GivenUp: g, Time: eventTime(time.Now())})
	p.drawLive()
}

// line prints a progress line above the live line.
func (p *reporter) line(s string) {
	if p.text == nil {
		return
	}
	p.clearLive()
	fmt.Fprintln(p.text, s)
}

func (p *reporter) event(v any) {
	if p.events == nil {
		return
	}
	b, _ := json.Marshal(v)
	p.events.Write(append(b, '\n'))
}

// drawLive rewrites the live line: the time since the run started and the
// turns in flight. It is cut to the terminal's width, since \r only goes
// back to the start of the last row.
func (p *reporter) drawLive() {
	if p.width == 0 {
		return
	}
	now := time.Now()
	s := fmt.Sprintf("%s elapsed, ", now.Sub(p.start).Truncate(time.Second))
	if len(p.inflight) == 0 {
		s += "no turn in flight"
	} else {
		ns := make([]int, 0, len(p.inflight))
		for n := range p.inflight {
			ns = append(ns, n)
		}
		slices.Sort(ns)
		var parts []string
		for _, n := range ns {
			t := p.inflight[n]
			parts = append(parts, fmt.Sprintf("%d %s %s (%s)", n, t.Role, t.ID, now.Sub(t.Start).Truncate(time.Second)))
		}
		s += plural(len(ns), "turn") + " in flight: " + strings.Join(parts, ", ")
	}
	if len(s) > p.width-1 {
		s = s[:max(0, p.width-4)] + "..."
	}
	fmt.Fprint(p.text, "\r\x1b[K"+s)
	p.shown = true
}

func (p *reporter) clearLive() {
	if p.shown {
		fmt.Fprint(p.text, "\r\x1b[K")
		p.shown = false
	}
}

func eventTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// fmtDuration prints a duration for a person: 0.42s, 12s, 3m5s.
func fmtDuration(d time.Duration) string {
	if d < 10*time.Second {
		return fmt.Sprintf("%.2fs", d.Seconds())
	}
	return d.Round(time.Second).String()
}

// lastWords is how a given-up agent last failed, for one line: its CLI's
// own error when it reported one, else the last line of its stderr.
func lastWords(g GivenUp) string {
	s := g.LastOutcome
	if g.LastExitCode != nil {
		s = fmt.Sprintf("exit %d", *g.LastExitCode)
	}
	if g.AgentError != "" {
		return s + ": " + g.AgentError
	}
	if n := len(g.StderrTail); n > 0 {
		s += ": " + g.StderrTail[n-1]
	}
	return s
}

// cmpOr2 is t, or else when t is zero.
func cmpOr2(t, otherwise time.Time) time.Time {
	if t.IsZero() {
		return otherwise
	}
	return t
}
