package har

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
)

// Group says how import splits a HAR into cassettes.
type Group string

// The groupings.
const (
	ByPage Group = "page" // one cassette per page (entries without a page go by host)
	ByHost Group = "host" // one cassette per host
)

// Imported is one cassette made from a HAR, before it is redacted and saved.
type Imported struct {
	Cassette *cassettes.Cassette
	// From says which page or host it came from.
	From string
	// Missing are the bodies the HAR says its entries had but does not
	// hold (saved without content); Held counts the response bodies it
	// does hold.
	Missing []MissingBody
	Held    int
}

// MissingBody is a body a HAR entry had (its size says so) that the HAR
// does not hold: a HAR saved without content. Imported as it is, the
// interaction would replay an empty body.
type MissingBody struct {
	Entry       int    // index in log.entries
	Interaction int    // index in the cassette's interactions
	Field       string // "response.content.text" or "request.postData.text"
	Size        int    // the size the HAR gives
}

// bodies reports which of an entry's bodies are missing, and whether it
// holds its response's (1) or not (0).
func bodies(e Entry, entry, interaction int) (missing []MissingBody, held int) {
	switch c := e.Response.Content; {
	case c.Text != "":
		held++
	case c.Size > 0 && e.Response.Status != 304:
		missing = append(missing, MissingBody{entry, interaction, "response.content.text", c.Size})
	}
	if pd := e.Request.PostData; (pd == nil || pd.Text == "" && len(pd.Params) == 0) && e.Request.BodySize > 0 {
		missing = append(missing, MissingBody{entry, interaction, "request.postData.text", e.Request.BodySize})
	}
	return missing, held
}

// ImportOptions are the settings of ToCassettes.
type ImportOptions struct {
	Adapter string // adapter of every cassette
	Group   Group  // ByPage (default) or ByHost
	// Warn, when set, is told of each entry left out (a WebSocket upgrade
	// the HAR holds no messages of), naming it.
	Warn func(string)
}

// ToCassettes turns the entries of a HAR into cassettes (without paths),
// in the order their first entry appears. Entries without a response
// (status 0: blocked or aborted in the browser) are skipped and counted.
// Bodies the HAR does not hold are noted (Imported.Missing); what to make
// of them is the caller's.
func ToCassettes(a *Archive, opts ImportOptions) ([]Imported, int, error) {
	titles, scenarios := map[string]string{}, map[string]string{}
	for _, p := range a.Log.Pages {
		titles[p.ID] = cmpOr(p.Title, p.ID)
		scenarios[p.ID] = pageScenario(p, opts.Adapter)
	}
	byKey := map[string]*Imported{}
	used := map[string]bool{}
	var list []*Imported
	skipped := 0
	for i, e := range a.Log.Entries {
		if e.Response.Status == 0 {
			skipped++
			continue
		}
		if isUpgrade(e) && len(e.WebSocketMessages) == 0 {
			if opts.Warn != nil {
				opts.Warn(fmt.Sprintf("log.entries[%d] (GET %s) left out: a WebSocket upgrade whose messages the HAR does not hold (Chromium writes them as _webSocketMessages); record the session through `cassette proxy`", i, e.Request.URL))
			}
			continue
		}
		u, perr := url.Parse(e.Request.URL)
		if perr != nil || u.Host == "" {
			return nil, skipped, fmt.Errorf("log.entries[%d].request.url %q is not an absolute URL", i, e.Request.URL)
		}
		key, from, base := "host:"+u.Host, u.Host, cassettes.StrictName(u.Host)
		if opts.Group != ByHost && e.Pageref != "" {
			key, from, base = "page:"+e.Pageref, cmpOr(titles[e.Pageref], e.Pageref), scenarios[e.Pageref]
			if base == "" {
				base = cassettes.StrictName(from)
			}
		}
		im := byKey[key]
		if im == nil {
			if base == "" {
				base = "har"
			}
			name := base
			for n := 2; used[name]; n++ {
				name = fmt.Sprintf("%s-%d", base, n)
			}
			used[name] = true
			c := &cassettes.Cassette{Cassette: cassettes.SchemaVersion, Version: cassettes.GoVCRVersion,
				Adapter: opts.Adapter, Scenario: name, Kind: cfgschema.KindHTTP}
			if t, err := time.Parse(time.RFC3339Nano, e.StartedDateTime); err == nil {
				t = t.UTC().Truncate(time.Second)
				c.RecordedAt = &t
			}
			im = &Imported{Cassette: c, From: from}
			byKey[key] = im
			list = append(list, im)
		}
		it, cerr := interaction(e, i)
		if cerr != nil {
			return nil, skipped, cerr
		}
		it.ID = len(im.Cassette.Interactions)
		im.Cassette.Interactions = append(im.Cassette.Interactions, it)
		missing, held := bodies(e, i, it.ID)
		im.Missing, im.Held = append(im.Missing, missing...), im.Held+held
	}
	out := make([]Imported, len(list))
	for i, im := range list {
		out[i] = *im
	}
	return out, skipped, nil
}

