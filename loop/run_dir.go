package loop

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/proofloop/proofloop/store"
)

// runIDPattern is the name of a run's folder under runs/: its start time
// (UTC, to the millisecond), and -2, -3, ... for runs that started in the
// same millisecond.
var runIDPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([0-9]{8}T[0-9]{9}Z)(?:-([0-9]+))?$`) })

// newRunDir makes the folder runs/<run-id>/ of a run that starts now, and
// prunes the folders of older runs so that keep are left, this one
// included. Making the folder is what makes the run id unique: a second run
// of the same millisecond finds it taken and takes the next suffix.
func newRunDir(s *store.Store, now time.Time, keep int) (id, dir string, err error) {
	if err := s.Root().MkdirAll("runs", 0o755); err != nil {
		return "", "", store.Errorf(store.CodeInternal, "create runs/").Wrap(err)
	}
	base := strings.ReplaceAll(now.UTC().Format("20060102T150405.000Z"), ".", "")
	id = base
	for i := 2; ; i++ {
		dir = "runs/" + id
		err := s.Root().Mkdir(dir, 0o755)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) || i > 1000 {
			return "", "", store.Errorf(store.CodeInternal, "create %s", dir).Wrap(err)
		}
		id = fmt.Sprintf("%s-%d", base, i)
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
		name, base string
		n          int
	}
	var runs []run
	for _, e := range entries {
		m := runIDPattern().FindStringSubmatch(e.Name())
		if m == nil || !e.IsDir() {
			continue
		}
		n, _ := strconv.Atoi(m[2]) // 0 for the first of its millisecond
		runs = append(runs, run{e.Name(), m[1], n})
	}
	slices.SortFunc(runs, func(a, b run) int { return cmp.Or(strings.Compare(a.base, b.base), cmp.Compare(a.n, b.n)) })
	for _, old := range runs[:max(0, len(runs)-keep)] {
		if err := s.Root().RemoveAll("runs/" + old.name); err != nil {
			return store.Errorf(store.CodeInternal, "prune runs/%s", old.name).Wrap(err)
		}
	}
	return nil
}
