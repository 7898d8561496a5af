// Package har converts between HTTP cassettes and the files other tools
// exchange: HAR 1.2 archives (browsers' dev tools, mitmproxy, Charles,
// Fiddler, Hoverfly, WireMock), in and out, and go-vcr cassette trees, in.
//
// Decisions:
//
//   - A HAR holds decoded bodies (content.text, after any Content-Encoding
//     was undone; binary as base64 with content.encoding). Import stores
//     those bytes and drops the Content-Encoding header, fixing
//     Content-Length, so that replay serves what the headers announce.
//   - HTTP/2 pseudo-headers (":authority", ":path"…) that Chromium lists
//     among the headers are left out: they are not headers on the wire of
//     an HTTP/1.1 replay, and Go refuses them.
//   - Import groups entries into one cassette per page (entries with a
//     pageref) or per host; names are in cassette's strict form.
//   - Export writes one page per cassette (title: adapter/scenario, and
//     the scenario in the custom field `_scenario`, which import takes back
//     as it is: a round trip keeps the name) and marks a request body that is not UTF-8 text with the custom field
//     `_encoding: base64` (postData has no encoding field in HAR 1.2), which
//     import reads back: the round trip keeps every byte.
//   - A go-vcr tree keeps its names: the scenario is the file's path below
//     the tree, case kept (go-vcr names files after tests and subtests).
//   - Conversions only: nothing here reads credentials or writes a file.
//     The import pipeline (package importer) places, redacts, checks and
//     saves what these functions return.
package har

import (
	"encoding/json"
	"fmt"
	"io"
)

// Version is the HAR format version written and read.
const Version = "1.2"

// Archive is a HAR file: {"log": {...}}.
type Archive struct {
	Log Log `json:"log"`
}

// Log is the root of a HAR.
type Log struct {
	Version string   `json:"version"`
	Creator Creator  `json:"creator"`
	Browser *Creator `json:"browser,omitempty"`
	Pages   []Page   `json:"pages,omitempty"`
	Entries []Entry  `json:"entries"`
	Comment string   `json:"comment,omitempty"`
}

// Creator names the application that wrote the HAR.
type Creator struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Comment string `json:"comment,omitempty"`
}

// Page is one page load; entries refer to it by ID.
type Page struct {
	StartedDateTime string      `json:"startedDateTime"`
	ID              string      `json:"id"`
	Title           string      `json:"title"`
	PageTimings     PageTimings `json:"pageTimings"`
	// Scenario is the custom field `_scenario`: the scenario of the
	// cassette export wrote this page from, which import takes back as it
	// is (the title, adapter/scenario, is for people).
	Scenario string `json:"_scenario,omitempty"`
}

// PageTimings are a page's load times in milliseconds (-1: unknown).
type PageTimings struct {
	OnContentLoad float64 `json:"onContentLoad"`
	OnLoad        float64 `json:"onLoad"`
}

// Entry is one request and its response.
type Entry struct {
	Pageref         string   `json:"pageref,omitempty"`
	StartedDateTime string   `json:"startedDateTime"`
	Time            float64  `json:"time"`
	Request         Request  `json:"request"`
	Response        Response `json:"response"`
	Cache           struct{} `json:"cache"`
	Timings         Timings  `json:"timings"`
	ServerIPAddress string   `json:"serverIPAddress,omitempty"`
	Connection      string   `json:"connection,omitempty"`
	// WebSocketMessages are a WebSocket session's messages, as Chromium
	// writes them on the upgrade's entry (websocket.go).
	WebSocketMessages []WebSocketMessage `json:"_webSocketMessages,omitempty"`
}

// Request is a HAR request.
type Request struct {
	Method      string    `json:"method"`
	URL         string    `json:"url"`
	HTTPVersion string    `json:"httpVersion"`
	Cookies     []Cookie  `json:"cookies"`
	Headers     []NV      `json:"headers"`
	QueryString []NV      `json:"queryString"`
	PostData    *PostData `json:"postData,omitempty"`
	HeadersSize int       `json:"headersSize"`
	BodySize    int       `json:"bodySize"`
}

// Response is a HAR response.
type Response struct {
	Status      int      `json:"status"`
	StatusText  string   `json:"statusText"`
	HTTPVersion string   `json:"httpVersion"`
	Cookies     []Cookie `json:"cookies"`
	Headers     []NV     `json:"headers"`
	Content     Content  `json:"content"`
	RedirectURL string   `json:"redirectURL"`
	HeadersSize int      `json:"headersSize"`
	BodySize    int      `json:"bodySize"`
}

// NV is a name/value pair (headers, query parameters).
type NV struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Cookie is a HAR cookie (kept for the schema; import reads the headers).
type Cookie struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// PostData is a request body.
type PostData struct {
	MimeType string  `json:"mimeType"`
	Params   []Param `json:"params"`
	Text     string  `json:"text"`
	// Encoding is the custom field `_encoding` ("base64" for bytes that are
	// not UTF-8 text), written by export and read by import.
	Encoding string `json:"_encoding,omitempty"`
}

// Param is a posted form parameter.
type Param struct {
	Name  string `json:"name"`
	Value string `json:"value,omitempty"`
}

// Content is a response body.
type Content struct {
	Size     int    `json:"size"`
	MimeType string `json:"mimeType"`
	Text     string `json:"text,omitempty"`
	Encoding string `json:"encoding,omitempty"`
}

// Timings are an entry's phases in milliseconds (-1: not applicable).
type Timings struct {
	Blocked float64 `json:"blocked"`
	DNS     float64 `json:"dns"`
	Connect float64 `json:"connect"`
	Send    float64 `json:"send"`
	Wait    float64 `json:"wait"`
	Receive float64 `json:"receive"`
	SSL     float64 `json:"ssl"`
}

// Read decodes a HAR and checks what import needs: a log with entries,
// each with a method, an absolute URL and a status.
func Read(r io.Reader) (*Archive, error) {
	var a Archive
	dec := json.NewDecoder(r)
	if err := dec.Decode(&a); err != nil {
		return nil, fmt.Errorf("not a HAR (JSON with a top-level \"log\"): %w", err)
	}
	if a.Log.Entries == nil {
		return nil, fmt.Errorf("log.entries is missing: not a HAR")
	}
	for i, e := range a.Log.Entries {
		switch {
		case e.Request.Method == "":
			return nil, fmt.Errorf("log.entries[%d].request.method is missing", i)
		case e.Request.URL == "":
			return nil, fmt.Errorf("log.entries[%d].request.url is missing", i)
		}
	}
	return &a, nil
}
