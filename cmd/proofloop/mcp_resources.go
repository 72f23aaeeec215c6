//go:build !lean

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/model"
)

// The prompts and resources of the MCP server. Each reads through the CLI
// too: a prompt is `prime --role R`, a resource the --json of `skills`,
// `transitions` or `show`.

const uriScheme = "proofloop://"

// mcpPromptNote reads prime's text, written for a shell, in tools.
const mcpPromptNote = "Over MCP, each `proofloop CMD` below is the tool CMD in snake_case, its flags and id the " +
	"arguments (`proofloop next --role check --claim` is the tool next with {\"role\":\"check\",\"claim\":true}); " +
	"pass the lease as the argument lease. Every text argument is literal: @FILE reads nothing.\n\n"

// addPrompts adds one prompt per role (the server's role alone, with --role): the text `prime --role R` prints.
func (m *mcpServer) addPrompts() {
	roles := []model.Role{model.RoleSolve, model.RoleProve, model.RoleCheck, model.RoleFix, model.RoleDecide}
	if m.role != "" {
		roles = []model.Role{m.role} // a role's server: its own prompt
	}
	for _, r := range roles {
		m.srv.AddPrompt(&mcp.Prompt{
			Name:        string(r),
			Title:       "proofloop: the " + string(r) + " role",
			Description: "An orientation for an agent working in the " + string(r) + " role: the project's state, the items waiting for the role, its skills and tools.",
		}, func(ctx context.Context, _ *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			code, out, errOut, _ := m.cli(ctx, false, []string{"prime", "--role", string(r)}, nil)
			if code != 0 {
				return nil, fmt.Errorf("%s", strings.TrimSpace(string(errOut)))
			}
			return &mcp.GetPromptResult{
				Description: "Orientation for the " + string(r) + " role",
				Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: mcpPromptNote + string(out)}}},
			}, nil
		})
	}
}

// addResources adds the catalog, the transition table, a template for each
// kind of document, and the documents the store holds now. resources/list
// adds the ones created since (listResources).
func (m *mcpServer) addResources() {
	for _, r := range []struct{ name, desc string }{
		{"skills", "The skill catalog: roles, purpose, parameters, statuses acted on and left, refusals (proofloop skills --json)."},
		{"transitions", "The transition table: what each skill acts on, leaves and needs (proofloop transitions --json)."},
	} {
		uri := uriScheme + r.name
		m.srv.AddResource(&mcp.Resource{URI: uri, Name: r.name, Description: r.desc, MIMEType: "application/json"},
			func(ctx context.Context, _ *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				code, out, errOut, _ := m.cli(ctx, false, []string{r.name, "--json"}, nil)
				if code != 0 {
					return nil, fmt.Errorf("%s", strings.TrimSpace(string(errOut)))
				}
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(out)}}}, nil
			})
	}
	for _, k := range []model.Kind{model.KindProblem, model.KindStatement} {
		m.srv.AddResourceTemplate(&mcp.ResourceTemplate{
			URITemplate: uriScheme + string(k) + "/{id}",
			Name:        string(k),
			Description: "A " + string(k) + " document, as stored (proofloop show ID --json).",
			MIMEType:    "application/json",
		}, m.readDocument)
	}
	m.syncResources()
	m.srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "resources/list" {
				m.syncResources()
			}
			return next(ctx, method, req)
		}
	})
}

// documentURI is the resource URI of a document id.
func documentURI(id string) string {
	kind := model.KindStatement
	if strings.HasPrefix(id, "prob_") {
		kind = model.KindProblem
	}
	return uriScheme + string(kind) + "/" + id
}

// syncResources adds a resource for every document the index lists that
// is not one yet. Documents are never deleted, so none is removed.
func (m *mcpServer) syncResources() {
	code, out, _, _ := m.cli(context.Background(), false, []string{"list", "--json"}, nil)
	if code != 0 {
		return // resources/read reports a damaged store; the list stays as it was
	}
	var res struct {
		Items []struct {
			ID     string
			Kind   model.Kind
			Status model.Status
		}
	}
	if json.Unmarshal(out, &res) != nil {
		return
	}
	m.resMu.Lock()
	defer m.resMu.Unlock()
	for _, it := range res.Items {
		uri := documentURI(it.ID)
		if m.listed[uri] {
			continue
		}
		m.listed[uri] = true
		m.srv.AddResource(&mcp.Resource{URI: uri, Name: it.ID, Description: "The " + string(it.Kind) + " " + it.ID + ".", MIMEType: "application/json"}, m.readDocument)
	}
}

// readDocument reads proofloop://<kind>/<id> through `show ID --json`.
func (m *mcpServer) readDocument(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	_, id, ok := strings.Cut(strings.TrimPrefix(uri, uriScheme), "/")
	if !ok || id == "" || strings.Contains(id, "/") || documentURI(id) != uri {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	code, out, errOut, _ := m.cli(ctx, false, []string{"show", "--json", "--", id}, nil)
	var res struct {
		Error    struct{ Code string }
		Document json.RawMessage
	}
	json.Unmarshal(out, &res)
	switch {
	case code != 0 && (res.Error.Code == "not_found" || res.Error.Code == "invalid_input"):
		return nil, mcp.ResourceNotFoundError(uri)
	case code != 0:
		return nil, fmt.Errorf("%s", strings.TrimSpace(string(errOut)))
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(res.Document)}}}, nil
}

// follow sends resources/updated for each document a new event names,
// using the inotify follower of `events --follow`. It reports on ready
// once it has opened the store and found where the log ends.
func (m *mcpServer) follow(ctx context.Context, ready chan<- error) {
	// The store the calls change: the PostgreSQL one the server was
	// started on (a pool of its own, since its LISTEN holds a connection
	// for the server's life), else the files under its root.
	s, err := (&app{root: m.root, storeURL: m.storeURL}).open()
	if err != nil {
		ready <- err
		return
	}
	defer s.Close()
	last := 0
	if err := loop.Events(ctx, s, 0, false, func(seq int, _ []byte) error { last = seq; return nil }); err != nil {
		ready <- err
		return
	}
	ready <- nil
	loop.Events(ctx, s, last, true, func(_ int, line []byte) error {
		var ev struct{ IDs []string }
		if json.Unmarshal(line, &ev) != nil {
			return nil
		}
		m.syncResources()
		for _, id := range ev.IDs {
			m.srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: documentURI(id)})
		}
		return nil
	})
}