// pageScenario is the scenario a page names itself: the `_scenario` an
// export wrote, as it is; or a title of the form ADAPTER/NAME (an export
// of an earlier version) without the adapter the HAR is imported as; ""
// when the page names none (its title is then made a name).
func pageScenario(p Page, adapter string) string {
	if p.Scenario != "" && cassettes.ValidName(p.Scenario) {
		return p.Scenario
	}
	if rest, ok := strings.CutPrefix(p.Title, adapter+"/"); ok && adapter != "" {
		return cassettes.StrictName(rest)
	}
	return ""
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func interaction(e Entry, i int) (cassettes.Interaction, error) {
	var it cassettes.Interaction
	q := &it.Request
	q.Method, q.URL = e.Request.Method, e.Request.URL
	q.Proto, q.ProtoMajor, q.ProtoMinor = proto(e.Request.HTTPVersion)
	q.Headers = headers(e.Request.Headers)
	if u, err := url.Parse(e.Request.URL); err == nil {
		q.Host = u.Host
	}
	if pd := e.Request.PostData; pd != nil {
		body := []byte(pd.Text)
		if pd.Encoding == "base64" {
			b, err := base64.StdEncoding.DecodeString(pd.Text)
			if err != nil {
				return it, fmt.Errorf("log.entries[%d].request.postData.text is not base64: %w", i, err)
			}
			body = b
		} else if pd.Text == "" && len(pd.Params) > 0 {
			v := url.Values{}
			for _, p := range pd.Params {
				v.Add(p.Name, p.Value)
			}
			body = []byte(v.Encode())
		}
		q.Body = cassettes.Body(body)
		q.ContentLength = int64(len(body))
	}
	p := &it.Response
	p.Code = e.Response.Status
	p.Status = strconv.Itoa(e.Response.Status) + " " + cmpOr(e.Response.StatusText, http.StatusText(e.Response.Status))
	p.Proto, p.ProtoMajor, p.ProtoMinor = proto(e.Response.HTTPVersion)
	p.Headers = headers(e.Response.Headers)
	body := []byte(e.Response.Content.Text)
	if e.Response.Content.Encoding == "base64" {
		b, err := base64.StdEncoding.DecodeString(e.Response.Content.Text)
		if err != nil {
			return it, fmt.Errorf("log.entries[%d].response.content.text is not base64: %w", i, err)
		}
		body = b
	}
	p.Body = cassettes.Body(body)
	// The HAR holds the decoded body: announce it as such.
	if p.Headers.Get("Content-Encoding") != "" {
		p.Headers.Del("Content-Encoding")
		p.Uncompressed = true
	}
	if p.Headers.Get("Content-Length") != "" {
		p.Headers.Set("Content-Length", strconv.Itoa(len(body)))
	}
	p.ContentLength = int64(len(body))
	if e.Time > 0 {
		p.Duration = cassettes.Duration(time.Duration(e.Time * float64(time.Millisecond)))
	}
	if isUpgrade(e) {
		q.URL = httpURL(q.URL)
		ws, err := webSocket(e, i)
		if err != nil {
			return it, err
		}
		it.WebSocket = ws
		if !cassettes.IsWebSocketUpgrade(p.Headers) { // HTTP/2's extended CONNECT, or headers the export dropped
			p.Headers.Set("Connection", "Upgrade")
			p.Headers.Set("Upgrade", "websocket")
		}
	}
	return it, nil
}

func headers(nvs []NV) http.Header {
	h := http.Header{}
	for _, nv := range nvs {
		if strings.HasPrefix(nv.Name, ":") {
			continue // an HTTP/2 pseudo-header
		}
		h.Add(nv.Name, nv.Value)
	}
	return h
}

// proto reads a HAR httpVersion ("HTTP/1.1", "http/2.0", "h2", "h3").
func proto(v string) (string, int, int) {
	switch strings.ToLower(v) {
	case "h2", "http/2", "http/2.0":
		return "HTTP/2.0", 2, 0
	case "h3", "http/3", "http/3.0":
		return "HTTP/3.0", 3, 0
	case "http/1.0":
		return "HTTP/1.0", 1, 0
	}
	return "HTTP/1.1", 1, 1
}

// ExportOptions are the settings of FromCassettes.
type ExportOptions struct {
	Creator Creator
}

// FromCassettes writes the HTTP interactions of cs as one HAR: a page per
// cassette, an entry per interaction, in order. Start times come from each
// cassette's recorded_at (the Unix epoch when it has none) plus the
// recorded durations, so the output is deterministic.
func FromCassettes(cs []*cassettes.Cassette, opts ExportOptions) *Archive {
	a := &Archive{Log: Log{Version: Version, Creator: opts.Creator, Entries: []Entry{}}}
	if a.Log.Creator.Name == "" {
		a.Log.Creator = Creator{Name: "cassette", Version: "dev"}
	}
	for n, c := range cs {
		start := time.Unix(0, 0).UTC()
		if c.RecordedAt != nil {
			start = c.RecordedAt.UTC()
		}
		// Page ids are unique even when two cassettes share adapter/scenario
		// (nested folders loaded without a config).
		id := fmt.Sprintf("page_%d", n+1)
		a.Log.Pages = append(a.Log.Pages, Page{StartedDateTime: start.Format(time.RFC3339Nano), ID: id, Title: c.ID(),
			PageTimings: PageTimings{OnContentLoad: -1, OnLoad: -1}, Scenario: c.Scenario})
		at := start
		for _, it := range c.Interactions {
			ms := float64(time.Duration(it.Response.Duration)) / float64(time.Millisecond)
			e := Entry{Pageref: id, StartedDateTime: at.Format(time.RFC3339Nano), Time: ms,
				Request: exportRequest(it.Request), Response: exportResponse(it.Response),
				Timings: Timings{Blocked: -1, DNS: -1, Connect: -1, Send: 0, Wait: ms, Receive: 0, SSL: -1}}
			a.Log.Entries = append(a.Log.Entries, e)
			at = at.Add(time.Duration(it.Response.Duration))
		}
	}
	return a
}

func exportHeaders(h http.Header) []NV {
	out := []NV{}
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		for _, v := range h[k] {
			out = append(out, NV{Name: k, Value: v})
		}
	}
	return out
}

