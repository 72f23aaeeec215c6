package report

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// Written says what Write wrote.
type Written struct {
	Path       string `json:"path"` // the file, or the folder of a split report
	Split      bool   `json:"split"`
	Pages      int    `json:"pages"`
	Bytes      int64  `json:"bytes"`
	Statements int    `json:"statements"`
	LastSeq    int    `json:"last_seq"`
}

// Write renders the report of s (limited to problem unless "") to out: a
// file, or "-" for stdout. A report that Render splits goes to a folder
// named after out without its .html (report.html -> report/), holding
// index.html, one page per root problem and katex.min.js, which they
// share; stdout takes only one page.
func Write(ctx context.Context, s *store.Store, problem, out string, stdout io.Writer, o Options) (*Written, error) {
	if out != "-" {
		// The CLI checked -o before the command ran; the folder of a split
		// report is another path, and Write has other callers.
		for _, t := range []string{out, strings.TrimSuffix(out, ".html")} {
			if err := store.CheckOutput(s.Dir, t, "the report", "-o"); err != nil {
				return nil, err
			}
		}
	}
	d, err := Load(ctx, s, problem)
	if err != nil {
		return nil, err
	}
	if out == "-" && Split(d, o) {
		return nil, store.Errorf(store.CodeUsage, "the report of %d statements is split into one page per root problem, which stdout cannot hold", len(d.Statements)).
			WithHint("give -o DIR (or -o FILE.html, which writes the folder FILE), or --problem P for one root problem")
	}
	pages, err := Render(d, o)
	if err != nil {
		return nil, store.Errorf(store.CodeInternal, "render the report").Wrap(err)
	}
	w := &Written{Path: out, Split: len(pages) > 1, Pages: len(pages), Statements: len(d.Statements), LastSeq: d.LastSeq}
	for _, p := range pages {
		w.Bytes += int64(len(p.HTML))
	}
	if w.Split {
		w.Bytes += int64(len(katexJS))
	}
	if out == "-" {
		_, err := stdout.Write(pages[0].HTML)
		return w, err
	}
	if !w.Split {
		if err := os.WriteFile(out, pages[0].HTML, 0o644); err != nil {
			return nil, store.Errorf(store.CodeUsage, "write %s", out).Wrap(err)
		}
		return w, nil
	}
	w.Path = strings.TrimSuffix(out, ".html")
	if err := os.MkdirAll(w.Path, 0o755); err != nil {
		return nil, store.Errorf(store.CodeUsage, "make the folder %s", w.Path).Wrap(err)
	}
	pages = append(pages, Page{Name: KaTeXFile, HTML: KaTeX()})
	for _, p := range pages {
		if err := os.WriteFile(filepath.Join(w.Path, p.Name), p.HTML, 0o644); err != nil {
			return nil, store.Errorf(store.CodeUsage, "write %s", filepath.Join(w.Path, p.Name)).Wrap(err)
		}
	}
	return w, nil
}

// Describe is one sentence about w for a person.
func (w *Written) Describe() string {
	if w.Split {
		return fmt.Sprintf("Wrote the report of %s to %s/: index.html and %s, one per root problem (%.1f MB in all).",
			model.Count(w.Statements, "statement"), w.Path, model.Count(w.Pages-1, "page"), float64(w.Bytes)/1e6)
	}
	return fmt.Sprintf("Wrote the report of %s to %s (%.1f MB); open it in a browser.", model.Count(w.Statements, "statement"), w.Path, float64(w.Bytes)/1e6)
}
