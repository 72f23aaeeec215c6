package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

func (a *app) configCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "config",
		Short: "Read, change and check config.json: config get [KEY], config set KEY VALUE, config validate",
		Long: "config reads and changes the settings of config.json at the contents root. A key is a setting\n" +
			"(max_rounds, lease_ttl, ...), agents.<role> for a role's agents (a workflow role, or a debate role in\n" +
			"every protocol that defines it), or agents.<protocol>.<role> for one protocol's own (agents.panel.judge,\n" +
			"agents.agora.<position>); a key that names no role is refused with the nearest. `config set` changes one key in\n" +
			"a transaction recorded as a config-set event, and only when the result passes the schema and the\n" +
			"ranges; `config validate` checks the file as every command does, and exits 6 naming the key and\n" +
			"its accepted range when it is not valid.",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return store.Errorf(store.CodeUsage, "unknown config command %q: it has get, set and validate", args[0]).
					WithHint("run `proofloop config --help`")
			}
			return nil
		},
	}
	c.AddCommand(a.configGetCommand(), a.configSetCommand(), a.configValidateCommand())
	return c
}

func (a *app) configGetCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "get [KEY]",
		Short: "Print the config in effect (defaults filled in), or one key of it",
		Example: "  proofloop config get\n" +
			"  proofloop config get lease_ttl\n" +
			"  proofloop config get agents.check",
		Args:              maxOneKey,
		ValidArgsFunction: completeConfigKeys,
		RunE: func(_ *cobra.Command, args []string) error {
			key := ""
			if len(args) == 1 {
				key = args[0]
			}
			return a.withStore(func(s *store.Store) error {
				v, err := s.GetConfig(key)
				if err != nil {
					return err
				}
				if a.json {
					if key == "" {
						return a.writeJSON(map[string]any{"ok": true, "command": a.command, "config": v})
					}
					return a.writeJSON(map[string]any{"ok": true, "command": a.command, "key": key, "value": v})
				}
				fmt.Fprintln(a.stdout, plainValue(v))
				return nil
			})
		},
	}
}

func (a *app) configSetCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "set KEY VALUE",
		Short: "Change one key of config.json in a transaction, checked against the schema and ranges first",
		Long: "set changes one key of config.json. VALUE is read as JSON when it is JSON (7, false, \"x\"),\n" +
			"else as a string, so `config set lease_ttl 30m` needs no quotes; null removes the key, so that its\n" +
			"default applies again. The result is checked against config.schema.json and the ranges before\n" +
			"anything is written; a refused value exits 2 and changes nothing. A change is one config-set\n" +
			"event with the actor. Every key is a person's setting: set is refused (exit 4, person_only)\n" +
			"under a lease (--lease or $PROOFLOOP_LEASE) and in a turn of `proofloop run` ($PROOFLOOP_RUN_ID),\n" +
			"where an agent acts, and it is no MCP tool.",
		Example: "  proofloop config set max_rounds 7\n" +
			"  proofloop config set lease_ttl 30m\n" +
			"  proofloop config set agents.check 'sh examples/agents/check.sh'\n" +
			"  proofloop config set agents.agora.bull 'sh agents/bull.sh'\n" +
			"  proofloop config set agents.decide null",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return store.Errorf(store.CodeUsage, "config set takes a key and a value, got %s", model.Count(len(args), "argument")).
					WithHint("e.g. proofloop config set lease_ttl 30m")
			}
			return nil
		},
		ValidArgsFunction: completeConfigKeys,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.personOnly("config set " + args[0]); err != nil {
				return err
			}
			s, err := a.openConfig()
			if err != nil {
				return err
			}
			defer s.Close()
			ch, err := s.SetConfig(store.TxOptions{Command: store.ConfigSetCommand, Actor: a.actor}, args[0], store.ParseConfigValue(args[1]))
			if err != nil {
				return err
			}
			if a.json {
				return a.writeJSON(map[string]any{"ok": true, "command": a.command, "key": ch.Key,
					"value": jsonOrNull(ch.After), "before": jsonOrNull(ch.Before), "changed": ch.Seq > 0, "seq": ch.Seq})
			}
			switch {
			case ch.Seq == 0:
				fmt.Fprintf(a.stdout, "%s already is %s; nothing changed.\n", ch.Key, shownValue(ch.After))
			case ch.After == nil:
				fmt.Fprintf(a.stdout, "Removed %s (was %s) from %s; its default applies.\n", ch.Key, shownValue(ch.Before), a.configFile())
			default:
				fmt.Fprintf(a.stdout, "Set %s to %s (was %s) in %s.\n", ch.Key, shownValue(ch.After), shownValue(ch.Before), a.configFile())
			}
			return nil
		},
	}
	return c
}

