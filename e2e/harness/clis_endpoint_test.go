package harness

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// Scripted endpoints for Codex (the OpenAI Responses API) and Gemini (the
// Gemini API) on 127.0.0.1, as shared/HARNESS.md describes them, each
// driving nextCheckStep. A broken one answers every request with the API's
// own refusal of a bad key, so that the CLI fails its turn at once.

// The tokens each scripted request reports, so that a turn's usage is
// known: Codex's input counts the cached ones, as OpenAI does.
const (
	codexIn, codexCached, codexOut    = 1000, 400, 50
	geminiIn, geminiCached, geminiOut = 900, 300, 40
)

// scripted is one scripted endpoint: its URL, whether it is broken, and
// what it was sent.
type scripted struct {
	URL    string
	cli    string
	broken bool
	serve  func(s *scripted, w http.ResponseWriter, r *http.Request, body []byte)

	mu    sync.Mutex
	turns []checkTurn // the conversation as each request carried it
	raw   [][]byte
}

func startScripted(t *testing.T, cli string, broken bool, serve func(*scripted, http.ResponseWriter, *http.Request, []byte)) *scripted {
	s := &scripted{cli: cli, broken: broken, serve: serve}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: s}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	s.URL = "http://" + ln.Addr().String()
	return s
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.serve(s, w, r, body)
}

func (s *scripted) record(t checkTurn, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.turns = append(s.turns, t)
	s.raw = append(s.raw, body)
}

// requests is how many requests carried a turn, and the largest one's bytes.
func (s *scripted) requests() (n, largest int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range s.raw {
		largest = max(largest, len(b))
	}
	return len(s.raw), largest
}

// last is the conversation of the last request: every call with its output.
func (s *scripted) last() checkTurn {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.turns) == 0 {
		return checkTurn{}
	}
	return s.turns[len(s.turns)-1]
}

func sse(w http.ResponseWriter, event string, v any) {
	b, _ := json.Marshal(v)
	if event != "" {
		fmt.Fprintf(w, "event: %s\n", event)
	}
	fmt.Fprintf(w, "data: %s\n\n", b)
}

// serveResponses is the Responses API (POST /v1/responses, streamed).
func serveResponses(s *scripted, w http.ResponseWriter, r *http.Request, body []byte) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[]}`)
		return
	}
	if s.broken {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":{"message":"Incorrect API key provided: sk-test.","type":"invalid_request_error","code":"invalid_api_key"}}`)
		return
	}
	var req struct {
		Input []struct {
			Type      string `json:"type"`
			Role      string `json:"role"`
			Name      string `json:"name"`
			CallID    string `json:"call_id"`
			Arguments string `json:"arguments"`
			Output    any    `json:"output"`
			Content   []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	t := checkTurn{}
	at := map[string]int{}
	for _, it := range req.Input {
		switch it.Type {
		case "message":
			for _, c := range it.Content {
				if it.Role == "user" && checkPrompt.MatchString(c.Text) {
					t.Prompt = c.Text
				}
			}
		case "function_call":
			var a struct {
				Cmd string `json:"cmd"`
			}
			json.Unmarshal([]byte(it.Arguments), &a)
			at[it.CallID] = len(t.Calls)
			t.Calls = append(t.Calls, checkCall{Tool: it.Name, Command: a.Cmd})
		case "function_call_output":
			if i, ok := at[it.CallID]; ok {
				t.Calls[i].Output = fmt.Sprint(it.Output)
			}
		}
	}
	s.record(t, body)
	step := nextCheckStep("codex", "exec_command", "", "", t)
	n := len(t.Calls)
	var item map[string]any
	if step.Tool != "" {
		args, _ := json.Marshal(map[string]string{"cmd": step.Command})
		item = map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%d", n), "call_id": fmt.Sprintf("call_%d", n),
			"name": step.Tool, "arguments": string(args)}
	} else {
		item = map[string]any{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": step.Text, "annotations": []any{}}}}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	id := fmt.Sprintf("resp_%d", n)
	sse(w, "response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": id}})
	sse(w, "response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	sse(w, "response.completed", map[string]any{"type": "response.completed", "response": map[string]any{"id": id,
		"usage": map[string]any{"input_tokens": codexIn, "input_tokens_details": map[string]int{"cached_tokens": codexCached},
			"output_tokens": codexOut, "output_tokens_details": map[string]int{"reasoning_tokens": 0}, "total_tokens": codexIn + codexOut}}})
}

