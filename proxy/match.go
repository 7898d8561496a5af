package proxy

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"

	"github.com/aymanbagabas/go-udiff"
	"github.com/cassette-dev/cassette/cassettes"
	"github.com/gowebpki/jcs"
)

// BodyMode says how request bodies take part in matching.
type BodyMode string

// The body modes.
const (
	// BodyRaw matches the exact bytes (the default).
	BodyRaw BodyMode = "raw"
	// BodyJSON matches the RFC 8785 canonical form of a JSON body, so key
	// order and white space do not matter; a body that is not JSON is
	// matched raw.
	BodyJSON BodyMode = "json"
	// BodyIgnore leaves bodies out of matching.
	BodyIgnore BodyMode = "ignore"
)

// MatchOptions says which parts of a request must equal the recorded one
// for replay to serve it. The zero value matches method, scheme and host,
// path, query (in any parameter order) and the raw body.
type MatchOptions struct {
	IgnoreMethod bool     // match any method
	IgnoreHost   bool     // match any scheme and host (cassettes recorded against another base URL)
	IgnoreQuery  bool     // leave the query string out
	Headers      []string // these request headers must also be equal
	Body         BodyMode // raw (default), json or ignore
	// Replayable serves the last recorded response again once the n
	// responses recorded for n identical requests are used up. A cassette's
	// own `replayable:` key, when present, wins.
	Replayable bool
	// URLs are URL patterns (ParseURLPattern: "glob:…" or "regex:…"): a
	// request and a recorded interaction whose URLs match the same pattern
	// match on the URL, whatever else it holds.
	URLs []string
	// IgnoreParams are query parameters left out by name (a nonce, a
	// timestamp, a cache buster).
	IgnoreParams []string
	// IgnoreJSON are JSONPaths (RFC 9535, as normalizers take them) left
	// out of a JSON body; OnlyJSON, when set, are the only ones compared.
	// Either makes a JSON body match as JSON.
	IgnoreJSON, OnlyJSON []string
}

// compiled is what MatchOptions compile to once, for every request.
type compiled struct {
	urls   []URLPattern
	params map[string]bool
	json   jsonBodyFilter
}

// Check compiles the patterns and paths of m and returns the first error,
// for flag and config validation.
func (m MatchOptions) Check() error {
	_, err := m.compile()
	return err
}

func (m MatchOptions) compile() (compiled, error) {
	var c compiled
	for _, s := range m.URLs {
		p, err := ParseURLPattern(s)
		if err != nil {
			return c, err
		}
		c.urls = append(c.urls, p)
	}
	if len(m.IgnoreParams) > 0 {
		c.params = map[string]bool{}
		for _, n := range m.IgnoreParams {
			c.params[n] = true
		}
	}
	f, err := newJSONBodyFilter(m.IgnoreJSON, m.OnlyJSON)
	if err != nil {
		return c, err
	}
	c.json = f
	return c, nil
}

// view is the normalized form of a request, as far as matching sees it.
type view struct {
	method  string
	origin  string // scheme://host[:port], default port removed
	path    string
	query   string // sorted, encoded
	headers []string
	body    []byte // as compared (JSON canonical form in json mode)
	bodyKey string
	isJSON  bool
}

func (m MatchOptions) headerNames() []string {
	hs := make([]string, len(m.Headers))
	for i, h := range m.Headers {
		hs[i] = http.CanonicalHeaderKey(h)
	}
	return hs
}

