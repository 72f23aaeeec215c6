package harness

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// request is the part of an Anthropic Messages API request that the
// scripted model reads.
type request struct {
	Model    string          `json:"model"`
	System   json.RawMessage `json:"system"`
	Messages []message       `json:"messages"`
	Tools    []struct {
		Name string `json:"name"`
	} `json:"tools"`
	Stream bool `json:"stream"`
}

// message is one turn of the conversation; content is a string or a list
// of blocks.
type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// block is one content block: text, tool_use or tool_result.
type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
}

// blocks returns a message's content as blocks (a string is one text block).
func (m message) blocks() []block {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return []block{{Type: "text", Text: s}}
	}
	var bs []block
	json.Unmarshal(m.Content, &bs)
	return bs
}

// text is the text of a content value: a string, or the texts of its blocks.
func text(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var bs []block
	json.Unmarshal(raw, &bs)
	var b strings.Builder
	for _, x := range bs {
		if x.Type == "text" {
			b.WriteString(x.Text)
			b.WriteString("\n")
		}
	}
	return b.String()
}

// systemText is the request's system prompt as one string.
func (r *request) systemText() string { return text(r.System) }

// hasTool reports whether the request offers the tool name.
func (r *request) hasTool(name string) bool {
	for _, t := range r.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// reply is the scripted model's answer: some text, or one tool call.
type reply struct {
	Text  string
	Tool  string         // a tool name, when the answer is a tool call
	Input map[string]any // the tool's input
}

// endpoint is a scripted model behind the Anthropic Messages API on
// 127.0.0.1. It records every request it was sent.
type endpoint struct {
	URL    string
	decide func(*request) reply

	mu       sync.Mutex
	requests []*request
	raw      [][]byte
	calls    atomic.Int64
}

// startEndpoint serves decide on a free port of 127.0.0.1 until the test ends.
func startEndpoint(t *testing.T, decide func(*request) reply) *endpoint {
	e := &endpoint{decide: decide}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: e}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	e.URL = "http://" + ln.Addr().String()
	return e
}

func (e *endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/v1/messages") {
		// count_tokens and any other probe: something harmless.
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"input_tokens": 1}`)
		return
	}
	req := &request{}
	if err := json.Unmarshal(body, req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	e.mu.Lock()
	e.requests = append(e.requests, req)
	e.raw = append(e.raw, body)
	e.mu.Unlock()
	var a reply
	if len(req.Tools) == 0 {
		a = reply{Text: "proofloop turn"} // titles, summaries and probes
	} else {
		a = e.decide(req)
	}
	if req.Stream {
		e.stream(w, a)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"id": "msg_x", "type": "message", "role": "assistant",
		"model": req.Model, "content": []any{map[string]any{"type": "text", "text": a.Text}},
		"stop_reason": "end_turn", "usage": map[string]int{"input_tokens": 1, "output_tokens": 1}})
}

// stream writes the answer as the server-sent events of a streamed
// Messages API response.
func (e *endpoint) stream(w http.ResponseWriter, a reply) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	n := e.calls.Add(1)
	send := func(typ string, v map[string]any) {
		v["type"] = typ
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, b)
	}
	send("message_start", map[string]any{"message": map[string]any{"id": fmt.Sprintf("msg_%d", n),
		"type": "message", "role": "assistant", "model": "scripted", "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]int{"input_tokens": 10, "output_tokens": 1}}})
	i := 0
	if a.Text != "" {
		send("content_block_start", map[string]any{"index": i, "content_block": map[string]any{"type": "text", "text": ""}})
		send("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "text_delta", "text": a.Text}})
		send("content_block_stop", map[string]any{"index": i})
		i++
	}
	stop := "end_turn"
	if a.Tool != "" {
		input, _ := json.Marshal(a.Input)
		send("content_block_start", map[string]any{"index": i, "content_block": map[string]any{"type": "tool_use",
			"id": fmt.Sprintf("toolu_%04d", n), "name": a.Tool, "input": map[string]any{}}})
		send("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
		send("content_block_stop", map[string]any{"index": i})
		stop = "tool_use"
	}
	send("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]int{"output_tokens": 5}})
	send("message_stop", map[string]any{})
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// all returns the requests recorded so far.
func (e *endpoint) all() []*request {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]*request(nil), e.requests...)
}

// sizes sums up the requests: how many, their bytes in all, and the
// largest first request of a session, which is what a turn costs before
// any tool call.
func (e *endpoint) sizes() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	total, first := 0, 0
	for i, r := range e.requests {
		total += len(e.raw[i])
		if c := read(r); c.ID != "" && len(c.Calls) == 0 {
			first = max(first, len(e.raw[i]))
		}
	}
	return fmt.Sprintf("%d model requests, %d KB in all; a session's first request up to %d KB", len(e.requests), total/1000, first/1000)
}
