package model

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Agora's research stage (seed 004, "Two-Stage Debates"): a debate started
// with --research N opens with N turns of a researcher seat that only
// contribute evidence. Every item goes into the debate's evidence pool as
// pool-1, pool-2, ...; the positions then debate with the pool in view, and
// under methodology fact-based every evidence item they give cites a pool
// item or names a verifiable source ("don't fabricate").

// PoolPrefix starts the id of an evidence pool item: pool-1, pool-2, ...
const PoolPrefix = "pool-"

// AgoraMaxResearch bounds --research: no more research turns than the
// seed's 20 debate turns.
const AgoraMaxResearch = 20

// checkResearch checks a new agora debate's research count.
func checkResearch(d *Debate) error {
	if d.Research < 0 || d.Research > AgoraMaxResearch {
		return &TurnError{Field: "research", Rule: fmt.Sprintf("must be 0..%d research turns, not %d", AgoraMaxResearch, d.Research)}
	}
	return nil
}

// researchTurns counts d's research turns so far.
func researchTurns(d *Debate) int {
	n := 0
	for _, t := range d.Turns {
		if t.Role == RoleResearcher {
			n++
		}
	}
	return n
}

// ResearchOpen reports whether d is in its research stage: the engine ends
// the stage when the N-th research turn lands, and no position writes
// before that.
func ResearchOpen(d *Debate) bool { return researchTurns(d) < d.Research }

// debateTurns counts d's turns outside the research stage: the ones the
// turn limit counts.
func debateTurns(d *Debate) int { return len(d.Turns) - researchTurns(d) }

// nextResearch gives the research stage's turn to the researcher, or asks
// for one to join; ok is false once the stage is over (or there is none).
func nextResearch(d *Debate, st TurnState) (TurnState, bool) {
	done := researchTurns(d)
	if done >= d.Research {
		return st, false
	}
	st.ParticipantID, st.Role, st.JoinRole = "", "", RoleResearcher
	for _, p := range d.Participants {
		if p.Role == RoleResearcher {
			st.ParticipantID, st.Role, st.JoinRole = p.ParticipantID, p.Role, ""
		}
	}
	st.Advice = fmt.Sprintf("research stage: research turn %d of %d, evidence only; the positions debate after it", done+1, d.Research)
	return st, true
}

// validateResearch checks a research turn: evidence only (checkFields has
// refused every other key), at least one item, each complete.
func validateResearch(d *Debate, t *DebateTurn) error {
	if len(t.Evidence) == 0 {
		return &TurnError{Field: "evidence", Rule: "a research turn carries at least one evidence item {source, content, confidence}"}
	}
	return checkEvidence(d, t, false)
}

// checkEvidence checks each evidence item of t: its fields, a pool-N source
// naming an item of the pool, and with cite (methodology fact-based, after
// the research stage) a source that is a pool item or verifiable.
func checkEvidence(d *Debate, t *DebateTurn, cite bool) error {
	for i, e := range t.Evidence {
		f := fmt.Sprintf("evidence[%d]", i)
		if err := firstErr(need(f+".source", e.Source), need(f+".content", e.Content), unit(f+".confidence", e.Confidence)); err != nil {
			return err
		}
		n, isRef := poolRef(e.Source)
		if scheme, ok := urlScheme(e.Source); ok && scheme != "http" && scheme != "https" {
			return &TurnError{Field: f + ".source", Rule: fmt.Sprintf("%q is a URL of scheme %s: a source that is a URL must be http or https (under every methodology, in research turns too)", OneLine(e.Source), scheme)}
		}
		if leavesProject(e.Source) {
			return &TurnError{Field: f + ".source", Rule: fmt.Sprintf("%q is a path that leaves the project folder (absolute, from home, or through ..): a source that is a file is a relative path inside it, e.g. lib/a.go:12 (under every methodology, in research turns too, since a pool item is cited as evidence later)", OneLine(e.Source))}
		}
		switch {
		case isRef && (n < 1 || n > len(d.EvidencePool)):
			return &TurnError{Field: f + ".source", Rule: fmt.Sprintf("%q names no item of the evidence pool, which has %s", strings.TrimSpace(e.Source), poolRange(d))}
		case isRef || !cite:
		case !VerifiableSource(e.Source):
			return &TurnError{Field: f + ".source", Rule: fmt.Sprintf("%q is neither a pool item nor a verifiable source: under methodology fact-based each evidence item cites a pool item (this debate's pool has %s) or names %s", OneLine(e.Source), poolRange(d), VerifiableRule)}
		}
	}
	return nil
}

// leavesProject reports whether a source written as a path (one word)
// leads out of the project folder: absolute (/etc/passwd:1, //host/x),
// from a home folder (~/x), or through a .. segment (../x, a/../../x).
// fileCitation takes no such path as a file of the project, so without
// this it passed as free text into the evidence pool.
func leavesProject(source string) bool {
	s := strings.TrimSpace(source)
	if s == "" || strings.ContainsAny(s, " \t\n") {
		return false
	}
	if strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~") || strings.HasPrefix(s, "\\") {
		return true
	}
	file, _, _ := strings.Cut(s, ":")
	return slices.Contains(strings.Split(strings.ReplaceAll(file, "\\", "/"), "/"), "..")
}

