package eval

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sync"

	"github.com/proofloop/proofloop/internal/seal"
	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// SettleCommand is the event command that settles and withdraws a canary.
const SettleCommand = "canary-settle"

// Canaries plants a person's labelled items among a run's real work
// (config.json canaries) and settles them: loop.Canaries. Each item is
// planted at most once in a store: once settled, its label is in the
// store's history for anyone to read.
type Canaries struct {
	actor string // the person who runs run: the canaries are put up in their name
	rate  float64
	sets  []*Set
	host  string

	mu   sync.Mutex
	rng  *rand.Rand
	used map[string]bool // item ids planted in the store, settled or not; nil until read
	box  *sealBox
}

var _ loop.Canaries = (*Canaries)(nil)

// NewCanaries reads the canary sets of cfg and checks where they and the
// seal are, before a run plants anything. It refuses (exit 2) a set that
// does not parse, that is or holds items of the shipped set (public: an
// agent may know its labels), two sets with one item id, and a seal folder
// inside the project folder; it warns on warn when a set lies inside the
// project folder, where an agent that reads files could read it. With no
// canaries in cfg it plants nothing and still settles what a killed run
// left (Recover).
func NewCanaries(s *store.Store, cfg store.Config, actor string, warn io.Writer) (*Canaries, error) {
	c := &Canaries{actor: actor, host: hostname(), rng: rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))}
	if cfg.Canaries == nil {
		return c, nil
	}
	c.rate = cfg.Canaries.Rate
	project, err := s.ProjectDir()
	if err != nil {
		return nil, store.Errorf(store.CodeInvalidInput, "the project folder of %s: %v", s.Dir, err)
	}
	dir, err := seal.Dir()
	if err != nil {
		return nil, err
	}
	if seal.Within(dir, project) {
		return nil, store.Errorf(store.CodeInvalidInput, "the seal folder %s is inside the project folder %s: an agent that reads files there could read the canaries' labels", dir, project).
			WithHint("set $" + seal.EnvDir + " to a folder of yours outside the project, or leave it unset (~/.local/state/proofloop/seal)")
	}
	if err := seal.MkdirAll(dir); err != nil {
		return nil, err // before any canary: a seal that cannot be written is no seal
	}
	ids := map[string]string{}
	for _, path := range cfg.Canaries.Sets {
		set, err := ReadSet(path, cfg.MaxInputBytes)
		if err != nil {
			return nil, fmt.Errorf("canaries.sets: %w", err)
		}
		if err := notShipped(path, set); err != nil {
			return nil, err
		}
		for _, it := range set.Items {
			if other, ok := ids[it.ID]; ok {
				return nil, store.Errorf(store.CodeInvalidInput, "canaries.sets: item %s is in %s and in %s", it.ID, other, path).
					WithHint("give each item of the canary sets an id of its own")
			}
			ids[it.ID] = path
		}
		if seal.Within(path, project) && warn != nil {
			fmt.Fprintf(warn, "warning: the canary set %s is inside the project folder %s: an agent that reads files there can read its labels; keep it outside the project\n", path, project)
		}
		c.sets = append(c.sets, set)
	}
	return c, nil
}

// notShipped refuses the shipped set, or a set holding any item of it.
func notShipped(path string, set *Set) error {
	shipped := map[string]string{}
	for _, it := range Shipped().Items {
		shipped[it.Claim+"\x00"+it.ProofText()] = it.ID
	}
	for _, it := range set.Items {
		if id, ok := shipped[it.Claim+"\x00"+it.ProofText()]; ok {
			return store.Errorf(store.CodeInvalidInput, "canaries.sets: %s holds the shipped set's item %s (as %s): the shipped set is public, in the binary and the repository, so an agent may know its labels", path, id, it.ID).
				WithHint("canaries are your own items, kept outside the project (docs/eval.md); the shipped set serves `proofloop eval --shipped`")
		}
	}
	return nil
}

// seal is the store's seal folder, once the store has an event.
func (c *Canaries) seal(s *store.Store) (*sealBox, error) {
	if c.box == nil {
		box, err := openSeal(s)
		if err != nil || box == nil {
			return nil, err
		}
		c.box = box
	}
	return c.box, nil
}