func httpVersion(proto string) string {
	if proto == "" {
		return "HTTP/1.1"
	}
	return proto
}

func exportRequest(q cassettes.Request) Request {
	r := Request{Method: q.Method, URL: q.URL, HTTPVersion: httpVersion(q.Proto), Cookies: []Cookie{},
		Headers: exportHeaders(q.Headers), QueryString: []NV{}, HeadersSize: -1, BodySize: len(q.Body)}
	if u, err := url.Parse(q.URL); err == nil {
		qs := u.Query()
		keys := make([]string, 0, len(qs))
		for k := range qs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			for _, v := range qs[k] {
				r.QueryString = append(r.QueryString, NV{Name: k, Value: v})
			}
		}
	}
	if len(q.Body) > 0 {
		pd := &PostData{MimeType: q.Headers.Get("Content-Type"), Params: []Param{}}
		if utf8.Valid(q.Body.Bytes()) {
			pd.Text = string(q.Body)
		} else {
			pd.Text, pd.Encoding = base64.StdEncoding.EncodeToString(q.Body.Bytes()), "base64"
		}
		r.PostData = pd
	}
	return r
}

func exportResponse(p cassettes.Response) Response {
	r := Response{Status: p.Code, StatusText: statusText(p), HTTPVersion: httpVersion(p.Proto), Cookies: []Cookie{},
		Headers: exportHeaders(p.Headers), RedirectURL: p.Headers.Get("Location"), HeadersSize: -1, BodySize: len(p.Body)}
	mt := p.Headers.Get("Content-Type")
	if mt == "" {
		mt = "application/octet-stream"
	}
	r.Content = Content{Size: len(p.Body), MimeType: mt}
	if utf8.Valid(p.Body.Bytes()) && p.Headers.Get("Content-Encoding") == "" {
		r.Content.Text = string(p.Body)
	} else if len(p.Body) > 0 {
		r.Content.Text, r.Content.Encoding = base64.StdEncoding.EncodeToString(p.Body.Bytes()), "base64"
	}
	return r
}

func statusText(p cassettes.Response) string {
	if _, text, ok := strings.Cut(p.Status, " "); ok {
		return text
	}
	return http.StatusText(p.Code)
}
