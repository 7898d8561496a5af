package matching

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/match"
)

// upload is a multipart/form-data body as Go's client writes it, with a
// new random boundary each time: a field, and a file with its own content
// type.
func upload(t *testing.T, user, file string) (string, []byte) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	w.WriteField("user", user)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="file"; filename="report.csv"`)
	h.Set("Content-Type", "text/csv")
	pw, err := w.CreatePart(h)
	if err != nil {
		t.Fatal(err)
	}
	pw.Write([]byte(file))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w.FormDataContentType(), b.Bytes()
}

// TestMultipartMatchesPartByPart: a multipart upload recorded with one
// boundary is served to the same upload with another (#35: every client
// writes a random boundary, and none replayed); a part that differs
// misses, and the miss shows the parts and says the boundary does not
// count; a body that does not parse, equal but for its boundary, says that
// only the boundary differs.
func TestMultipartMatchesPartByPart(t *testing.T) {
	ct, body := upload(t, "bob", "a,b\n1,2\n")
	rec := cassettes.Interaction{
		Request:  cassettes.Request{Method: "POST", URL: "https://api.example.com/upload", Headers: http.Header{"Content-Type": {ct}}, Body: cassettes.Body(body)},
		Response: cassettes.Response{Code: 201, Status: "201 Created", Headers: http.Header{}, Body: "{}"},
	}
	x := newIndex(t, []*cassettes.Cassette{{Path: "cassettes/api/upload.yaml", Adapter: "api", Scenario: "upload", Interactions: []cassettes.Interaction{rec}}}, match.Rules{})
	ct2, body2 := upload(t, "bob", "a,b\n1,2\n")
	if ct2 == ct || bytes.Equal(body, body2) {
		t.Fatal("the writer chose the same boundary twice")
	}
	if got, m := x.Lookup(Request{"POST", "https://api.example.com/upload", http.Header{"Content-Type": {ct2}}, body2}); got == nil {
		t.Fatalf("the same upload with another boundary missed: %s", m.Text())
	}
	ct3, body3 := upload(t, "bob", "a,b\n1,3\n")
	got, m := x.Lookup(Request{"POST", "https://api.example.com/upload", http.Header{"Content-Type": {ct3}}, body3})
	if got != nil {
		t.Fatal("an upload with another file content matched")
	}
	text := m.Text()
	if !strings.Contains(text, "compared part by part") || !strings.Contains(text, `1,3`) || strings.Contains(text, strings.TrimPrefix(ct3, "multipart/form-data; boundary=")) {
		t.Errorf("the miss does not show the parts without the boundary:\n%s", text)
	}

	// Cut short (no closing boundary): compared as it is, and the miss
	// says that only the boundary differs.
	cut := func(b []byte, boundary string) []byte { return bytes.TrimSuffix(b, []byte("--"+boundary+"--\r\n")) }
	b1, b2 := boundaryOf(ct), boundaryOf(ct2)
	rec.Request.Body = cassettes.Body(cut(body, b1))
	x = newIndex(t, []*cassettes.Cassette{{Path: "cassettes/api/upload.yaml", Adapter: "api", Scenario: "upload", Interactions: []cassettes.Interaction{rec}}}, match.Rules{})
	_, m = x.Lookup(Request{"POST", "https://api.example.com/upload", http.Header{"Content-Type": {ct2}}, cut(body2, b2)})
	if m == nil || !strings.Contains(m.Text(), "only the multipart boundary differs") {
		t.Errorf("a cut-short body equal but for its boundary: %v", m)
	}
}