func (m MatchOptions) viewWith(c compiled, method, rawURL string, h http.Header, body []byte, hnames []string) view {
	v := view{method: strings.ToUpper(method)}
	v.origin, v.path, v.query = normalizeURL(rawURL)
	if c.params != nil && v.query != "" {
		v.query = dropParams(v.query, c.params)
	}
	if len(c.urls) > 0 {
		full := v.origin + v.path
		if v.query != "" {
			full += "?" + v.query
		}
		for _, p := range c.urls {
			if p.match(full) {
				v.origin, v.path, v.query = "", "<"+p.String()+">", ""
				break
			}
		}
	}
	for _, name := range hnames {
		v.headers = append(v.headers, strings.Join(h.Values(name), ", "))
	}
	switch {
	case m.Body == BodyIgnore:
		return v
	case !c.json.empty() && len(bytes.TrimSpace(body)) > 0:
		if out, ok := c.json.apply(body); ok {
			body, v.isJSON = out, true
		}
	case m.Body == BodyJSON:
		if c, err := jcs.Transform(body); err == nil && len(bytes.TrimSpace(body)) > 0 {
			body, v.isJSON = c, true
		}
	}
	v.body = body
	if len(body) > 0 {
		sum := sha256.Sum256(body)
		v.bodyKey = string(sum[:])
	}
	return v
}

// key is the index key of a view under m.
func (m MatchOptions) key(v view) string {
	var b strings.Builder
	b.Grow(len(v.method) + len(v.origin) + len(v.path) + len(v.query) + 64)
	if !m.IgnoreMethod {
		b.WriteString(v.method)
	}
	b.WriteByte(0)
	if !m.IgnoreHost {
		b.WriteString(v.origin)
	}
	b.WriteByte(0)
	b.WriteString(v.path)
	b.WriteByte(0)
	if !m.IgnoreQuery {
		b.WriteString(v.query)
	}
	for _, h := range v.headers {
		b.WriteByte(0)
		b.WriteString(h)
	}
	b.WriteByte(0)
	b.WriteString(v.bodyKey)
	return b.String()
}

// dropParams removes the named parameters from an encoded query.
func dropParams(query string, names map[string]bool) string {
	q, err := url.ParseQuery(query)
	if err != nil {
		return query
	}
	for n := range names {
		q.Del(n)
	}
	return q.Encode()
}

// normalizeURL splits a URL into origin (lower-case scheme and host, default
// port dropped), escaped path ("/" when empty) and query (parameters sorted
// by name, values in their order, re-encoded). The fragment is dropped.
func normalizeURL(raw string) (origin, path, query string) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", raw, ""
	}
	scheme := strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Host)
	if (scheme == "https" && strings.HasSuffix(host, ":443")) || (scheme == "http" && strings.HasSuffix(host, ":80")) {
		host = host[:strings.LastIndexByte(host, ':')]
	}
	switch {
	case scheme != "":
		origin = scheme + "://" + host
	case host != "":
		origin = "//" + host // scheme-relative
	}
	path = u.EscapedPath()
	if path == "" {
		path = "/"
	}
	if u.RawQuery != "" {
		if q, err := url.ParseQuery(u.RawQuery); err == nil {
			query = q.Encode()
		} else {
			parts := strings.Split(u.RawQuery, "&")
			sort.Strings(parts)
			query = strings.Join(parts, "&")
		}
	}
	return origin, path, query
}

// ref locates one recorded interaction.
type ref struct{ c, i int }

// slot is the queue of recorded interactions answering one key.
type slot struct {
	refs []ref
	next int
}

// index answers "which recorded interaction serves this request" with one
// map lookup, whatever the number of recorded interactions.
type index struct {
	opts   MatchOptions
	c      compiled
	hnames []string
	cs     []*cassettes.Cassette

	mu    sync.Mutex
	slots map[string]*slot
	all   []entry    // every recorded interaction, in recorded order
	miss  *missIndex // positions in all, for the miss explanation (closest.go)
}

type entry struct {
	ref  ref
	view view
}

