package loop

import (
	"regexp"
	"sync"

	"github.com/tidwall/gjson"
)

// claudeParser reads Claude Code's output (`-p --output-format json`, or
// stream-json, or json --verbose): the last JSON line that carries its
// result, with usage or total_cost_usd at its top: the one result object,
// the result line of stream-json, or the result element of the one array
// that json --verbose prints. Tokens in are input_tokens plus the cache's;
// the cost is total_cost_usd, Claude Code's own; the model is the one of
// modelUsage that used the most tokens. A failed turn's result has
// is_error and its text in result ("API Error: 401 ..."), which is what
// the progress lines quote, not a warning Claude Code printed on stderr.
var claudeParser = cliParser{
	Source:  SourceClaude,
	Harness: "claude-code",
	Usage: func(vals []gjson.Result) *Usage {
		for i := len(vals) - 1; i >= 0; i-- {
			r, ok := claudeResult(vals[i])
			if !ok {
				continue
			}
			u := r.Get("usage")
			cached := u.Get("cache_read_input_tokens").Int()
			cost := r.Get("total_cost_usd")
			return &Usage{
				InputTokens:  u.Get("input_tokens").Int() + u.Get("cache_creation_input_tokens").Int() + cached,
				CachedTokens: cached,
				OutputTokens: u.Get("output_tokens").Int(),
				CostUSD:      cost.Float(),
				Reported:     cost.Exists(),
				Model:        claudeModel(r.Get("modelUsage")),
			}
		}
		return nil
	},
	Error: func(vals []gjson.Result) string {
		for i := len(vals) - 1; i >= 0; i-- {
			r, ok := claudeResult(vals[i])
			if !ok && vals[i].Get("type").String() == "result" {
				r, ok = vals[i], true
			}
			if !ok || !r.Get("is_error").Bool() {
				continue
			}
			if s := r.Get("result").String(); s != "" {
				return s
			}
			return r.Get("subtype").String()
		}
		return ""
	},
}

// claudeResult finds Claude Code's result in one JSON value: the object
// itself, or an array's last element, when it is of type result with usage
// or total_cost_usd at its top (a stream's assistant messages have theirs
// under message; Gemini's result line has stats instead).
func claudeResult(v gjson.Result) (gjson.Result, bool) {
	has := func(r gjson.Result) bool {
		return r.IsObject() && r.Get("type").String() == "result" && !r.Get("stats").Exists() &&
			(r.Get("usage").Exists() || r.Get("total_cost_usd").Exists())
	}
	if !v.IsArray() {
		return v, has(v)
	}
	arr := v.Array()
	for j := len(arr) - 1; j >= 0; j-- {
		if has(arr[j]) {
			return arr[j], true
		}
	}
	return gjson.Result{}, false
}

// claudeModel is the model of modelUsage that used the most tokens. A key
// may end in the context window Claude Code asked for, as its own default
// model does ("claude-opus-4-8[1m]": the model, with a window of a million
// tokens); the model is the name before it, so that a model counts as one
// under verify_distinct model and has one price whatever its window.
func claudeModel(mu gjson.Result) string {
	best, most := "", int64(-1)
	mu.ForEach(func(k, v gjson.Result) bool {
		if n := v.Get("inputTokens").Int() + v.Get("outputTokens").Int() + v.Get("cacheReadInputTokens").Int(); n > most {
			best, most = k.String(), n
		}
		return true
	})
	if m := contextWindow().FindStringIndex(best); m != nil && m[0] > 0 {
		return best[:m[0]]
	}
	return best
}

// contextWindow is the suffix of a Claude Code model name that says its
// context window: [1m], [200k].
var contextWindow = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[[0-9]{1,4}[km]\]$`) })