// Plant puts up an unused item of role's sets when the rate's draw says
// so: the seal first, then the documents (PutUp, in the person's name).
func (c *Canaries) Plant(s *store.Store, role model.Role, runID string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.sets) == 0 || c.rng.Float64() >= c.rate {
		return "", nil
	}
	box, err := c.seal(s)
	if err != nil || box == nil {
		return "", err
	}
	it, set, err := c.pick(s, box, role)
	if err != nil || it == nil {
		return "", err
	}
	for try := 0; ; try++ {
		name, err := freeName(s, it.Claim)
		if err != nil {
			return "", err
		}
		e := &sealEntry{Token: newToken(), Problem: model.RootProblemID(name), Role: role, Set: set, Item: *it,
			PlantedAt: store.Timestamp(s.Now()), Run: runID, Host: c.host, PID: os.Getpid(), Start: processStart(os.Getpid())}
		e.Statement = model.WrapID(e.Problem, 1)
		if it.Proof != nil {
			e.ProofRevision = 1
		}
		if err := box.put(e); err != nil {
			return "", err
		}
		c.used[it.ID] = true
		placed, err := putUpNamed(s, it, c.actor, name)
		switch {
		case err == nil:
			return placed.Problem, nil
		case placed.Problem == "" && try < 3:
			// Another took the name meanwhile: nothing of ours was written.
			if err := box.remove(e); err != nil {
				return "", err
			}
		case placed.Problem == "":
			box.remove(e)
			return "", err
		default:
			// Put up in part: withdraw what was written (the seal names it).
			if _, serr := c.settle(s, box, e, Taker{}, false); serr != nil {
				return "", fmt.Errorf("%w; and withdrawing it: %v", err, serr)
			}
			return "", err
		}
	}
}

// pick draws an item of role's sets that the store never had.
func (c *Canaries) pick(s *store.Store, box *sealBox, role model.Role) (*model.EvalItem, string, error) {
	if c.used == nil {
		c.used = map[string]bool{}
		recs, err := s.CheckerRecords()
		if err != nil {
			return nil, "", err
		}
		for _, r := range recs {
			if r.Canary != nil {
				c.used[r.Canary.Item] = true
			}
		}
		entries, err := box.list()
		if err != nil {
			return nil, "", err
		}
		for _, e := range entries {
			c.used[e.Item.ID] = true
		}
	}
	type choice struct {
		it  *model.EvalItem
		set string
	}
	var left []choice
	for _, set := range c.sets {
		for i := range set.Items {
			if it := &set.Items[i]; it.Role() == role && !c.used[it.ID] {
				left = append(left, choice{it, set.Name})
			}
		}
	}
	if len(left) == 0 {
		return nil, "", nil
	}
	ch := left[c.rng.IntN(len(left))]
	return ch.it, ch.set, nil
}

// Taker is who took a canary's turn: its actor, its agent's name and model
// label in config.json, and how people know it.
type Taker = loop.CanaryTaker

// Settle settles the canary planted as root after its turn.
func (c *Canaries) Settle(s *store.Store, root string, by Taker) (model.CheckerRecord, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	box, err := c.seal(s)
	if err != nil {
		return model.CheckerRecord{}, err
	}
	entries, err := box.list()
	if err != nil {
		return model.CheckerRecord{}, err
	}
	for _, e := range entries {
		if e.Problem == root {
			return c.settle(s, box, e, by, false)
		}
	}
	return model.CheckerRecord{}, store.Errorf(store.CodeInternal, "no seal for the canary %s", root)
}

