package matching

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"strings"
	"unicode/utf8"
)

// Multipart bodies are compared part by part: every client writes a new
// random boundary (Go's mime/multipart, Python's requests, curl -F), so
// the raw bytes of the same upload never repeat, and replay missed every
// one. A multipart body is brought to a form without its boundary — each
// part's name, filename, content type and content, in order — and that is
// what is keyed, compared and shown in a miss (as JSON, indented).

// part is one part of a multipart body as matching compares it.
type part struct {
	Name          string `json:"name,omitempty"`
	Filename      string `json:"filename,omitempty"`
	ContentType   string `json:"content_type,omitempty"`
	Content       string `json:"content,omitempty"`
	ContentBase64 string `json:"content_base64,omitempty"` // content that is not UTF-8
}

// maxMultipartParts bounds the parts read: past it the body is compared
// as it is.
const maxMultipartParts = 1000

// multipartForm returns the boundary-free form of a multipart body
// (multipart/form-data, /mixed, /related …, as contentType says), and its
// boundary; ok is false when the body is not multipart or does not parse
// to its end (then it is compared as it is).
func multipartForm(contentType string, body []byte) (form []byte, boundary string, ok bool) {
	if !strings.HasPrefix(strings.ToLower(strings.TrimSpace(contentType)), "multipart/") {
		return nil, "", false
	}
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil || params["boundary"] == "" {
		return nil, "", false
	}
	boundary = params["boundary"]
	mr := multipart.NewReader(bytes.NewReader(body), boundary)
	parts := []part{}
	for len(parts) <= maxMultipartParts {
		p, err := mr.NextRawPart()
		if errors.Is(err, io.EOF) {
			out, err := json.Marshal(struct {
				Type  string `json:"multipart"`
				Parts []part `json:"parts"`
			}{mt, parts})
			return out, boundary, err == nil
		}
		if err != nil {
			return nil, "", false
		}
		content, err := io.ReadAll(p)
		if err != nil {
			return nil, "", false
		}
		pt := part{Name: p.FormName(), Filename: p.FileName(), ContentType: p.Header.Get("Content-Type")}
		if utf8.Valid(content) {
			pt.Content = string(content)
		} else {
			pt.ContentBase64 = base64.StdEncoding.EncodeToString(content)
		}
		parts = append(parts, pt)
	}
	return nil, "", false
}

// onlyBoundaryDiffers reports whether two raw bodies are the same but for
// their boundaries (one that did not parse as multipart on a side, or
// whose Content-Type was lost).
func onlyBoundaryDiffers(rec, got []byte, recBoundary, gotBoundary string) bool {
	if recBoundary == "" || gotBoundary == "" || recBoundary == gotBoundary {
		return false
	}
	return bytes.Equal(bytes.ReplaceAll(rec, []byte(recBoundary), nil), bytes.ReplaceAll(got, []byte(gotBoundary), nil))
}

// boundaryOf is the boundary a Content-Type names, or "".
func boundaryOf(contentType string) string {
	_, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return ""
	}
	return params["boundary"]
}