// poolRef parses a source "pool-N"; isRef is false for any other source.
func poolRef(source string) (n int, isRef bool) {
	s, ok := strings.CutPrefix(strings.TrimSpace(source), PoolPrefix)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || strconv.Itoa(n) != s {
		return 0, true
	}
	return n, true
}

// poolRange names the pool's items for a message: "pool-1..pool-3", or
// "no items" when the debate had no research.
func poolRange(d *Debate) string {
	switch n := len(d.EvidencePool); n {
	case 0:
		return "no items"
	case 1:
		return "pool-1"
	default:
		return fmt.Sprintf("pool-1..pool-%d", n)
	}
}

// VerifiableRule says what VerifiableSource accepts, for refusals and docs.
const VerifiableRule = "a verifiable source: an http(s) URL with a host, a DOI (10.NNNN/suffix, or doi:10.NNNN/suffix), or a file of the project as a relative path whose file name has an extension (dir/file.ext, optionally :LINE or :LINE-LINE), which must exist in the project folder with those lines"

var (
	doiRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?i:doi:)?10\.[0-9]{4,9}/\S+$`) })
	pathRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*(:[0-9]+(-[0-9]+)?)?$`)
	})
)

// VerifiableSource reports whether an evidence source names something a
// reader can check: an http or https URL with a host, a DOI, or a
// project file as a relative path ("model/debate.go:42"). The form is
// checked here (model does no I/O); the engine checks that a cited file
// exists in the project and has the lines (CitedFiles).
func VerifiableSource(source string) bool {
	s := strings.TrimSpace(source)
	if s == "" || strings.ContainsAny(s, " \t\n") {
		return false
	}
	if u, err := url.Parse(s); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
		return u.Host != ""
	}
	if doiRe().MatchString(s) {
		return true
	}
	_, ok := fileCitation(s)
	return ok
}

// FileCite is an evidence source that names a file of the project: its
// path relative to the project folder, and with Lines the lines it cites,
// From to To (as written: the engine refuses 0 or a range backwards).
type FileCite struct {
	Field, Source, Path string
	Lines               bool
	From, To            int
}

// fileCitation parses a source written as a project file: a relative path
// of plain segments (no . or ..) whose file name has an extension,
// optionally with :LINE or :LINE-LINE.
func fileCitation(source string) (FileCite, bool) {
	s := strings.TrimSpace(source)
	if !pathRe().MatchString(s) {
		return FileCite{}, false
	}
	file, lines, hasLines := strings.Cut(s, ":")
	segs := strings.Split(file, "/")
	for _, seg := range segs {
		if seg == "." || seg == ".." {
			return FileCite{}, false
		}
	}
	name := segs[len(segs)-1]
	if strings.LastIndex(name, ".") <= 0 || strings.HasSuffix(name, ".") {
		return FileCite{}, false
	}
	c := FileCite{Source: source, Path: file, Lines: hasLines}
	if hasLines {
		from, to, isRange := strings.Cut(lines, "-")
		c.From, _ = strconv.Atoi(from)
		c.To = c.From
		if isRange {
			c.To, _ = strconv.Atoi(to)
		}
	}
	return c, true
}

// CitedFiles lists the evidence sources of t that name a file of the
// project, for the engine to check against the project folder (issue 34
// N12, seed 004's A20): every source with a line (path:LINE, path:A-B),
// and under methodology fact-based every project path, which is what
// makes it verifiable; research turns included, since their items enter
// the pool that later turns cite as checked.
func CitedFiles(d *Debate, t *DebateTurn) []FileCite {
	var out []FileCite
	for i, e := range t.Evidence {
		c, ok := fileCitation(e.Source)
		if ok && (c.Lines || d.Methodology == "fact-based") {
			c.Field = fmt.Sprintf("evidence[%d].source", i)
			out = append(out, c)
		}
	}
	return out
}

// urlScheme returns the scheme of a source that is a URL: scheme:// with
// anything after it, or an opaque scheme a browser or a shell acts on
// (javascript:, data:, vbscript:, file:, mailto:). "Knuth: TAOCP",
// "isbn:0-201" or "README.md:12" are no URLs.
func urlScheme(source string) (string, bool) {
	s := strings.TrimSpace(source)
	m := schemeRe().FindStringSubmatch(s)
	if m == nil {
		return "", false
	}
	scheme := strings.ToLower(m[1])
	switch {
	case strings.HasPrefix(s[len(m[0]):], "//"):
		return scheme, true
	case scheme == "javascript", scheme == "data", scheme == "vbscript", scheme == "file", scheme == "mailto":
		return scheme, true
	}
	return "", false
}

var schemeRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*):`) })
