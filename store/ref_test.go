package store

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/proofloop/proofloop/model"
)

func TestParseRef(t *testing.T) {
	root := t.TempDir()
	rel := "contents"
	for _, c := range []struct {
		rootDir, ref string
		id           string // "" means refused with invalid_input
	}{
		{root, "prob_x", "prob_x"},
		{root, "stmt_x_wrap", "stmt_x_wrap"},
		{root, "problem/prob_x.json", "prob_x"},
		{root, "./statement/stmt_x_wrap.json", "stmt_x_wrap"},
		{root, filepath.Join(root, "problem", "prob_x.json"), "prob_x"},
		{root, filepath.Join(root, "statement", "stmt_x_sub1.json"), "stmt_x_sub1"},
		{rel, "contents/problem/prob_x.json", "prob_x"},
		{rel, "problem/prob_x.json", "prob_x"},

		{root, "..", ""},
		{root, ".", ""},
		{root, "", ""},
		{root, "../problem/prob_x.json", ""},
		{root, "problem/../../problem/prob_x.json", ""},
		{root, "problem/../../../etc/passwd", ""},
		{root, "..\\problem\\prob_x.json", ""},
		{root, "/etc/passwd", ""},
		{root, "/problem/prob_x.json", ""},
		{root, filepath.Join(root, "..", "other", "problem", "prob_x.json"), ""},
		{root, filepath.Join(root+"x", "problem", "prob_x.json"), ""},
		{root, filepath.Join(root, "problem", "..", "..", "prob_x.json"), ""},
		{rel, "contentsx/problem/prob_x.json", ""},
		{root, "statement/prob_x.json", ""},
		{root, "problem/stmt_x.json", ""},
		{root, "leases/prob_x.json", ""},
		{root, "other/prob_x.json", ""},
		{root, "prob_x.json", ""},
		{root, "problem/sub/prob_x.json", ""},
		{root, "problem/prob_x.txt", ""},
		{root, "problem/prob_X.json", ""},
		{root, "problem/.prob_x.json", ""},
		{root, "config.json", ""},
		{root, "events.jsonl", ""},
		{root, "prob_X", ""},
		{root, "prob-x", ""},
		{root, "prob_", ""},
		{root, "x_y", ""},
		{root, "prob_x;rm", ""},
		{root, "prob_x\x00", ""},
		{root, "prob_" + strings.Repeat("a", model.MaxIDLen), ""},
	} {
		id, kind, err := ParseRef(c.rootDir, c.ref)
		if c.id == "" {
			if err == nil || CodeOf(err) != CodeInvalidInput {
				t.Errorf("ParseRef(%q, %q) = %q, %v; want an invalid_input refusal", c.rootDir, c.ref, id, err)
			}
			continue
		}
		wantKind, _ := model.KindOf(c.id)
		if err != nil || id != c.id || kind != wantKind {
			t.Errorf("ParseRef(%q, %q) = %q, %q, %v; want %q, %q", c.rootDir, c.ref, id, kind, err, c.id, wantKind)
		}
	}
}