// serveGemini is the Gemini API (POST
// /v1beta/models/MODEL:streamGenerateContent?alt=sse); the answer names
// the model the CLI asked for, as the real API's modelVersion does.
func serveGemini(s *scripted, w http.ResponseWriter, r *http.Request, body []byte) {
	if s.broken {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}`)
		return
	}
	path := r.URL.Path
	modelName := path[strings.LastIndex(path, "/")+1:]
	modelName, method, _ := strings.Cut(modelName, ":")
	if method != "streamGenerateContent" {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"totalTokens": 1}`)
		return
	}
	var req struct {
		Contents []struct {
			Role  string `json:"role"`
			Parts []struct {
				Text         string `json:"text"`
				FunctionCall *struct {
					Name string         `json:"name"`
					Args map[string]any `json:"args"`
				} `json:"functionCall"`
				FunctionResponse *struct {
					Response map[string]any `json:"response"`
				} `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	t := checkTurn{}
	answered := 0
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			switch {
			case p.FunctionCall != nil:
				cmd, _ := p.FunctionCall.Args["command"].(string)
				t.Calls = append(t.Calls, checkCall{Tool: p.FunctionCall.Name, Command: cmd})
			case p.FunctionResponse != nil && answered < len(t.Calls):
				k := &t.Calls[answered]
				answered++
				if e, ok := p.FunctionResponse.Response["error"]; ok {
					k.Output, k.Denied = fmt.Sprint(e), true
				} else {
					k.Output = fmt.Sprint(p.FunctionResponse.Response["output"])
				}
			case c.Role == "user" && checkPrompt.MatchString(p.Text):
				t.Prompt = p.Text
			}
		}
	}
	s.record(t, body)
	step := nextCheckStep("gemini", "run_shell_command", "", "", t)
	part := map[string]any{"text": step.Text}
	if step.Tool != "" {
		part = map[string]any{"functionCall": map[string]any{"name": step.Tool, "args": map[string]any{"command": step.Command, "description": "proofloop"}}}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	sse(w, "", map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]int{"promptTokenCount": geminiIn, "cachedContentTokenCount": geminiCached, "candidatesTokenCount": geminiOut, "totalTokenCount": geminiIn + geminiOut},
		"modelVersion":  modelName,
	})
}

// claudeCheck is the scripted check agent behind Claude Code's endpoint
// (endpoint_test.go): its Bash and Read calls, from the conversation.
func claudeCheck(outside string, into *scripted) func(*request) reply {
	return func(r *request) reply {
		c := read(r)
		t := checkTurn{Prompt: c.Prompt, Prime: c.Prime}
		for _, k := range c.Calls {
			cmd := k.command()
			if k.Tool == "Read" {
				cmd, _ = k.Input["file_path"].(string)
			}
			t.Calls = append(t.Calls, checkCall{Tool: k.Tool, Command: cmd, Output: k.Result, Denied: k.IsError})
		}
		raw, _ := json.Marshal(r)
		into.record(t, raw)
		step := nextCheckStep("claude", "Bash", "Read", outside, t)
		switch step.Tool {
		case "":
			return reply{Text: step.Text}
		case "Read":
			return reply{Tool: "Read", Input: map[string]any{"file_path": step.Command}}
		}
		return bash(step.Command)
	}
}

// brokenClaude answers every request to Claude Code's endpoint with the
// API's refusal of a key without permission (403: Claude Code 2.1.197
// retries a 401 until the turn times out).
func brokenClaude(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		io.WriteString(w, `{"type":"error","error":{"type":"permission_error","message":"Your API key does not have permission to use the specified resource."}}`)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}
