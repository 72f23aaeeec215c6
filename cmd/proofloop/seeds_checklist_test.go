package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The test column of docs/seeds-checklist.md names Go tests (TestName, or
// TestPrefix* for a family) and stories (the names of
// testdata/script/*.txtar, lower case with underscores); code in back
// quotes (flags, error codes) is neither.
var (
	checklistGoTest = regexp.MustCompile(`\bTest[A-Za-z0-9_]*\*?`)
	checklistStory  = regexp.MustCompile(`\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b`)
	checklistCode   = regexp.MustCompile("`[^`]*`")
	checklistFunc   = regexp.MustCompile(`(?m)^func (Test[A-Za-z0-9_]*)\(`)
	checklistTotals = regexp.MustCompile(`Totals: (\d+) working, (\d+) deliberate, (\d+) partial, (\d+) missing \((\d+) of (\d+) working or deliberate\)`)
)

// TestSeedsChecklistNamesRealTests keeps docs/seeds-checklist.md honest:
// every Go test it cites is a func of some *_test.go of the repository
// (a TestPrefix* matches at least one), every story it cites is a file of
// testdata/script, and its totals are the counts of its verdicts. A renamed
// or removed test fails here instead of leaving the checklist citing it.
func TestSeedsChecklistNamesRealTests(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(repoTop, "docs", "seeds-checklist.md"))
	if err != nil {
		t.Fatal(err)
	}
	var funcs []string
	err = filepath.WalkDir(repoTop, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != repoTop && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if strings.HasSuffix(path, "_test.go") {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range checklistFunc.FindAllStringSubmatch(string(b), -1) {
				funcs = append(funcs, m[1])
			}
		}
		return nil
	})
	if err != nil || len(funcs) < 100 {
		t.Fatalf("reading the repository's tests: %v, %d test funcs", err, len(funcs))
	}
	counts := map[string]int{}
	rows := 0
	for line := range strings.SplitSeq(string(doc), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) != 6 || cells[0] != "" {
			continue
		}
		if _, err := strconv.Atoi(strings.TrimSpace(cells[1])); err != nil {
			continue
		}
		rows++
		counts[strings.TrimSpace(cells[3])]++
		cited := checklistCode.ReplaceAllString(cells[4], "")
		for _, name := range checklistGoTest.FindAllString(cited, -1) {
			prefix, family := strings.CutSuffix(name, "*")
			found := slices.Contains(funcs, name) ||
				family && slices.ContainsFunc(funcs, func(f string) bool { return strings.HasPrefix(f, prefix) })
			if !found {
				t.Errorf("row %s cites %s: no func %s in a *_test.go of the repository", strings.TrimSpace(cells[1]), name, name)
			}
		}
		for _, name := range checklistStory.FindAllString(cited, -1) {
			if _, err := os.Stat(filepath.Join("testdata", "script", name+".txtar")); err != nil {
				t.Errorf("row %s cites the story %s: no testdata/script/%s.txtar", strings.TrimSpace(cells[1]), name, name)
			}
		}
	}
	m := checklistTotals.FindStringSubmatch(string(doc))
	if m == nil {
		t.Fatalf("docs/seeds-checklist.md has no line matching %s", checklistTotals)
	}
	n := func(i int) int { v, _ := strconv.Atoi(m[i]); return v }
	if n(1) != counts["working"] || n(2) != counts["deliberate"] || n(3) != counts["partial"] || n(4) != counts["missing"] ||
		n(5) != counts["working"]+counts["deliberate"] || n(6) != rows || rows != counts["working"]+counts["deliberate"]+counts["partial"]+counts["missing"] {
		t.Errorf("the checklist says %q; its %d rows count %d working, %d deliberate, %d partial, %d missing", m[0], rows,
			counts["working"], counts["deliberate"], counts["partial"], counts["missing"])
	}
}