func (a *app) configValidateCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "validate",
		Short: "Check config.json against its schema and ranges; exit 6 naming the key and range when it fails",
		Args:  noArgs,
		RunE: func(*cobra.Command, []string) error {
			s, err := a.openRoot()
			if err != nil {
				return err
			}
			defer s.Close()
			if _, err := s.Config(); err != nil {
				return err
			}
			if a.json {
				return a.writeJSON(map[string]any{"ok": true, "command": a.command, "file": a.configFile(), "valid": true})
			}
			fmt.Fprintf(a.stdout, "%s is valid.\n", a.configFile())
			return nil
		},
	}
}

// openConfig opens the store without checking config.json first, as open
// does: config set must be able to repair a bad key. The lock timeout is
// $PROOFLOOP_LOCK_TIMEOUT, else config.json's when it is valid.
func (a *app) openConfig() (*store.Store, error) {
	s, err := a.openRoot()
	if err != nil {
		return nil, err
	}
	if cfg, err := s.Config(); err == nil {
		s.LockTimeout = cfg.LockTimeoutDuration()
	}
	if env := os.Getenv("PROOFLOOP_LOCK_TIMEOUT"); env != "" {
		d, err := time.ParseDuration(env)
		if err != nil || d < 0 {
			s.Close()
			return nil, store.Errorf(store.CodeUsage, "PROOFLOOP_LOCK_TIMEOUT %q is not a duration such as 10s", env).
				WithHint("set it to a duration such as 10s or 1m, or unset it to use lock_timeout of config.json")
		}
		s.LockTimeout = d
	}
	return s, nil
}

func (a *app) configFile() string { return filepath.Join(a.root, store.ConfigFile) }

func maxOneKey(cmd *cobra.Command, args []string) error {
	if len(args) > 1 {
		return store.Errorf(store.CodeUsage, "%s takes at most one key, got %d", commandName(cmd), len(args)).
			WithHint("e.g. proofloop config get lease_ttl")
	}
	return nil
}

// completeConfigKeys completes the first argument with the settings,
// agents.<role> for each role, and agents.<protocol>.<role> for each role a
// protocol defines (an agora position is the debate's own name).
func completeConfigKeys(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var keys []string
	for _, k := range store.ConfigKeys() {
		keys = append(keys, k.Name)
	}
	for _, r := range model.WorkflowRoles {
		keys = append(keys, "agents."+string(r))
	}
	for _, r := range model.DebateRoles() {
		keys = append(keys, "agents."+r)
	}
	for _, p := range model.Protocols {
		for _, r := range p.OwnRoles() {
			keys = append(keys, "agents."+p.Name+"."+r)
		}
	}
	return fixed(keys...)(nil, nil, toComplete)
}

// plainValue prints a string setting bare (15m, not "15m") and anything
// else as indented JSON.
func plainValue(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	var b bytes.Buffer
	if json.Indent(&b, v, "", "  ") != nil {
		return string(v)
	}
	return b.String()
}

// shownValue is a value in a sentence: its JSON, or "unset".
func shownValue(v json.RawMessage) string {
	if v == nil {
		return "unset"
	}
	return strings.TrimSpace(string(v))
}

func jsonOrNull(v json.RawMessage) json.RawMessage {
	if v == nil {
		return json.RawMessage("null")
	}
	return v
}

// negativeNumber is a word pflag reads as shorthand flags ("-1" as -1) but
// that can only be a value: no flag's shorthand is a digit.
var negativeNumber = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-\.?[0-9]`) })

// configSetArgs lets config set take a negative value (`config set
// max_rounds -1`), so that the ranges refuse it for what it is instead of
// pflag refusing an unknown flag -1. When the command line is config set's
// and a word that is no flag's value is a negative number, the words that
// are not flags move, in their order, behind a "--" at the end, which ends
// the flags. Any other command line is returned as it is.
func configSetArgs(root *cobra.Command, args []string) []string {
	c, _, err := root.Find(args)
	if err != nil || commandName(c) != "config set" || slices.Contains(args, "--") {
		return args
	}
	var flags, words []string
	path, negative := []string{"config", "set"}, false
	for i := 0; i < len(args); i++ {
		w := args[i]
		switch {
		case len(path) > 0 && w == path[0]:
			path = path[1:]
			flags = append(flags, w) // the command's own words stay where they are
		case negativeNumber().MatchString(w):
			negative = true
			words = append(words, w)
		case strings.HasPrefix(w, "-") && len(w) > 1:
			flags = append(flags, w)
			name := strings.TrimLeft(w, "-")
			if f := lookupFlag(c, name); f != nil && f.NoOptDefVal == "" && !strings.Contains(name, "=") && i+1 < len(args) {
				i++
				flags = append(flags, args[i])
			}
		default:
			words = append(words, w)
		}
	}
	if !negative {
		return args
	}
	return append(append(flags, "--"), words...)
}
