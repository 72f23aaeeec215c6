package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/proofloop/proofloop/bench/storegen"
	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/store"
)

// TestStatusSummary: a tree of more than 500 items is summarised: counts by
// kind and status, then each list (actionable, waiting for a decision) with
// its count by role and at most 20 items, pointing at `next` for the rest;
// --json still lists every item.
func TestStatusSummary(t *testing.T) {
	root := filepath.Join(t.TempDir(), "contents")
	if _, err := storegen.Generate(root, storegen.Options{Statements: 600}); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"--root", root, "status"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("status: exit %d: %s", code, errb.String())
	}
	text := out.String()
	m := regexp.MustCompile(`(?m)^(\d+) items \(the tree is summarised; --all prints every line\):$`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no summary header in:\n%s", text)
	}
	total, _ := strconv.Atoi(m[1])
	act := regexp.MustCompile(`(?m)^Actionable \((\d+): ([a-z]+ \d+(, [a-z]+ \d+)*)\):$`).FindStringSubmatch(text)
	if act == nil {
		t.Fatalf("no Actionable line with counts by role in:\n%s", text)
	}
	n, _ := strconv.Atoi(act[1])
	sum := 0
	for _, part := range strings.Split(act[2], ", ") {
		c, _ := strconv.Atoi(strings.Fields(part)[1])
		sum += c
	}
	if sum != n || n <= summaryItems {
		t.Errorf("Actionable: %d items, roles add up to %d; want equal and more than %d", n, sum, summaryItems)
	}
	if lines := strings.Count(text, "\n  stmt_") + strings.Count(text, "\n  prob_"); lines > 2*summaryItems {
		t.Errorf("the summary lists %d items; want at most %d per list", lines, summaryItems)
	}
	if want := "  ... and " + strconv.Itoa(n-summaryItems) + " more: `proofloop next --role R` lists them all.\n"; !strings.Contains(text, want) {
		t.Errorf("no %q in:\n%s", want, text)
	}

	out.Reset()
	if code := run([]string{"--root", root, "status", "--json"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("status --json: exit %d: %s", code, errb.String())
	}
	var js struct {
		OK    bool
		Items []struct{ ID string }
	}
	if err := json.Unmarshal(out.Bytes(), &js); err != nil || !js.OK || len(js.Items) != total {
		t.Errorf("status --json: ok %v, %d items, %v; want ok and all %d", js.OK, len(js.Items), err, total)
	}
}

// TestStatusJSONEncoding: status --json encodes with json/v2's engine under
// v1's options; every item of a generated store (every status, leases,
// rounds, open issues) must come out byte for byte as encoding/json writes
// it, as every other command's output does.
func TestStatusJSONEncoding(t *testing.T) {
	root := filepath.Join(t.TempDir(), "contents")
	if _, err := storegen.Generate(root, storegen.Options{Statements: 200}); err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	snap, err := loop.Load(s)
	if err != nil {
		t.Fatal(err)
	}
	for id, it := range snap.Items {
		var v1 bytes.Buffer
		enc := json.NewEncoder(&v1)
		enc.SetEscapeHTML(false)
		enc.Encode(it)
		v2, err := jsonv2.Marshal(it, jsonv1.DefaultOptionsV1(), jsontext.EscapeForHTML(false))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(v2), strings.TrimSuffix(v1.String(), "\n"); got != want {
			t.Fatalf("%s: json/v2 wrote\n%s\nencoding/json writes\n%s", id, got, want)
		}
	}
}

// TestStatusJSONStreamed: status --json, streamed item by item, is byte for
// byte what encoding/json writes of the whole {"ok","command","items"} map
// (the output before it streamed), on a generated store with every status,
// leases, solved problems and fully_proved verdicts.
func TestStatusJSONStreamed(t *testing.T) {
	root := filepath.Join(t.TempDir(), "contents")
	reserve := map[string]int{}
	for _, shape := range storegen.Shapes {
		reserve[shape] = 2
	}
	if _, err := storegen.Generate(root, storegen.Options{Statements: 200, Reserve: reserve}); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"--root", root, "--json", "status"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("status --json: exit %d: %s", code, errb.String())
	}
	s, err := store.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	snap, err := loop.Load(s)
	if err != nil {
		t.Fatal(err)
	}
	items, _ := treeOrder(snap)
	if err := loop.Proved(s, items); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]any{"ok": true, "command": "status", "items": items}); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != want.String() {
		i := 0
		for i < len(got) && i < want.Len() && got[i] == want.String()[i] {
			i++
		}
		t.Fatalf("status --json (%d bytes) differs from encoding/json's (%d bytes) at byte %d: %.200q", len(got), want.Len(), i, got[max(0, i-100):])
	}
	if !strings.Contains(out.String(), `"fully_proved":true`) {
		t.Errorf("status --json has no fully proved item; the store was meant to have some")
	}
}
