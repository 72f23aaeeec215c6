package loop

import (
	"fmt"
	"math"

	"github.com/proofloop/proofloop/store"
)

// Usage is what one turn of an agent cost, as the agent reported it: a
// known CLI's JSON output (its Source names the shape: claude-json,
// codex-json, gemini-json) or one JSON object written to $PROOFLOOP_USAGE,
// which wins when both are there.
type Usage struct {
	InputTokens  int64   `json:"input_tokens"` // cached ones included, as OpenAI counts
	OutputTokens int64   `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
	Source       string  `json:"source"` // "claude-json", "codex-json", "gemini-json" or "PROOFLOOP_USAGE"

	// CachedTokens are the part of InputTokens read from the model's cache.
	CachedTokens int64 `json:"cached_input_tokens,omitempty"`
	// Model is the model the output names ("" when it names none).
	Model string `json:"model,omitempty"`
	// CostFrom says where CostUSD comes from: "agent" (the output or the
	// file reported it), "prices" (config.json's prices and the tokens),
	// or "none" (no cost reported and no price for the model: 0).
	CostFrom string `json:"cost_from,omitempty"`
	// Reported says whether the agent reported a cost of its own.
	Reported bool `json:"-"`
	// ByModel is each model's tokens, when the output splits them, for
	// the price table.
	ByModel []ModelTokens `json:"-"`
}

// ModelTokens are one model's tokens in a turn.
type ModelTokens struct {
	Model                 string
	Input, Cached, Output int64
}

// The usage sources.
const (
	SourceClaude = "claude-json"
	SourceCodex  = "codex-json"
	SourceGemini = "gemini-json"
	SourceFile   = "PROOFLOOP_USAGE"
)

// The largest usage one turn may report. An agent that reports more
// (a cost of 1.7e308, tokens near the int64 limit) has its usage refused
// and said, never counted: such values made the sums +Inf or wrap, and
// `status --cost --json` failed for good. A turn of ten billion tokens or
// ten thousand dollars is no real turn at today's prices (a million tokens
// of the dearest model cost well under a hundred dollars).
const (
	MaxTurnTokens  int64   = 10_000_000_000
	MaxTurnCostUSD float64 = 10_000
)

// check refuses a usage whose figures are negative, not finite or absurd.
func (u *Usage) check() error {
	for _, f := range []struct {
		name string
		v    int64
	}{{"input_tokens", u.InputTokens}, {"output_tokens", u.OutputTokens}, {"cached_input_tokens", u.CachedTokens}} {
		if f.v < 0 || f.v > MaxTurnTokens {
			return fmt.Errorf("%s %d is out of range: a turn reports 0 to %d", f.name, f.v, MaxTurnTokens)
		}
	}
	if u.CachedTokens > u.InputTokens {
		return fmt.Errorf("cached_input_tokens %d exceed input_tokens %d, which include them", u.CachedTokens, u.InputTokens)
	}
	if math.IsNaN(u.CostUSD) || math.IsInf(u.CostUSD, 0) || u.CostUSD < 0 || u.CostUSD > MaxTurnCostUSD {
		return fmt.Errorf("cost_usd %v is out of range: a turn reports $0 to $%v", u.CostUSD, MaxTurnCostUSD)
	}
	return nil
}

// price fills in the cost of a usage that reports none from config.json's
// prices: each model's tokens at its prices when the output splits them,
// else all of them at the model's. It says why when a model has no price.
func (u *Usage) price(prices map[string]store.Price) string {
	if u.Reported {
		u.CostFrom = "agent"
		return ""
	}
	parts := u.ByModel
	if len(parts) == 0 {
		parts = []ModelTokens{{Model: u.Model, Input: u.InputTokens, Cached: u.CachedTokens, Output: u.OutputTokens}}
	}
	cost := 0.0
	for _, p := range parts {
		pr, ok := prices[p.Model]
		if !ok {
			u.CostUSD, u.CostFrom = 0, "none"
			if p.Model == "" {
				return "the agent's output names no model and its command gives none (-m/--model, or the agent's model in config.json): its tokens are counted at no cost"
			}
			return fmt.Sprintf("config.json's prices have no %q: its tokens are counted at no cost (a person adds it: `proofloop config set prices '{\"%s\": {\"input\": USD, \"output\": USD}, ...}'`, per million tokens, with the models priced already)", p.Model, p.Model)
		}
		cached := pr.Input
		if pr.CachedInput != nil {
			cached = *pr.CachedInput
		}
		cost += (float64(p.Input-p.Cached)*pr.Input + float64(p.Cached)*cached + float64(p.Output)*pr.Output) / 1e6
	}
	u.CostUSD, u.CostFrom = cost, "prices"
	return ""
}

// AddTokens adds token counts without wrapping: a sum stops at the
// largest int64, and a negative count (from a log written before the
// limits) adds nothing.
func AddTokens(a, b int64) int64 {
	if b <= 0 {
		return a
	}
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// AddCost adds costs and stays finite: a sum stops at the largest float64,
// and a cost that is not a finite non-negative number adds nothing.
func AddCost(a, b float64) float64 {
	if math.IsNaN(b) || b <= 0 {
		return a
	}
	if s := a + b; !math.IsInf(s, 0) {
		return s
	}
	return math.MaxFloat64
}
