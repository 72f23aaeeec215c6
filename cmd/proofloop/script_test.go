package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/proofloop/proofloop/internal/pgtest"
	"github.com/rogpeppe/go-internal/testscript"
	"github.com/tidwall/sjson"
)

// TestMain lets testscript run the real CLI as the command "proofloop".
func TestMain(m *testing.M) {
	testscript.Main(withCluster{m}, map[string]func(){
		"proofloop": func() {
			code := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
			if os.Getenv(mirrorEnv) != "" {
				mirror()
			}
			os.Exit(code)
		},
	})
}

// cluster is the PostgreSQL cluster of the conformance tests, started by
// the first test that needs it.
var cluster pgtest.Shared

// withCluster removes the cluster and stops the browser once the tests
// have run.
type withCluster struct{ m *testing.M }

func (w withCluster) Run() int {
	defer cluster.Done()
	defer chromium.stop()
	return w.m.Run()
}

// TestScript runs every testdata/script/*.txtar: one story each, through
// the real command, in a fresh work directory with PROOFLOOP_ROOT set to
// $WORK/contents.
func TestScript(t *testing.T) { testscript.Run(t, scriptParams(nil)) }

// TestScriptPostgres runs the same stories on the PostgreSQL store: each
// in a fresh, migrated database of a throwaway cluster (a clone of its
// template, see pgtest.CreateMigratedDB), named by
// $PROOFLOOP_STORE, with the condition [pg] true. The few stories that
// look at the files of a root skip themselves with [pg] skip, saying why.
func TestScriptPostgres(t *testing.T) {
	c, err := cluster.Get()
	if err != nil {
		if os.Getenv(pgtest.RequireEnv) != "" {
			t.Fatalf("no PostgreSQL cluster, and %s is set: %v", pgtest.RequireEnv, err)
		}
		t.Skipf("no PostgreSQL cluster (see the banner above): %v", err)
	}
	testscript.Run(t, scriptParams(func(env *testscript.Env) error {
		dsn, err := c.CreateMigratedDB(filepath.Base(env.WorkDir))
		if err != nil {
			return err
		}
		env.Defer(func() { c.DropDB(dsn) })
		env.Setenv("PROOFLOOP_STORE", dsn)
		env.Setenv(mirrorEnv, "1")
		if err := loadArchiveStore(env, dsn); err != nil {
			// A story that lays out a damaged store skips itself on [pg].
			env.Setenv("PG_LOAD_ERROR", err.Error())
		}
		return nil
	}))
}

// scriptParams are the stories' settings; setup, when not nil, readies
// the PostgreSQL store.
func scriptParams(setup func(env *testscript.Env) error) testscript.Params {
	return testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("PROOFLOOP_ROOT", env.WorkDir+"/contents")
			env.Setenv("PROOFLOOP_ACTOR", "")
			env.Setenv("PROOFLOOP_LEASE", "")
			env.Setenv("PROOFLOOP_LOCK_TIMEOUT", "")
			env.Setenv("PROOFLOOP_STORE", "")
			env.Setenv(mirrorEnv, "")
			if setup != nil {
				return setup(env)
			}
			return nil
		},
		Condition: func(cond string) (bool, error) {
			if cond == "pg" {
				return setup != nil, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"cmpjson":   cmpJSON,
			"jsonedit":  jsonEdit,
			"setconfig": setConfig,
			"jsonerr":   jsonErr,
		},
	}
}

// setConfig replaces the store's config.json by hand with a file:
// `setconfig FILE`. On the file store it copies FILE over
// contents/config.json; on PostgreSQL it writes the config row, as a hand
// edit of the database would (no event either way).
func setConfig(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: setconfig FILE")
	}
	content := ts.ReadFile(args[0])
	dsn := ts.Getenv("PROOFLOOP_STORE")
	if dsn == "" {
		ts.Check(os.WriteFile(ts.MkAbs("contents/config.json"), []byte(content), 0o644))
		return
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	ts.Check(err)
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `UPDATE files SET content = $1 WHERE name = 'config.json'`, []byte(content))
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs("contents/config.json"), []byte(content), 0o644))
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
