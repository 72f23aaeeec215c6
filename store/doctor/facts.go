package doctor

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/proofloop/proofloop/store"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// logFacts is what the event log says of the files that are not documents:
// config.json (init's defaults, then every config-set event) and the leases
// (every lease a transaction wrote, recorded in its event).
type logFacts struct {
	configSets []configSet
	leases     map[string]leaseFact
	// legacy holds the items claimed by events written before events
	// recorded their leases: their lease files cannot be compared.
	legacy map[string]bool
}

type configSet struct {
	seq        int
	key, after string // after is raw JSON; "null" removes the key
}

type leaseFact struct {
	seq int
	raw string // the recorded lease (LeaseRecord), raw JSON
}

// add notes the facts of one event line.
func (f *logFacts) add(seq int, line []byte) {
	ev := gjson.ParseBytes(line)
	if ev.Get("command").String() == store.ConfigSetCommand {
		f.configSets = append(f.configSets, configSet{seq, strings.Clone(ev.Get("detail.key").String()), strings.Clone(ev.Get("detail.after").Raw)})
	}
	// Cloned: a substring of ev would keep the whole line alive.
	recs := ev.Get("detail." + store.LeasesDetail)
	recs.ForEach(func(k, v gjson.Result) bool {
		f.leases[strings.Clone(k.String())] = leaseFact{seq, strings.Clone(v.Raw)}
		return true
	})
	if !recs.Exists() && (ev.Get("detail.claim").Exists() || ev.Get("detail.refresh").Exists() || ev.Get("detail.release").Exists()) {
		if f.legacy == nil {
			f.legacy = map[string]bool{}
		}
		f.legacy[strings.Clone(ev.Get("ids.0").String())] = true
	}
}

// checkConfigLog compares config.json with the settings the log gives: the
// default config.json of init, changed by each config-set event in turn. A
// hand edit (forbid_self_check set to false, say) is damage. Settings are
// compared as in effect, so a key left out and a key at its default agree.
func (s *checker) checkConfigLog(f *logFacts, complete bool, bad findingFunc) {
	if !complete {
		return // the log does not reach back to init
	}
	want, _ := json.MarshalIndent(store.DefaultConfig(), "", "  ")
	s.compareConfig(want, "init's default", f.configSets, bad)
}

// compareConfig compares config.json with base (settings known good: init's
// default, or config.json at the last verified point, which from says)
// changed by each config-set event of sets in turn.
func (s *checker) compareConfig(want []byte, from0 string, sets []configSet, bad findingFunc) {
	raw, err := s.Root().ReadFile(store.ConfigFile)
	if err != nil {
		return // reported as config
	}
	have, err := store.ParseConfig(raw)
	if err != nil {
		return // reported as config
	}
	lastSet := map[string]int{}
	for _, c := range sets {
		path, err := store.ConfigPath(c.key, true)
		if err != nil {
			bad("config", store.EventsFile, c.seq, "the config-set event of seq %d sets %q, which is no setting", c.seq, c.key)
			continue
		}
		if c.after == "" || c.after == "null" {
			want, err = sjson.DeleteBytes(want, path)
		} else {
			want, err = sjson.SetRawBytes(want, path, []byte(c.after))
		}
		if err != nil {
			bad("config", store.EventsFile, c.seq, "the config-set event of seq %d does not apply: %v", c.seq, err)
			continue
		}
		lastSet[strings.SplitN(c.key, ".", 2)[0]] = c.seq
	}
	wantCfg, err := store.ParseConfig(want)
	if err != nil {
		bad("config", store.ConfigFile, 0, "the settings that init and the log's config-set events give do not pass: %v", store.UnwrapDamage(err))
		return
	}
	hb, _ := json.Marshal(have)
	wb, _ := json.Marshal(wantCfg)
	var hm, wm map[string]any
	json.Unmarshal(hb, &hm)
	json.Unmarshal(wb, &wm)
	for _, k := range slices.Sorted(maps.Keys(wm)) {
		if reflect.DeepEqual(hm[k], wm[k]) {
			continue
		}
		from := from0
		if seq := lastSet[k]; seq > 0 {
			from = fmt.Sprintf("the config-set event of seq %d", seq)
		}
		h, _ := json.Marshal(hm[k])
		w, _ := json.Marshal(wm[k])
		bad("config", store.ConfigFile, lastSet[k], "%s is %s, but the event log gives %s (%s): config.json was edited by hand; `proofloop config set` records a change", k, h, w, from)
	}
}

// checkLeases compares every lease file with the last lease the log
// recorded for its item. A lease the log never recorded was written by
// hand. A missing lease file is damage only while the recorded lease is
// live: an expired or released lease may be kept or not.
func (s *checker) checkLeases(docs *docSet, complete bool, bad findingFunc) {
	f := docs.logged
	ids := map[string]bool{}
	for id := range docs.leases {
		ids[id] = true
	}
	for id := range f.leases {
		ids[id] = true
	}
	now := s.Now()
	for _, id := range slices.Sorted(maps.Keys(ids)) {
		raw, have := docs.leases[id]
		fact, logged := f.leases[id]
		p := store.LeasePath(id)
		switch {
		case have && raw == nil:
			// Damaged: reported where it was read.
		case have && logged:
			rec, err := store.LeaseRecord(raw)
			var want map[string]any
			if err == nil {
				err = json.Unmarshal([]byte(fact.raw), &want)
			}
			if err != nil {
				bad("lease", p, fact.seq, "cannot compare it with the event log: %v", err)
				continue
			}
			if diff := differingKeys(rec, want); len(diff) > 0 {
				bad("lease", p, fact.seq, "it differs from the lease the event log recorded at seq %d (%s): it was edited by hand", fact.seq, strings.Join(diff, ", "))
			}
		case have:
			if complete && !f.legacy[id] {
				bad("lease", p, 0, "the event log never records a lease of %s: it was written by hand", id)
			}
		case logged:
			var l store.Lease
			if json.Unmarshal([]byte(fact.raw), &l) == nil && l.Live(now) {
				bad("lease", p, fact.seq, "the event log says %s holds a live lease on %s until %s (seq %d), but the file is missing", l.Holder, id, l.ExpiresAt, fact.seq)
			}
		}
	}
}

// differingKeys names the keys whose values differ between two objects.
func differingKeys(a, b map[string]any) []string {
	var out []string
	for k := range a {
		if !reflect.DeepEqual(a[k], b[k]) {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
