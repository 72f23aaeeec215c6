package loop

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/proofloop/proofloop/store"
)

// runIDPattern is the name of a run's folder under runs/: its start time
// (UTC, to the millisecond) and eight random hex digits. Folders of older
// versions end in -2, -3, ... or in nothing; they are still recognized.
var runIDPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([0-9]{8}T[0-9]{9}Z)(?:-([0-9]+|[0-9a-f]{8}))?$`)
})

// newRunDir makes the folder runs/<run-id>/ of a run that starts now, and
// prunes the folders of older runs so that keep are left, this one
// included. The id is unique beyond this folder: machines that share a
// PostgreSQL store each have their own runs/, and a run's id names its
// lease holders (run-<id>-w<n>) and its lines in the shared log, so two
// runs that start in the same millisecond on two machines must not share
// it. The random part does that; making the folder catches the rest.
func newRunDir(s *store.Store, now time.Time, keep int) (id, dir string, err error) {
	if err := s.Root().MkdirAll("runs", 0o755); err != nil {
		return "", "", store.Errorf(store.CodeInternal, "create runs/").Wrap(err)
	}
	base := strings.ReplaceAll(now.UTC().Format("20060102T150405.000Z"), ".", "")
	for i := 0; ; i++ {
		id = fmt.Sprintf("%s-%08x", base, rand.Uint32())
		dir = "runs/" + id
		err := s.Root().Mkdir(dir, 0o755)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) || i > 100 {
			return "", "", store.Errorf(store.CodeInternal, "create %s", dir).Wrap(err)
		}
	}
	if err := pruneRuns(s, keep); err != nil {
		return "", "", err
	}
	return id, dir, nil
}

// pruneRuns removes the oldest run folders until keep are left. Anything
// under runs/ that is not named like a run folder is left alone.
func pruneRuns(s *store.Store, keep int) error {
	f, err := s.Root().Open("runs")
	if err != nil {
		return store.Errorf(store.CodeInternal, "open runs/").Wrap(err)
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return store.Errorf(store.CodeInternal, "read runs/").Wrap(err)
	}
	type run struct {
		name, base, suffix string
	}
	var runs []run
	for _, e := range entries {
		m := runIDPattern().FindStringSubmatch(e.Name())
		if m == nil || !e.IsDir() {
			continue
		}
		runs = append(runs, run{e.Name(), m[1], m[2]})
	}
	// By start time; within a millisecond, an older version's -2 before -10.
	slices.SortFunc(runs, func(a, b run) int {
		return cmp.Or(strings.Compare(a.base, b.base), cmp.Compare(len(a.suffix), len(b.suffix)), strings.Compare(a.suffix, b.suffix))
	})
	for _, old := range runs[:max(0, len(runs)-keep)] {
		if err := s.Root().RemoveAll("runs/" + old.name); err != nil {
			return store.Errorf(store.CodeInternal, "prune runs/%s", old.name).Wrap(err)
		}
	}
	return nil
}
