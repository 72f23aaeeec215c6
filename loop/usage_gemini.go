package loop

import (
	"github.com/tidwall/gjson"
)

// geminiParser reads Gemini CLI's output: `-o json` prints one object
// (pretty-printed over many lines) with response and stats.models.MODEL.tokens
// (prompt, the cached ones included; cached; candidates; thoughts), and
// `-o stream-json` ends with a {"type":"result"} line whose
// stats.models.MODEL has input_tokens (cached included), cached and
// output_tokens. Tokens out are candidates and thoughts. The model is the
// one that used the most tokens (the CLI names each model it called, from
// the endpoint's answers); each model's tokens are priced at its own price.
// A failed turn: {"type":"result","status":"error","error":{...}} in
// stream-json, {"error":{"type","message"}} in json (on stderr in 0.61.0),
// its message often the API's own error as JSON.
var geminiParser = cliParser{
	Source:  SourceGemini,
	Harness: "gemini",
	Usage: func(vals []gjson.Result) *Usage {
		for i := len(vals) - 1; i >= 0; i-- {
			v := vals[i]
			models := v.Get("stats.models")
			if !models.IsObject() {
				continue
			}
			stream := v.Get("type").String() == "result"
			if !stream && v.Get("type").Exists() {
				continue
			}
			u := &Usage{}
			most := int64(-1)
			models.ForEach(func(k, m gjson.Result) bool {
				var t ModelTokens
				if stream {
					t = ModelTokens{Model: k.String(), Input: m.Get("input_tokens").Int(), Cached: m.Get("cached").Int(), Output: m.Get("output_tokens").Int()}
				} else {
					tk := m.Get("tokens")
					t = ModelTokens{Model: k.String(), Input: tk.Get("prompt").Int(), Cached: tk.Get("cached").Int(),
						Output: tk.Get("candidates").Int() + tk.Get("thoughts").Int()}
				}
				if t.Input == 0 && t.Output == 0 {
					return true // a model named and never answered (a failed turn)
				}
				u.ByModel = append(u.ByModel, t)
				u.InputTokens = AddTokens(u.InputTokens, t.Input)
				u.CachedTokens = AddTokens(u.CachedTokens, t.Cached)
				u.OutputTokens = AddTokens(u.OutputTokens, t.Output)
				if n := t.Input + t.Output; n > most {
					u.Model, most = t.Model, n
				}
				return true
			})
			if len(u.ByModel) == 0 {
				return nil
			}
			return u
		}
		return nil
	},
	Error: func(vals []gjson.Result) string {
		for i := len(vals) - 1; i >= 0; i-- {
			v := vals[i]
			e := v.Get("error")
			if !e.IsObject() || (v.Get("type").Exists() && v.Get("type").String() != "result") {
				continue
			}
			return innerMessage(e.Get("message").String())
		}
		return ""
	},
}
