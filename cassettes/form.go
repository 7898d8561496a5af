package cassettes

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"slices"
)

// ParsedForm is the request's form as go-vcr records it (and its default
// matcher compares it): the URL's query and a urlencoded body, parsed; nil
// when both are empty or do not parse. Computed from the request as it
// stands, so that a redacted request gives a form holding nothing its URL
// and body do not.
func (q *Request) ParsedForm() url.Values {
	u, err := url.Parse(q.URL)
	if err != nil {
		return nil
	}
	r := &http.Request{Method: q.Method, URL: u, Header: q.Headers, Body: io.NopCloser(bytes.NewReader([]byte(q.Body))), ContentLength: int64(len(q.Body))}
	if err := r.ParseForm(); err != nil || len(r.Form) == 0 {
		return nil
	}
	return r.Form
}

// Clone is a copy of the request whose maps and slices (headers, trailer,
// form, transfer encodings) are its own: a door redacts or prepares the
// copy and leaves the recorded request as it was.
func (q Request) Clone() Request {
	q.Headers, q.Trailer = q.Headers.Clone(), q.Trailer.Clone()
	q.TransferEncoding = slices.Clone(q.TransferEncoding)
	if q.Form != nil {
		form := make(url.Values, len(q.Form))
		for k, vs := range q.Form {
			form[k] = slices.Clone(vs)
		}
		q.Form = form
	}
	return q
}
