package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// decodeTagsTokens is the decoder decodeTags replaced (issue 28), kept as
// the fuzz targets' reference: encoding/json's Decoder, token by token.
// It streams {"name": ..., "tags": [...]} from r, calling add for
// each tag, without holding the page: a page is only as large as the tags
// it adds. Members other than "tags" (any case, as encoding/json matches
// it) are skipped token by token; "tags": null is no tags, a null tag "".
func decodeTagsTokens(r io.Reader, add func(string) error) error {
	dec := json.NewDecoder(r)
	bad := func(err error) error {
		if errors.Is(err, errBudget) {
			return err
		}
		var over *ListLimit
		if errors.As(err, &over) {
			return err
		}
		return fmt.Errorf("decoding tag list: %w", err)
	}
	if err := wantDelimRef(dec, '{'); err != nil {
		return bad(err)
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return bad(err)
		}
		if k, _ := key.(string); !strings.EqualFold(k, "tags") { // as json.Unmarshal matches it
			if err := skipValueRef(dec); err != nil {
				return bad(err)
			}
			continue
		}
		tok, err := dec.Token()
		if err != nil {
			return bad(err)
		}
		if tok == nil {
			continue
		}
		if tok != json.Delim('[') {
			return bad(fmt.Errorf("tags is %v, want an array", tok))
		}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return bad(err)
			}
			tag, ok := tok.(string)
			if !ok && tok != nil { // null is "", as json.Unmarshal (and Image Updater) read it
				return bad(fmt.Errorf("a tag is %v, want a string", tok))
			}
			if err := add(tag); err != nil {
				return bad(err)
			}
		}
		if err := wantDelimRef(dec, ']'); err != nil {
			return bad(err)
		}
	}
	if err := wantDelimRef(dec, '}'); err != nil {
		return bad(err)
	}
	return nil
}

// wantDelim reads the next token, which must be d.
func wantDelimRef(dec *json.Decoder, d json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok != d {
		return fmt.Errorf("got %v, want %v", tok, d)
	}
	return nil
}

// skipValue reads one value, token by token, keeping none of it.
func skipValueRef(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}
