package loop

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// DebateStart describes a new debate.
type DebateStart struct {
	Protocol    string
	Topic       string
	Source      string // a Markdown file whose SHA-256 is recorded; quotes are checked against it
	Subject     string
	Methodology string
	Positions   []string // ROLE=TEXT
	MaxTurns    int      // 0: the protocol's limit
	About       string   // STMT#ISSUE: a dispute
	// MessageTokens bounds an agora message (0: the protocol's 100).
	MessageTokens int
	// Research is the number of research turns the debate opens with
	// (agora's research stage); the protocol's start checks it.
	Research int
	// Artifact is a path relative to the project folder where the
	// transcript is copied too (checked by the caller: store.ProjectPath).
	Artifact string
	// FreshArtifact, when set (a call over MCP), is Artifact's absolute
	// path, which must not exist when the debate is created: a new debate
	// writes over no file. A join that finds its debate writes none.
	FreshArtifact string
}

// startPlan is a DebateStart checked and read before the transaction: its
// protocol, hashed source and parsed positions and dispute link.
type startPlan struct {
	in        DebateStart
	p         *model.Protocol
	src       *model.DebateSource
	positions []model.Position
	about     *model.DisputeLink
}

// StartDebate creates a debate and its transcript in one transaction. Its
// id is deb_<topic_slug>, then _2, _3, ... A start of a protocol with one
// open debate per source and topic (model.Protocol.OnePerSource: socratic,
// seed 000's one active duel) on the source and topic of an open one finds
// it and writes nothing.
func StartDebate(s *store.Store, opts store.TxOptions, in DebateStart) (*DebateResult, error) {
	plan, err := planStart(in)
	if err != nil {
		return nil, err
	}
	var out *model.Debate
	existing := false
	_, err = s.Update(opts, func(tx *store.Tx) error {
		out, existing, err = plan.create(tx, plan.p.OnePerSource && plan.src != nil)
		return err
	})
	if err != nil {
		return nil, err
	}
	r := resultOf(out)
	r.Existing = existing
	return r, nil
}

// planStart checks a start's flags and reads its source, before anything
// is written.
func planStart(in DebateStart) (*startPlan, error) {
	p, err := model.LookupProtocol(in.Protocol)
	if err != nil {
		return nil, turnErr(err)
	}
	plan := &startPlan{p: p}
	if in.Source != "" {
		abs, err := filepath.Abs(in.Source)
		if err != nil {
			return nil, store.Errorf(store.CodeInvalidInput, "--source %q: %v", in.Source, err)
		}
		if ext := strings.ToLower(filepath.Ext(abs)); ext != ".md" && ext != ".markdown" {
			return nil, store.Errorf(store.CodeInvalidInput, "--source %q is not a Markdown file (.md or .markdown)", in.Source).
				WithHint("nothing was written; give the path of a readable .md or .markdown file")
		}
		b, err := os.ReadFile(abs)
		if err != nil {
			return nil, store.Errorf(store.CodeInvalidInput, "cannot read --source file %q: %v", in.Source, err).
				WithHint("give the path of a readable Markdown file, relative to the current folder or absolute")
		}
		if strings.TrimSpace(in.Topic) == "" {
			in.Topic = SourceTopic(abs, b)
		}
		sum := sha256.Sum256(b)
		plan.src = &model.DebateSource{Path: abs, SHA256: hex.EncodeToString(sum[:])}
	}
	if strings.TrimSpace(in.Topic) == "" {
		// A review's subject names what it is about (seed 003), so it is
		// the topic when none is given, for start and join alike.
		in.Topic = in.Subject
	}
	if strings.TrimSpace(in.Topic) == "" {
		return nil, store.Errorf(store.CodeUsage, "debate start needs --topic (or --source FILE.md, whose first heading is the topic, or --subject S, which is then the topic)").
			WithHint("nothing was written; e.g. proofloop debate start --protocol " + p.Name + " --topic 'Is the cache needed?'")
	}
	for _, pos := range in.Positions {
		role, text, ok := strings.Cut(pos, "=")
		if !ok {
			return nil, store.Errorf(store.CodeInvalidInput, "--position %q: write ROLE=TEXT", pos).
				WithHint("name the position's role, then =, then the position: --position 'induction=Prove it by induction on n'")
		}
		plan.positions = append(plan.positions, model.Position{Role: strings.TrimSpace(role), Text: text})
	}
	if in.About != "" {
		stmt, n, ok := strings.Cut(in.About, "#")
		num, err := strconv.Atoi(n)
		if !ok || err != nil || num < 1 {
			return nil, store.Errorf(store.CodeInvalidInput, "--about %q: write STATEMENT#ISSUE, such as stmt_x#2", in.About).
				WithHint("the statement's id, #, and the number of the issue you dispute (`proofloop show STATEMENT --field validate.issues` lists them)")
		}
		plan.about = &model.DisputeLink{Statement: stmt, IssueNumber: num}
	}
	plan.in = in
	return plan, nil
}

