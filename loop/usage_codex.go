package loop

import (
	"github.com/tidwall/gjson"
)

// codexParser reads the JSON Lines of `codex exec --json`: the last
// {"type":"turn.completed","usage":{...}} sums the turn's requests, with
// input_tokens counting the cached ones (as OpenAI does), cached_input_tokens
// and output_tokens (reasoning included). Codex reports no cost and names
// no model: the model is the agent's (its -m/--model or config.json's),
// and the cost comes from config.json's prices. A failed turn ends with
// {"type":"turn.failed","error":{"message":...}} on stdout, exit 1; an
// {"type":"item.completed","item":{"type":"error"}} is a warning (an
// unknown model's metadata), not the turn's error.
var codexParser = cliParser{
	Source:  SourceCodex,
	Harness: "codex",
	Usage: func(vals []gjson.Result) *Usage {
		for i := len(vals) - 1; i >= 0; i-- {
			v := vals[i]
			if v.Get("type").String() != "turn.completed" || !v.Get("usage").IsObject() {
				continue
			}
			u := v.Get("usage")
			return &Usage{InputTokens: u.Get("input_tokens").Int(), CachedTokens: u.Get("cached_input_tokens").Int(),
				OutputTokens: u.Get("output_tokens").Int()}
		}
		return nil
	},
	Error: func(vals []gjson.Result) string {
		msg := ""
		for _, v := range vals {
			switch v.Get("type").String() {
			case "turn.failed":
				if m := v.Get("error.message").String(); m != "" {
					msg = m
				}
			case "error":
				if m := v.Get("message").String(); m != "" && msg == "" {
					msg = m
				}
			}
		}
		return innerMessage(msg)
	},
}
