// Package textest compiles LaTeX for the export's tests and checks what
// the compile touched: the LaTeX export must let no agent text read a host
// file or write one (issue 34 N1), and pdflatex's own record of the files
// it opened (-recorder) is the witness.
package textest

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Job is the name the compiles give their document: Job.tex in a fresh
// folder.
const Job = "m"

// Compile writes tex as Job.tex in a fresh folder and runs pdflatex on it
// runs times (twice resolves \ref), non-stop and with -recorder (Job.fls
// lists the files read and written); it returns the folder and the last
// log. Without pdflatex the test is skipped, loudly.
func Compile(t *testing.T, tex string, runs int) (dir, log string) {
	t.Helper()
	pdflatex, err := exec.LookPath("pdflatex")
	if err != nil {
		t.Skip("!!! pdflatex is not installed (make texlive installs it): the LaTeX was NOT compiled")
	}
	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, Job+".tex"), []byte(tex), 0o644); err != nil {
		t.Fatal(err)
	}
	for range runs {
		cmd := exec.Command(pdflatex, "-interaction=nonstopmode", "-recorder", Job+".tex")
		cmd.Dir = dir
		cmd.Run() // the log says what went wrong
	}
	b, err := os.ReadFile(filepath.Join(dir, Job+".log"))
	if err != nil {
		t.Fatalf("pdflatex wrote no log: %v", err)
	}
	return dir, string(b)
}

// Text is the PDF's text (pdftotext), or "" with the test told why when
// poppler-utils is missing.
func Text(t *testing.T, dir string) string {
	t.Helper()
	pdftotext, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Log("!!! pdftotext is not installed (poppler-utils): the PDF's text was NOT read")
		return ""
	}
	out, err := exec.Command(pdftotext, filepath.Join(dir, Job+".pdf"), "-").Output()
	if err != nil {
		t.Errorf("pdftotext %s.pdf: %v (no PDF?)", Job, err)
	}
	return string(out)
}

// CheckNoFileAccess checks a compile in dir: the PDF's text and the log
// hold no marker (the planted file's content), the recorder's list names
// no file read outside the TeX installation and the job's own (secret
// least of all) and no file written but the log, .aux and PDF, and the
// folder holds nothing else.
func CheckNoFileAccess(t *testing.T, dir, log, secret, marker string) {
	t.Helper()
	if strings.Contains(Text(t, dir), marker) {
		t.Errorf("the PDF holds the planted file's content %q", marker)
	}
	if strings.Contains(log, marker) {
		t.Errorf("the log holds the planted file's content %q", marker)
	}
	outputs := []string{Job + ".log", Job + ".aux", Job + ".pdf"}
	fls, err := os.ReadFile(filepath.Join(dir, Job+".fls"))
	if err != nil {
		t.Fatalf("pdflatex -recorder wrote no %s.fls: %v", Job, err)
	}
	for _, l := range strings.Split(string(fls), "\n") {
		kind, p, _ := strings.Cut(l, " ")
		switch {
		case kind == "OUTPUT" && !slices.Contains(outputs, p):
			t.Errorf("pdflatex wrote %s", p)
		case kind == "INPUT" && (strings.Contains(p, secret) || !installed(p)):
			t.Errorf("pdflatex read %s", p)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !slices.Contains(append(outputs, Job+".tex", Job+".fls"), e.Name()) {
			t.Errorf("the compile left %s in its folder", e.Name())
		}
	}
}

// installed reports whether p is one of TeX's own files or the job's.
func installed(p string) bool {
	if !filepath.IsAbs(p) {
		return strings.HasPrefix(filepath.Base(p), Job+".")
	}
	for _, dir := range []string{"/usr/share/", "/usr/local/texlive/", "/etc/texmf/", "/var/lib/texmf/", "/opt/"} {
		if strings.HasPrefix(p, dir) {
			return true
		}
	}
	home, _ := os.UserHomeDir()
	return home != "" && strings.HasPrefix(p, filepath.Join(home, ".texlive"))
}
