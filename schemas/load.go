package schemas

import (
	"bytes"
	"encoding/json"

	"github.com/go-json-experiment/json/jsontext"
)

// decodeDoc decodes a document into the tree the validator walks (maps,
// slices, strings, bools, nil, json.Number) with jsontext's token reader
// instead of encoding/json's reflection, in about a third of the time. A
// document the token reader refuses (invalid UTF-8, a duplicate name)
// is decoded by encoding/json with UseNumber, as gojsonschema's own
// loader decodes it: a duplicate's last value wins and invalid UTF-8
// becomes U+FFFD, so the tree's strings are always valid UTF-8.
func decodeDoc(doc []byte) (any, error) {
	d := jsontext.NewDecoder(bytes.NewReader(doc))
	if v, err := decodeTree(d); err == nil {
		return v, nil
	}
	jd := json.NewDecoder(bytes.NewReader(doc))
	jd.UseNumber()
	var v any
	err := jd.Decode(&v)
	return v, err
}

func decodeTree(d *jsontext.Decoder) (any, error) {
	tok, err := d.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case '{':
		m := map[string]any{}
		for d.PeekKind() != '}' {
			k, err := d.ReadToken()
			if err != nil {
				return nil, err
			}
			name := k.String() // before the next read voids k
			v, err := decodeTree(d)
			if err != nil {
				return nil, err
			}
			m[name] = v
		}
		_, err := d.ReadToken()
		return m, err
	case '[':
		a := []any{}
		for d.PeekKind() != ']' {
			v, err := decodeTree(d)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := d.ReadToken()
		return a, err
	case '"':
		return tok.String(), nil
	case '0':
		return json.Number(tok.String()), nil
	case 't', 'f':
		return tok.Bool(), nil
	default:
		return nil, nil
	}
}