// create writes the planned debate in tx. With find, an open debate of the
// same protocol on the same subject (or source and topic) is returned
// instead, with existing set and nothing written.
func (plan *startPlan) create(tx *store.Tx, find bool) (d *model.Debate, existing bool, err error) {
	in, p := plan.in, plan.p
	slug := model.TopicSlug(in.Topic)
	n := 1
	for ; ; n++ {
		id := model.DebateID(slug, n)
		ok, err := tx.Exists(id)
		if err != nil {
			return nil, false, store.Errorf(store.CodeInternal, "stat debate").Wrap(err)
		}
		if ok && find {
			if d, err := plan.same(tx, id); err != nil || d != nil {
				return d, d != nil, err
			}
		}
		if !ok {
			// A discarded debate's id stays taken: ids are never reused.
			if ok, err = tx.Existed(id); err != nil {
				return nil, false, err
			}
		}
		if !ok {
			break
		}
	}
	if err := freshArtifact(in.FreshArtifact, in.Artifact); err != nil {
		return nil, false, err
	}
	d = model.NewDebate(p, in.Topic, n, tx.Now())
	if in.Subject != "" {
		d.Subject = &in.Subject
	}
	d.Methodology, d.Source, d.Positions, d.About = in.Methodology, plan.src, plan.positions, plan.about
	if in.MaxTurns != 0 {
		d.MaxTurns = in.MaxTurns
	}
	d.MessageTokens, d.Research = in.MessageTokens, in.Research
	d.ProjectArtifact = in.Artifact
	if err := p.CheckStart(d); err != nil {
		return nil, false, turnErr(err)
	}
	if d.About != nil {
		if err := openDispute(tx, d); err != nil {
			return nil, false, err
		}
	}
	d.Revision = 1
	if _, err := tx.Create(d.ID, d); err != nil {
		return nil, false, err
	}
	tx.Detail("protocol", p.Name)
	tx.Detail("artifact", d.Artifact)
	if d.ProjectArtifact != "" {
		tx.Detail("project_artifact", d.ProjectArtifact)
	}
	return d, false, writeTranscripts(tx, d)
}

// same returns debate id when it is open, of the planned protocol, and on
// the same subject (when one is planned) and the same source and topic.
func (plan *startPlan) same(tx *store.Tx, id string) (*model.Debate, error) {
	doc, err := tx.Get(id)
	if err != nil {
		return nil, err
	}
	d, err := doc.Debate()
	if err != nil {
		return nil, store.Errorf(store.CodeStoreDamaged, "%v", err)
	}
	switch {
	case d.Protocol != plan.p.Name || d.Status != model.DebateOpen || d.Topic != plan.in.Topic:
		return nil, nil
	case plan.in.Subject != "" && (d.Subject == nil || *d.Subject != plan.in.Subject):
		return nil, nil
	case (plan.src == nil) != (d.Source == nil) || plan.src != nil && d.Source.Path != plan.src.Path:
		return nil, nil
	}
	return d, nil
}

// SourceTopic is the topic of a debate on a Markdown source when none is
// given (seed 000): the source's first Markdown heading, else its file-name
// stem.
func SourceTopic(path string, b []byte) string {
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if h := strings.TrimLeft(line, "#"); len(h) < len(line) && len(line)-len(h) <= 6 && strings.HasPrefix(h, " ") {
			if t := strings.TrimSpace(strings.TrimRight(h, "# ")); t != "" {
				return t
			}
		}
	}
	base := filepath.Base(path)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// freshArtifact refuses a debate's artifact at abs when a file (or a
// link, or anything) is already there: it is no file of this new debate.
func freshArtifact(abs, rel string) error {
	if abs == "" {
		return nil
	}
	_, err := os.Lstat(abs)
	switch {
	case err == nil:
		return store.Errorf(store.CodeInvalidInput, "--artifact %s already exists: over MCP a new debate's artifact is a new file", rel).
			WithHint("nothing was written; name a new file under " + model.ProjectDebatesDir + "/, or join the debate whose artifact it is")
	case !errors.Is(err, fs.ErrNotExist):
		return store.Errorf(store.CodeInvalidInput, "--artifact %s: %v", rel, err).WithHint("nothing was written; name a new file under " + model.ProjectDebatesDir + "/")
	}
	return nil
}