// newIndex indexes the recorded requests of cs. prep, when not nil, is
// applied to a copy of each recorded request before it is indexed: the
// proxy passes the redaction it applies to every incoming request, so that
// a cassette from elsewhere (a plain go-vcr file whose form body still holds
// `client_secret=test-secret`) matches the same request redacted.
func newIndex(cs []*cassettes.Cassette, opts MatchOptions, preps ...func(*cassettes.Interaction)) *index {
	var prep func(*cassettes.Interaction)
	if len(preps) > 0 {
		prep = preps[0]
	}
	if opts.Body == "" {
		opts.Body = BodyRaw
	}
	x := &index{opts: opts, hnames: opts.headerNames(), cs: cs,
		slots: map[string]*slot{}}
	x.miss = newMissIndex(opts, len(x.hnames))
	x.c, _ = opts.compile()
	for ci, c := range cs {
		for ii := range c.Interactions {
			r := &c.Interactions[ii].Request
			if prep != nil {
				probe := cassettes.Interaction{Request: *r}
				probe.Request.Headers = r.Headers.Clone()
				probe.Request.Trailer = r.Trailer.Clone()
				probe.Request.Form = cloneValues(r.Form)
				prep(&probe)
				r = &probe.Request
			}
			v := opts.viewWith(x.c, r.Method, r.URL, r.Headers, []byte(r.Body), x.hnames)
			k := opts.key(v)
			s := x.slots[k]
			if s == nil {
				s = &slot{}
				x.slots[k] = s
			}
			s.refs = append(s.refs, ref{ci, ii})
			x.all = append(x.all, entry{ref{ci, ii}, v})
			x.miss.add(&v)
		}
	}
	return x
}

func (x *index) interaction(r ref) *cassettes.Interaction {
	return &x.cs[r.c].Interactions[r.i]
}

// repeats reports whether the last response of cassette c may be served again.
func (x *index) repeats(c int) bool {
	if rp := x.cs[c].Replayable; rp != nil {
		return *rp
	}
	return x.opts.Replayable
}

// lookup returns the interaction that answers v, or a miss explaining why
// none does.
func (x *index) lookup(v view, request string) (*cassettes.Interaction, *Miss) {
	it, s := x.take(v)
	switch {
	case it != nil:
		return it, nil
	case s != nil:
		return nil, x.exhausted(request, s.refs[len(s.refs)-1], len(s.refs))
	}
	return nil, x.closest(v, request)
}

// take returns the interaction that answers v and consumes it; when none
// does, the slot of v's key if it exists (its responses all served).
func (x *index) take(v view) (*cassettes.Interaction, *slot) {
	k := x.opts.key(v)
	x.mu.Lock()
	defer x.mu.Unlock()
	s := x.slots[k]
	if s == nil {
		return nil, nil
	}
	if s.next < len(s.refs) {
		r := s.refs[s.next]
		s.next++
		return x.interaction(r), nil
	}
	if last := s.refs[len(s.refs)-1]; x.repeats(last.c) {
		return x.interaction(last), nil
	}
	return nil, s
}

// Miss explains why replay found no recorded response for a request.
type Miss struct {
	// Request is "METHOD URL" of the request that missed (redacted).
	Request string
	// Closest names the recorded interaction that came closest; nil when
	// nothing is recorded.
	Closest *Candidate
	// Used is, when the request matched but its recorded responses were all
	// served already (a non-replayable sequence), how many there were.
	Used int
	// NextStep is the command that re-records the closest cassette.
	NextStep string

	score int // of Closest, to compare misses across match rules
}

// Candidate is a recorded interaction and how it differs from a request.
type Candidate struct {
	File        string // cassette path ("" for a cassette built in memory)
	Line        int    // line of interactions[Index].request, 0 when unknown
	Cassette    string // adapter/scenario
	Index       int    // position in the cassette's interactions
	Request     string // "METHOD URL" as recorded
	Differences []Difference
}

// Difference is one field of a request that differs from the recorded one.
type Difference struct {
	Field    string // method, host, path, query, header Name, body
	Recorded string
	Got      string
	Diff     string // a small unified diff (body) or "- recorded\n+ got" lines
}

func (x *index) candidateFor(r ref) *Candidate {
	c := x.cs[r.c]
	it := x.interaction(r)
	return &Candidate{
		File: c.Path, Line: c.Line(fmt.Sprintf("interactions[%d].request", r.i)),
		Cassette: c.ID(), Index: r.i, Request: it.Request.Method + " " + it.Request.URL,
	}
}

func (x *index) exhausted(request string, last ref, n int) *Miss {
	cand := x.candidateFor(last)
	return &Miss{Request: request, Closest: cand, Used: n, NextStep: replayableStep(x.cs[last.c])}
}

