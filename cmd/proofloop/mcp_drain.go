//go:build !lean

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// drain stands between the client's stream and the SDK, line by line.
//
// It keeps the session alive through bad input: the SDK ends a session at
// the first line it cannot decode, or one over its size limit, dropping
// the requests it had read (initialize included). drain answers such a
// line itself with a JSON-RPC error (-32700 for a line that is not JSON
// or is too long, -32600 for JSON that is not one JSON-RPC message or
// has a key given twice in one object) and
// passes only good lines on.
//
// It also holds back the end of the client's input until every request
// read has its response written. A client may write its requests and
// close its end at once (printf ... | proofloop mcp); the SDK ends the
// session at EOF and would drop the replies still being computed.
type drain struct {
	w       io.Writer
	limit   int // bytes of one line, newline excluded
	wmu     sync.Mutex
	mu      sync.Mutex
	cond    *sync.Cond
	pending map[string]bool // ids of requests without a response yet
	partial []byte          // the written bytes after the last newline
}

func newDrain(w io.Writer, limit int) *drain {
	d := &drain{w: w, limit: limit, pending: map[string]bool{}}
	d.cond = sync.NewCond(&d.mu)
	return d
}

// messageID reads the id of a JSON-RPC message: a request has an id and a
// method, a response an id and no method.
func messageID(line []byte) (id string, request bool) {
	var msg struct {
		ID     any    `json:"id"`
		Method string `json:"method"`
	}
	if json.Unmarshal(line, &msg) != nil || msg.ID == nil {
		return "", false
	}
	b, _ := json.Marshal(msg.ID)
	return string(b), msg.Method != ""
}

// leadingID finds the id of a message that cannot be decoded (cut short,
// or too long to read whole), so that its error reply reaches the caller
// that waits for it: the first "id" member with a number or string value.
// It is a best effort; without it the reply's id is null, as JSON-RPC
// says for an id that cannot be detected.
var leadingID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"id"\s*:\s*(-?[0-9]+|"(?:[^"\\]|\\.)*")`) })

// reader copies r line by line to the SDK; at r's end it waits for the
// pending responses (or ctx), then ends the SDK's input.
func (d *drain) reader(ctx context.Context, r io.Reader) io.ReadCloser {
	pr, pw := io.Pipe()
	stop := context.AfterFunc(ctx, func() { d.mu.Lock(); d.cond.Broadcast(); d.mu.Unlock() })
	go func() {
		defer stop()
		br := bufio.NewReaderSize(r, 64<<10)
		for {
			line, tooLong, err := readLine(br, d.limit)
			if len(bytes.TrimSpace(line)) > 0 || tooLong {
				if good := d.check(line, tooLong); good {
					if id, req := messageID(line); req {
						d.mu.Lock()
						d.pending[id] = true
						d.mu.Unlock()
					}
					if _, werr := pw.Write(append(bytes.TrimRight(line, "\r\n"), '\n')); werr != nil {
						return
					}
				}
			}
			if err != nil {
				d.mu.Lock()
				for len(d.pending) > 0 && ctx.Err() == nil {
					d.cond.Wait()
				}
				d.mu.Unlock()
				pw.Close()
				return
			}
		}
	}()
	return pr
}

// readLine reads one line of at most limit bytes. A longer line is read
// to its end and dropped: it returns its first 4 KiB (to find the id) and
// tooLong.
func readLine(br *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		n := len(bytes.TrimRight(chunk, "\r\n"))
		switch {
		case tooLong:
		case len(line)+n > limit:
			tooLong = true
			line = append(line, chunk[:min(len(chunk), max(0, 4<<10-len(line)))]...)
		default:
			line = append(line, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return line, tooLong, err
	}
}

// check reports whether line is one JSON-RPC message for the SDK; if it
// is not, it answers it with the JSON-RPC error.
func (d *drain) check(line []byte, tooLong bool) bool {
	code, msg := 0, ""
	switch {
	case tooLong:
		code, msg = -32700, fmt.Sprintf("Parse error: the message is longer than %d bytes; it was not read", d.limit)
	case !json.Valid(line):
		code, msg = -32700, "Parse error: the line is not JSON"
	case bytes.HasPrefix(bytes.TrimSpace(line), []byte("[")):
		code, msg = -32600, "Invalid Request: batches are not supported; send one message per line"
	default:
		if err := duplicateKey(line); err != nil {
			code, msg = -32600, "Invalid Request: "+err.Error()+"; give each key once"
		} else if _, err := jsonrpc.DecodeMessage(line); err != nil {
			code, msg = -32600, "Invalid Request: "+err.Error()
		}
	}
	if code == 0 {
		return true
	}
	id := json.RawMessage("null")
	if m := leadingID().FindSubmatch(line); m != nil && json.Valid(m[1]) {
		id = m[1]
	}
	reply, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	d.write(append(reply, '\n'))
	return false
}

// duplicateKey refuses a key given twice in one object anywhere in line,
// the envelope included: the SDK's decoder keeps the last one, so
// `"name":"status","name":"new_problem"` ran new_problem, and two
// "arguments" acted as the second. Bytes that are not UTF-8 pass here: the
// tool refuses them with their byte offset, as the CLI does (exit 2).
func duplicateKey(line []byte) error {
	_, err := jsontext.NewDecoder(bytes.NewReader(line), jsontext.AllowInvalidUTF8(true)).ReadValue()
	if err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "jsontext: "))
	}
	return nil
}

func (d *drain) write(p []byte) (int, error) {
	d.wmu.Lock()
	defer d.wmu.Unlock()
	return d.w.Write(p)
}

// writer passes the SDK's output to w and marks the responses it carries.
func (d *drain) writer() io.WriteCloser { return drainWriter{d} }

type drainWriter struct{ d *drain }

func (dw drainWriter) Write(p []byte) (int, error) {
	d := dw.d
	n, err := d.write(p)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.partial = append(d.partial, p[:n]...)
	for {
		i := bytes.IndexByte(d.partial, '\n')
		if i < 0 {
			break
		}
		if id, req := messageID(d.partial[:i]); id != "" && !req {
			delete(d.pending, id)
			d.cond.Broadcast()
		}
		d.partial = d.partial[i+1:]
	}
	return n, err
}

func (drainWriter) Close() error { return nil }
