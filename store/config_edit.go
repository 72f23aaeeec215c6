package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/tidwall/gjson"
	"github.com/tidwall/pretty"
	"github.com/tidwall/sjson"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/schemas"
)

// `proofloop config get|set|validate`: config.json read by dotted key, and
// changed by one key at a time in a transaction of its own (the journal,
// then one "config-set" event), checked against the schema and the ranges
// before anything is written.

// ConfigSetCommand is the event command of a config change.
const ConfigSetCommand = "config-set"

// agentNameRe is config.schema.json's propertyNames pattern for agents.
var agentNameRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9_-]*$`) }) // and at most 40 bytes: a {0,39} would compile to 39 copies

// ConfigKeys lists the settings of config.json, in the schema's order, and
// each one's description.
func ConfigKeys() []ConfigKey {
	var out []ConfigKey
	gjson.GetBytes(schemas.Source(schemas.Config), "properties").ForEach(func(k, v gjson.Result) bool {
		out = append(out, ConfigKey{k.String(), v.Get("description").String()})
		return true
	})
	return out
}

// ConfigKey is one setting of config.json.
type ConfigKey struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// ConfigPath checks a dotted key ("lease_ttl", "agents.check",
// "agents.panel.judge") and returns it as a gjson/sjson path. Only the
// schema's setting names and agent keys of the schema's pattern pass, so no
// text a user typed reaches sjson with a character that sjson would read as
// syntax (. * ? # | @ \). An agent key must name a role or a protocol
// (AgentTable), except when it is being removed: a key an older config
// holds (an agora position's) must be removable.
func ConfigPath(key string, removing bool) (string, error) {
	top, sub, nested := strings.Cut(key, ".")
	known := false
	var names []string
	for _, k := range ConfigKeys() {
		names = append(names, k.Name)
		known = known || k.Name == top
	}
	switch {
	case !known:
		e := Errorf(CodeInvalidInput, "config.json has no setting %q", top)
		if near := model.Nearest(top, names, 1); len(near) > 0 {
			return "", e.WithHint("did you mean " + near[0] + "? the settings are " + strings.Join(names, ", ") + "; an agent is agents.<role>")
		}
		return "", e.WithHint("the settings are " + strings.Join(names, ", ") + "; an agent is agents.<role>")
	case nested && top != "agents":
		if err := nestedKey(top, sub); err != nil {
			return "", err
		}
		return key, nil
	}
	if !nested {
		return key, nil
	}
	for _, part := range strings.Split(sub, ".") {
		if len(part) > 40 || !agentNameRe().MatchString(part) {
			return "", Errorf(CodeInvalidInput, "agents.%s: each part of an agent key is a-z first, then a-z, 0-9, _ or -, at most 40 characters", sub).
				WithHint("e.g. agents.check or agents.panel.judge")
		}
	}
	if problem := agentKeyProblem(sub); problem != "" && !removing {
		return "", Errorf(CodeInvalidInput, "%s", problem).WithHint(agentKeysAre())
	}
	return key, nil
}

// nestedKey checks the keys below a setting that is an object (formal:
// formal.policy, formal.checkers.coq) against the schema: each must be a
// property it lists, or a name its map's pattern takes. Every key is of
// the agent-name pattern, so none holds a character sjson reads as syntax.
func nestedKey(top, rest string) error {
	at := gjson.GetBytes(schemas.Source(schemas.Config), "properties."+top)
	where := top
	for _, k := range strings.Split(rest, ".") {
		if len(k) > 40 || !agentNameRe().MatchString(k) {
			return Errorf(CodeInvalidInput, "%s.%s: a key is a-z first, then a-z, 0-9, _ or -, at most 40 characters", where, k)
		}
		switch {
		case at.Get("properties." + k).Exists():
			at = at.Get("properties." + k)
		case at.Get("additionalProperties").IsObject():
			at = gjson.GetBytes(schemas.Source(schemas.Config), "definitions."+strings.TrimPrefix(at.Get("additionalProperties.$ref").String(), "#/definitions/"))
		default:
			var keys []string
			at.Get("properties").ForEach(func(name, _ gjson.Result) bool {
				keys = append(keys, where+"."+name.String())
				return true
			})
			if len(keys) == 0 {
				return Errorf(CodeInvalidInput, "%s is a single value; it has no keys", where)
			}
			return Errorf(CodeInvalidInput, "config.json has no setting %s.%s", where, k).
				WithHint("the keys of " + where + " are " + strings.Join(keys, ", "))
		}
		where += "." + k
	}
	return nil
}

// ParseConfigValue reads a value as `config set` takes it: as JSON when it
// parses as JSON (7, false, "x", {"a": 1}), else as a string, so that
// `config set lease_ttl 30m` needs no quotes.
func ParseConfigValue(s string) json.RawMessage {
	if t := strings.TrimSpace(s); t != "" && json.Valid([]byte(t)) {
		return json.RawMessage(t)
	}
	b, _ := json.Marshal(s)
	return b
}

// GetConfig returns one setting (key "" for all of them) of the config in
// effect: config.json with every default filled in. A setting it leaves
// out, such as an agent it does not name, is not_found.
func (s *Store) GetConfig(key string) (json.RawMessage, error) {
	path := ""
	if key != "" {
		var err error
		if path, err = ConfigPath(key, false); err != nil {
			return nil, err
		}
	}
	c, err := s.Config()
	if err != nil {
		return nil, err
	}
	all, err := json.Marshal(c)
	if err != nil {
		return nil, Errorf(CodeInternal, "encode config").Wrap(err)
	}
	if path == "" {
		return all, nil
	}
	v := gjson.GetBytes(all, path)
	if !v.Exists() {
		return nil, Errorf(CodeNotFound, "config.json does not set %s", key).
			WithHint("set it with `proofloop config set " + key + " VALUE`")
	}
	return json.RawMessage(v.Raw), nil
}

// ConfigChange is what SetConfig did. Before and After are nil when the
// key is absent from config.json (so its default applies); Seq is 0 when
// the value was already what was asked and nothing was written.
type ConfigChange struct {
	Key           string
	Before, After json.RawMessage
	Seq           int
}

// SetConfig sets key to value in config.json (value nil or null removes
// the key, so that its default applies again), as one transaction: under the lock,
// after recovering a leftover journal, it edits the file, checks the result
// with ParseConfig, and commits it through the journal with one event.
//
// A result that fails the schema or a range is refused and nothing is
// written: invalid_input when the value is at fault, store_damaged when
// config.json was already invalid before and stays so. Setting a broken key
// to a good value is how a damaged config.json is repaired.
func (s *Store) SetConfig(opts TxOptions, key string, value json.RawMessage) (*ConfigChange, error) {
	path, err := ConfigPath(key, value == nil || string(bytes.TrimSpace(value)) == "null")
	if err != nil {
		return nil, err
	}
	if opts.Command == "" {
		opts.Command = ConfigSetCommand
	}
	var ch *ConfigChange
	c, err := s.Update(opts, func(tx *Tx) error {
		ch, err = tx.setConfig(key, path, value)
		return err
	})
	if err != nil {
		return nil, err
	}
	ch.Seq = c.Seq
	// The cached config is keyed by size and modification time; an edit
	// within the clock's resolution that keeps the size would look the same.
	s.cfgMu.Lock()
	s.cfg = nil
	s.cfgMu.Unlock()
	return ch, nil
}

// setConfig is SetConfig's transaction body: it writes nothing when the
// value is already in place.
func (tx *Tx) setConfig(key, path string, value json.RawMessage) (*ConfigChange, error) {
	raw, err := tx.src().ReadFile(ConfigFile)
	if err == nil && raw == nil {
		err = fs.ErrNotExist
	}
	if err != nil {
		return nil, damaged(ConfigFile, err)
	}
	if !json.Valid(raw) || !gjson.ParseBytes(raw).IsObject() {
		return nil, damaged(ConfigFile, errors.New("it is not a JSON object, so no key of it can be set")).
			WithHint("repair it by hand, or restore it from a backup; `proofloop init` writes a default one in an empty folder")
	}
	ch := &ConfigChange{Key: key}
	if v := gjson.GetBytes(raw, path); v.Exists() {
		ch.Before = json.RawMessage(v.Raw)
	}
	var edited []byte
	if value == nil || string(bytes.TrimSpace(value)) == "null" {
		edited, err = sjson.DeleteBytes(raw, path)
	} else {
		var compact bytes.Buffer
		if err := json.Compact(&compact, value); err != nil {
			return nil, Errorf(CodeInvalidInput, "the value for %s is not JSON", key).Wrap(err)
		}
		ch.After = json.RawMessage(compact.Bytes())
		edited, err = sjson.SetRawBytes(raw, path, ch.After)
	}
	if err != nil {
		return nil, Errorf(CodeInternal, "edit %s", ConfigFile).Wrap(err)
	}
	if sameJSON(ch.Before, ch.After) {
		return ch, nil
	}
	edited = pretty.Pretty(edited)
	if _, err := ParseConfig(edited); err != nil && !fewerAgentKeys(raw, err) {
		if _, was := ParseConfig(raw); was != nil && was.Error() == err.Error() {
			return nil, (&Error{Code: CodeStoreDamaged, Msg: ConfigFile + " is already damaged, and setting " + key + " does not repair it", Err: UnwrapDamage(was)}).
				WithHint("set the key the message names first, or run `proofloop config validate`")
		}
		hint := "`proofloop config get` shows the settings in effect; config.schema.json lists every key and range"
		if r, ok := ConfigRanges[key]; ok {
			hint = "give " + key + " a value " + r + " (`proofloop config get " + key + "` shows the one in effect), or null for its default"
		}
		return nil, (&Error{Code: CodeInvalidInput, Msg: "config set " + key + " " + string(valueOrNull(ch.After)) + " would make " + ConfigFile + " invalid", Err: UnwrapDamage(err)}).
			WithHint(hint)
	}
	tx.Detail("key", key)
	tx.Detail("before", valueOrNull(ch.Before))
	tx.Detail("after", valueOrNull(ch.After))
	return ch, tx.WriteFile(ConfigFile, edited)
}

// fewerAgentKeys reports whether an edit whose result fails with err may
// still be written: config.json fails only by keys of agents that name no
// role (an older config's agora positions, say) and the edit adds none, so
// they can be moved one by one, in any order.
func fewerAgentKeys(raw []byte, err error) bool {
	var now, was *AgentKeyError
	_, before := ParseConfig(raw)
	if !errors.As(err, &now) || !errors.As(before, &was) {
		return false
	}
	for _, k := range now.Keys {
		if !slices.Contains(was.Keys, k) {
			return false
		}
	}
	return true
}

// UnwrapDamage returns the reason inside a damaged-file error, so that a
// refused value reads "lease_ttl "0s" is out of range: ..." and not
// "config.json is damaged: ...".
func UnwrapDamage(err error) error {
	var e *Error
	if errors.As(err, &e) && e.Err != nil {
		return e.Err
	}
	return err
}

func valueOrNull(v json.RawMessage) json.RawMessage {
	if v == nil {
		return json.RawMessage("null")
	}
	return v
}

func sameJSON(a, b json.RawMessage) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}