// closest finds the recorded request that scores best field by field
// (Hoverfly's closest miss: an equal field 2 points, a near one 1; the
// first recorded wins a tie) from an index (closest.go), and explains it.
func (x *index) closest(v view, request string) *Miss {
	m := &Miss{Request: request}
	best, score := x.miss.best(&v)
	if best < 0 {
		m.NextStep = cassettes.Command("cassette", "proxy", "--help")
		return m
	}
	e := x.all[best]
	m.score = score
	m.Closest = x.candidateFor(e.ref)
	m.Closest.Differences = x.differences(e.view, v)
	m.NextStep = recordStep(x.cs[e.ref.c])
	return m
}

func (x *index) differences(rec, got view) []Difference {
	var ds []Difference
	line := func(field, r, g string) {
		if r != g {
			ds = append(ds, Difference{Field: field, Recorded: r, Got: g, Diff: "- " + r + "\n+ " + g})
		}
	}
	if !x.opts.IgnoreMethod {
		line("method", rec.method, got.method)
	}
	if !x.opts.IgnoreHost {
		line("host", rec.origin, got.origin)
	}
	line("path", rec.path, got.path)
	if !x.opts.IgnoreQuery && rec.query != got.query {
		ds = append(ds, Difference{Field: "query", Recorded: rec.query, Got: got.query, Diff: queryDiff(rec.query, got.query)})
	}
	for i, name := range x.hnames {
		line("header "+name, rec.headers[i], got.headers[i])
	}
	if x.opts.Body != BodyIgnore && rec.bodyKey != got.bodyKey {
		ds = append(ds, Difference{Field: "body", Recorded: preview(rec.body), Got: preview(got.body), Diff: bodyDiff(rec, got)})
	}
	return ds
}