// Recover settles, from their documents, the canaries whose planting run
// is gone (killed), and forgets the seals of canaries no longer in the
// store (settled before their seal was removed, or never put up).
func (c *Canaries) Recover(s *store.Store) ([]model.CheckerRecord, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := seal.Dir(); err != nil {
		return nil, nil // no seal folder at all ($HOME unset): nothing was sealed here
	}
	box, err := c.seal(s)
	if err != nil || box == nil {
		return nil, err
	}
	entries, err := box.list()
	if err != nil {
		return nil, err
	}
	var out []model.CheckerRecord
	for _, e := range entries {
		if e.alive(c.host) {
			continue
		}
		d, err := s.Read(e.Problem)
		switch {
		case store.CodeOf(err) == store.CodeNotFound:
			if err := box.remove(e); err != nil {
				return out, err
			}
			continue
		case err != nil:
			return out, err
		}
		if d.Get("objective").String() != e.Item.Claim || d.Get("created_at").String() < e.PlantedAt {
			// Someone else's problem of the name the canary was to take.
			if err := box.remove(e); err != nil {
				return out, err
			}
			continue
		}
		rec, err := c.settle(s, box, e, Taker{}, true)
		if err != nil {
			return out, err
		}
		out = append(out, rec)
	}
	return out, nil
}

// settle reads what was done to the canary e, records it for the party
// that did it (by; for a recovered canary, whoever the statement names),
// withdraws every document of its tree in one canary-settle transaction
// whose event carries the record, then removes its seal.
func (c *Canaries) settle(s *store.Store, box *sealBox, e *sealEntry, by Taker, recovered bool) (model.CheckerRecord, error) {
	ids, err := treeIDs(s, e.Problem)
	if err != nil {
		return model.CheckerRecord{}, err
	}
	j := model.Judged{Verdict: model.VerdictNone}
	if d, err := s.Read(e.Statement); err == nil {
		st, err := d.Statement()
		if err != nil {
			return model.CheckerRecord{}, err
		}
		j = model.ItemVerdict(&e.Item, st, e.ProofRevision)
	} else if store.CodeOf(err) != store.CodeNotFound {
		return model.CheckerRecord{}, err
	}
	if recovered {
		by = Taker{Actor: j.Actor, Agent: j.Agent, Model: j.Model, Label: j.Agent}
	}
	var counts model.Counts
	counts.Add(e.Item.Label, j)
	rec := model.CheckerRecord{Source: model.RecordCanary, Role: e.Role, AgentLabel: model.AgentLabel{Agent: by.Agent, Model: by.Model},
		Label: by.Label, Actor: by.Actor, Set: e.Set, Counts: counts,
		Canary: &model.CanaryRecord{Item: e.Item.ID, Label: e.Item.Label, Category: e.Item.Category, FlawedSentences: e.Item.FlawedSentences,
			Problem: e.Problem, Statement: e.Statement, Verdict: j.Verdict, Located: j.Located, PlantedAt: e.PlantedAt, Run: e.Run, Recovered: recovered}}
	_, err = s.Update(store.TxOptions{Command: SettleCommand, Actor: c.actor}, func(tx *store.Tx) error {
		tx.Record()
		rec.At = tx.Now()
		for _, id := range ids {
			d, err := tx.Get(id)
			if store.CodeOf(err) == store.CodeNotFound {
				continue
			} else if err != nil {
				return err
			}
			if d.Kind == model.KindStatement && d.Get("revisions_kept_from").Int() > 0 {
				if err := tx.RemoveFile(store.ProofsFile(id)); err != nil {
					return err
				}
			}
			if err := tx.Delete(id); err != nil {
				return err
			}
		}
		return tx.AppendCheckerRecords([]model.CheckerRecord{rec})
	})
	if err != nil {
		return rec, err
	}
	return rec, box.remove(e)
}

// treeIDs are the problem root and every document below it, from the
// documents themselves (the statements of its progresses, and their
// sub-statements), root last.
func treeIDs(s *store.Store, root string) ([]string, error) {
	var out []string
	var walk func(id string) error
	walk = func(id string) error {
		d, err := s.Read(id)
		if store.CodeOf(err) == store.CodeNotFound {
			return nil
		} else if err != nil {
			return err
		}
		var kids []string
		for _, key := range []string{"progresses", "preliminaries", "sub_statements"} {
			for _, v := range d.Get(key).Array() {
				kids = append(kids, v.String())
			}
		}
		for _, k := range kids {
			if err := walk(k); err != nil {
				return err
			}
		}
		out = append(out, id)
		return nil
	}
	return out, walk(root)
}
