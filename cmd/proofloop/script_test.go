package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/tidwall/sjson"
)

// TestMain lets testscript run the real CLI as the command "proofloop".
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"proofloop": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScript runs every testdata/script/*.txtar: one story each, through
// the real command, in a fresh work directory with PROOFLOOP_ROOT set to
// $WORK/contents.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("PROOFLOOP_ROOT", env.WorkDir+"/contents")
			env.Setenv("PROOFLOOP_ACTOR", "")
			env.Setenv("PROOFLOOP_LEASE", "")
			env.Setenv("PROOFLOOP_LOCK_TIMEOUT", "")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"cmpjson":  cmpJSON,
			"jsonedit": jsonEdit,
		},
	})
}

// jsonEdit edits a JSON file in place by hand, as a person or a broken tool
// would, to damage a store on purpose: `jsonedit FILE PATH JSON` sets the
// sjson path to a raw JSON value, `jsonedit FILE PATH -` deletes it.
func jsonEdit(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: jsonedit FILE PATH JSON|-")
	}
	in := ts.ReadFile(args[0])
	var out string
	var err error
	if args[2] == "-" {
		out, err = sjson.Delete(in, args[1])
	} else {
		out, err = sjson.SetRaw(in, args[1], args[2])
	}
	if err != nil {
		ts.Fatalf("jsonedit %s: %v", args[1], err)
	}
	if out == in {
		ts.Fatalf("jsonedit %s %s changed nothing", args[0], args[1])
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(out), 0o644))
}

var (
	timestampRe = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?Z$`)
	sha256Re    = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// cmpJSON compares two JSON files field by field: `cmpjson got want`. Any
// timestamp matches the string "TIMESTAMP" (or any other timestamp), and any SHA-256
// (an event's hash and prev) the string "SHA256". A mismatch
// lists each differing JSON path with both values.
func cmpJSON(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: cmpjson got want")
	}
	var got, want any
	if err := json.Unmarshal([]byte(ts.ReadFile(args[0])), &got); err != nil {
		ts.Fatalf("%s: %v", args[0], err)
	}
	if err := json.Unmarshal([]byte(ts.ReadFile(args[1])), &want); err != nil {
		ts.Fatalf("%s: %v", args[1], err)
	}
	var diffs []string
	diffJSON("$", normalize(got), normalize(want), &diffs)
	if neg {
		if len(diffs) == 0 {
			ts.Fatalf("%s and %s are equal", args[0], args[1])
		}
		return
	}
	if len(diffs) > 0 {
		ts.Fatalf("%s differs from %s:\n%s", args[0], args[1], strings.Join(diffs, "\n"))
	}
}

func normalize(v any) any {
	switch x := v.(type) {
	case string:
		if timestampRe.MatchString(x) {
			return "TIMESTAMP"
		}
		if sha256Re.MatchString(x) {
			return "SHA256"
		}
	case []any:
		for i := range x {
			x[i] = normalize(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = normalize(x[k])
		}
	}
	return v
}

func diffJSON(path string, got, want any, diffs *[]string) {
	gm, gok := got.(map[string]any)
	wm, wok := want.(map[string]any)
	if gok && wok {
		keys := map[string]bool{}
		for k := range gm {
			keys[k] = true
		}
		for k := range wm {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			g, inG := gm[k]
			w, inW := wm[k]
			switch {
			case !inG:
				*diffs = append(*diffs, fmt.Sprintf("%s.%s: missing; want %s", path, k, js(w)))
			case !inW:
				*diffs = append(*diffs, fmt.Sprintf("%s.%s: %s; want no such field", path, k, js(g)))
			default:
				diffJSON(path+"."+k, g, w, diffs)
			}
		}
		return
	}
	ga, gok := got.([]any)
	wa, wok := want.([]any)
	if gok && wok && len(ga) == len(wa) {
		for i := range ga {
			diffJSON(fmt.Sprintf("%s[%d]", path, i), ga[i], wa[i], diffs)
		}
		return
	}
	if !reflect.DeepEqual(got, want) {
		*diffs = append(*diffs, fmt.Sprintf("%s: %s; want %s", path, js(got), js(want)))
	}
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