func queryDiff(rec, got string) string {
	qr, _ := url.ParseQuery(rec)
	qg, _ := url.ParseQuery(got)
	keys := map[string]bool{}
	for k := range qr {
		keys[k] = true
	}
	for k := range qg {
		keys[k] = true
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, k := range names {
		r, g := strings.Join(qr[k], ","), strings.Join(qg[k], ",")
		_, inR := qr[k]
		_, inG := qg[k]
		if r == g && inR == inG {
			continue
		}
		if inR {
			fmt.Fprintf(&b, "- %s=%s\n", k, r)
		}
		if inG {
			fmt.Fprintf(&b, "+ %s=%s\n", k, g)
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

const (
	maxDiffLines   = 24
	maxPreviewSize = 200
)

func bodyDiff(rec, got view) string {
	if !isText(rec.body) || !isText(got.body) {
		return fmt.Sprintf("- %d bytes (binary)\n+ %d bytes (binary)", len(rec.body), len(got.body))
	}
	a, b := string(rec.body), string(got.body)
	if rec.isJSON && got.isJSON {
		a, b = indentJSON(rec.body), indentJSON(got.body)
	}
	if !strings.HasSuffix(a, "\n") {
		a += "\n"
	}
	if !strings.HasSuffix(b, "\n") {
		b += "\n"
	}
	d := udiff.Unified("recorded", "request", a, b)
	lines := strings.Split(strings.TrimSuffix(d, "\n"), "\n")
	if len(lines) > maxDiffLines {
		lines = append(lines[:maxDiffLines], fmt.Sprintf("… (%d more diff lines)", len(lines)-maxDiffLines))
	}
	return strings.Join(lines, "\n")
}

func indentJSON(b []byte) string {
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return string(b)
	}
	return out.String()
}

func isText(b []byte) bool {
	return !bytes.ContainsRune(b, 0) && !cassettes.Body(b).IsBinary()
}

func preview(b []byte) string {
	if !isText(b) {
		return fmt.Sprintf("%d bytes (binary)", len(b))
	}
	if len(b) > maxPreviewSize {
		return string(b[:maxPreviewSize]) + "…"
	}
	return string(b)
}

func recordStep(c *cassettes.Cassette) string {
	switch {
	case c.Adapter != "" && c.Scenario != "" && cassettes.ValidNewName(c.Adapter) && cassettes.ValidNewName(c.Scenario):
		return cassettes.Command("cassette", "record", "--adapter", c.Adapter, "--scenario", c.Scenario)
	case c.Path != "":
		return cassettes.Command("cassette", "proxy", "--mode", "record", "--cassette", c.Path)
	}
	return cassettes.Command("cassette", "proxy", "--help")
}

// replayableStep is the next step of a sequence served to its end: record
// it again (the message says the other way, `replayable: true`).
func replayableStep(c *cassettes.Cassette) string { return recordStep(c) }

// Error is the miss as the project's error model (reason E_REPLAY_MISS),
// with the closest interaction's file, line and differing fields as problems.
func (m *Miss) Error() *cassettes.Error {
	e := &cassettes.Error{Reason: cassettes.EReplayMiss, NextStep: m.NextStep}
	switch {
	case m.Closest == nil:
		e.Message = "replay miss: no recorded interactions to serve " + m.Request
	case m.Used > 0:
		e.Message = fmt.Sprintf("replay miss: %s matched, but its %d recorded response(s) were already served and the cassette is not replayable (`replayable: true` in it, or MatchOptions.Replayable, serves the last response again)", m.Request, m.Used)
		e.Problems = []cassettes.Problem{{File: m.Closest.File, Line: m.Closest.Line,
			Field:   fmt.Sprintf("interactions[%d].request", m.Closest.Index),
			Message: "last recorded response of this sequence", Expected: fmt.Sprintf("at most %d identical request(s)", m.Used)}}
	default:
		e.Message = "replay miss: no recorded interaction matches " + m.Request
		for _, d := range m.Closest.Differences {
			e.Problems = append(e.Problems, cassettes.Problem{File: m.Closest.File, Line: m.Closest.Line,
				Field:   fmt.Sprintf("interactions[%d].request.%s", m.Closest.Index, fieldPath(d.Field)),
				Message: "closest recorded request differs in " + d.Field, Expected: oneLine(d.Recorded)})
		}
	}
	return e
}

func fieldPath(f string) string {
	switch {
	case f == "method", f == "body":
		return f
	case strings.HasPrefix(f, "header "):
		return "headers." + strings.TrimPrefix(f, "header ")
	}
	return "url" // host, path, query live in the url
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", `\n`)
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}

// Text renders the miss for a terminal, a log and the body of the 599
// response: the request, the closest recorded interaction (file:line), the
// fields that differ with a small diff, and the next step.
func (m *Miss) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cassette: replay miss: %s\n", m.Request)
	switch {
	case m.Closest == nil:
		b.WriteString("nothing is recorded: the replay proxy has no interactions to serve.\n")
	case m.Used > 0:
		fmt.Fprintf(&b, "this request matched %s, but all %d recorded response(s) to it were already served\n", m.Closest.where(), m.Used)
		b.WriteString("and the cassette is not replayable (a sequence is served once, in order; `replayable: true` in it serves the last response again).\n")
	default:
		fmt.Fprintf(&b, "closest recorded request: %s\n  %s\n", m.Closest.where(), m.Closest.Request)
		names := make([]string, len(m.Closest.Differences))
		for i, d := range m.Closest.Differences {
			names[i] = d.Field
		}
		fmt.Fprintf(&b, "did not match on: [%s]\n", strings.Join(names, ", "))
		for _, d := range m.Closest.Differences {
			fmt.Fprintf(&b, "%s:\n", d.Field)
			for _, l := range strings.Split(d.Diff, "\n") {
				b.WriteString("  " + l + "\n")
			}
		}
	}
	fmt.Fprintf(&b, "next step: %s\n", m.NextStep)
	return b.String()
}

func (c *Candidate) where() string {
	loc := c.File
	if loc == "" {
		loc = c.Cassette
	}
	if c.Line > 0 {
		loc += fmt.Sprintf(":%d", c.Line)
	}
	return fmt.Sprintf("%s (interactions[%d])", loc, c.Index)
}
