package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"html/template"
	"io"
	"regexp"
	"strings"

	"github.com/aymanbagabas/go-udiff/lcs"

	"github.com/cassette-dev/cassette/internal/normalize"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// The views of one body, want beside got: a JSON tree with the drifting
// paths marked, a word-level diff for text, a hex view from the first
// differing offset for binary, and record by record for streams. Each view
// is plain HTML (lists, <pre>, <details>) that reads without script and
// with a screen reader: changes are <mark>, <del> and <ins> elements with a
// visually hidden word saying what they are.

// Bounds that keep a page small enough to open.
const (
	maxTreeNodes   = 4000    // JSON nodes rendered per pane
	maxDiffTokens  = 30000   // words diffed per side; beyond, the text is shown plainly
	hexRowsBefore  = 4       // rows shown before the first differing one
	hexRowsAfter   = 28      // and after it
	maxStreamShown = 200     // records shown per stream
	maxTextShown   = 1 << 20 // bytes of a text pane
)

func bodyView(id, ctype string, want, got []byte, paths []string) *htmlBody {
	wk, gk := normalize.DetectKind(ctype, want), normalize.DetectKind(ctype, got)
	kind := wk
	if kind == normalize.KindEmpty {
		kind = gk
	}
	b := &htmlBody{Kind: string(kind)}
	switch {
	case wk == normalize.KindBinary || gk == normalize.KindBinary:
		b.Kind = string(normalize.KindBinary)
		b.Want, b.Got, b.Note = hexView(id, want, got)
	case (wk == normalize.KindJSON || wk == normalize.KindEmpty) && (gk == normalize.KindJSON || gk == normalize.KindEmpty):
		b.Want = jsonTree(want, "$", paths)
		b.Got = jsonTree(got, "$", paths)
		if len(paths) > 0 {
			b.Note = template.HTML("Changed paths: " + codeList(paths))
		}
	case (wk == normalize.KindJSONL || wk == normalize.KindSSE) && (gk == wk || gk == normalize.KindEmpty):
		b.Records = streamView(id, wk, want, got, paths)
		b.Note = template.HTML(fmt.Sprintf("%d records recorded, %d from the fake", len(streamRecords(wk, want)), len(streamRecords(wk, got))))
	default:
		b.Kind = string(normalize.KindText)
		b.Want, b.Got = wordDiff(want, got)
	}
	return b
}

func codeList(ss []string) string {
	var b strings.Builder
	for i, s := range ss {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("<code>" + htmlText(s) + "</code>")
	}
	return b.String()
}

// jnode is one JSON value with its members in document order.
type jnode struct {
	key    string // member name, or "" for array items and the root
	scalar string // JSON text of a scalar
	open   byte   // '{' or '[' for a container
	kids   []*jnode
}

func decodeOrdered(data []byte) (*jnode, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := decodeNode(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data")
	}
	return n, nil
}

func decodeNode(dec *json.Decoder) (*jnode, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		n := &jnode{open: byte(t)}
		for dec.More() {
			var key string
			if t == '{' {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ = kt.(string)
			}
			kid, err := decodeNode(dec)
			if err != nil {
				return nil, err
			}
			kid.key = key
			n.kids = append(n.kids, kid)
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
		return n, nil
	default:
		return &jnode{scalar: jsonText(t)}, nil
	}
}

// childPath extends a JSONPath the way the diff package writes them
// (RFC 9535 normalized paths): .name when plain, ['name'] otherwise, [i].
func childPath(parent string, n *jnode, i int, inObject bool) string {
	if !inObject {
		return fmt.Sprintf("%s[%d]", parent, i)
	}
	if plainMember.MatchString(n.key) {
		return parent + "." + n.key
	}
	return parent + "['" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(n.key) + "']"
}

var plainMember = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// under reports whether path is p or lies below it.
func under(path, p string) bool {
	return path == p || (strings.HasPrefix(path, p) && (path[len(p)] == '.' || path[len(p)] == '['))
}

// jsonTree renders a JSON body as nested lists; the nodes at paths are
// marked, and the containers on their way are open.
func jsonTree(data []byte, root string, paths []string) template.HTML {
	if len(bytes.TrimSpace(data)) == 0 {
		return `<p class="empty">(empty)</p>`
	}
	n, err := decodeOrdered(data)
	if err != nil {
		return template.HTML(`<pre class="text">` + htmlText(string(data)) + `</pre>`)
	}
	var b strings.Builder
	budget := maxTreeNodes
	b.WriteString(`<ul class="json" role="list">`)
	writeNode(&b, n, root, paths, false, &budget)
	b.WriteString(`</ul>`)
	return template.HTML(b.String())
}

func writeNode(b *strings.Builder, n *jnode, path string, paths []string, inObject bool, budget *int) {
	*budget--
	changed, onWay := false, false
	for _, p := range paths {
		if p == path {
			changed = true
		} else if under(p, path) {
			onWay = true
		}
	}
	cls := ""
	if changed {
		cls = ` class="changed"`
	}
	fmt.Fprintf(b, `<li data-path="%s"%s>`, html.EscapeString(path), cls)
	label := ""
	if inObject {
		label = `<span class="jk">` + htmlText(quoteKey(n.key)) + `</span>: `
	}
	mark := func(s string) string {
		if !changed {
			return s
		}
		return `<mark><span class="sr">changed: </span>` + s + `</mark>`
	}
	if n.open == 0 {
		b.WriteString(mark(label + `<span class="` + scalarClass(n.scalar) + `">` + htmlText(n.scalar) + `</span>`))
		b.WriteString(`</li>`)
		return
	}
	closeCh, what := "}", "members"
	if n.open == '[' {
		closeCh, what = "]", "items"
	}
	if len(n.kids) == 0 {
		b.WriteString(mark(label + string(n.open) + closeCh))
		b.WriteString(`</li>`)
		return
	}
	open := ""
	if changed || onWay || (*budget > 0 && len(n.kids) <= 12 && !strings.Contains(path[1:], "[")) || path == "$" {
		open = " open"
	}
	fmt.Fprintf(b, `<details%s><summary>%s</summary><ul role="list">`, open,
		mark(label+string(n.open)+` <span class="jn">`+fmt.Sprintf("%d %s", len(n.kids), what)+`</span> `+closeCh))
	for i, k := range n.kids {
		if *budget <= 0 {
			fmt.Fprintf(b, `<li class="more">… %d more not shown</li>`, len(n.kids)-i)
			break
		}
		writeNode(b, k, childPath(path, k, i, n.open == '{'), paths, n.open == '{', budget)
	}
	b.WriteString(`</ul></details></li>`)
}

func quoteKey(k string) string { return jsonText(k) }

// jsonText writes a scalar as JSON, leaving <, > and & as they are.
func jsonText(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

func scalarClass(s string) string {
	switch {
	case strings.HasPrefix(s, `"`):
		return "js"
	case s == "null", s == "true", s == "false":
		return "jl"
	}
	return "jnum"
}

var wordToken = regexp.MustCompile(`[\p{L}\p{N}_]+|\s+|[^\p{L}\p{N}_\s]`)

// wordDiff renders want with the words the fake lost struck out and got
// with the words it added underlined.
func wordDiff(want, got []byte) (template.HTML, template.HTML) {
	if len(want) > maxTextShown || len(got) > maxTextShown {
		return plainText(want), plainText(got)
	}
	a, g := wordToken.FindAllString(string(want), -1), wordToken.FindAllString(string(got), -1)
	if len(a) > maxDiffTokens || len(g) > maxDiffTokens {
		return plainText(want), plainText(got)
	}
	var wb, gb strings.Builder
	wb.WriteString(`<pre class="text">`)
	gb.WriteString(`<pre class="text">`)
	i, j := 0, 0
	for _, d := range lcs.DiffLines(a, g) {
		wb.WriteString(htmlText(strings.Join(a[i:d.Start], "")))
		gb.WriteString(htmlText(strings.Join(g[j:d.ReplStart], "")))
		if d.End > d.Start {
			wb.WriteString(`<del><span class="sr">removed: </span>` + htmlText(strings.Join(a[d.Start:d.End], "")) + `</del>`)
		}
		if d.ReplEnd > d.ReplStart {
			gb.WriteString(`<ins><span class="sr">added: </span>` + htmlText(strings.Join(g[d.ReplStart:d.ReplEnd], "")) + `</ins>`)
		}
		i, j = d.End, d.ReplEnd
	}
	wb.WriteString(htmlText(strings.Join(a[i:], "")) + `</pre>`)
	gb.WriteString(htmlText(strings.Join(g[j:], "")) + `</pre>`)
	return template.HTML(wb.String()), template.HTML(gb.String())
}

func plainText(b []byte) template.HTML {
	if len(b) == 0 {
		return `<p class="empty">(empty)</p>`
	}
	s := string(b)
	more := ""
	if len(s) > maxTextShown {
		s, more = truncateString(s, maxTextShown), fmt.Sprintf(" (%d bytes, cut)", len(b))
	}
	return template.HTML(`<pre class="text">` + htmlText(s) + `</pre>` + htmlText(more))
}

// firstDifference is the offset of the first byte where a and b differ, or
// the length of the shorter when one is a prefix of the other; -1 if equal.
func firstDifference(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) == len(b) {
		return -1
	}
	return n
}

// hexView renders both bodies as hex dumps around the first differing
// offset, whose byte is marked on each side.
func hexView(id string, want, got []byte) (template.HTML, template.HTML, template.HTML) {
	off := firstDifference(want, got)
	note := fmt.Sprintf(`<p class="first-offset" id="%s-first">First difference at offset <strong data-offset="%d">0x%08x (%d)</strong>; recorded %d bytes, fake %d bytes.</p>`,
		html.EscapeString(id), off, max(off, 0), off, len(want), len(got))
	if off < 0 {
		note = fmt.Sprintf(`<p class="first-offset">The bytes are equal (%d bytes).</p>`, len(want))
	}
	from := 0
	if off > 0 {
		from = max(0, off/16-hexRowsBefore) * 16
	}
	to := from + (hexRowsBefore+hexRowsAfter)*16
	return hexDump(want, from, to, off), hexDump(got, from, to, off), template.HTML(note)
}

func hexDump(data []byte, from, to, mark int) template.HTML {
	if len(data) == 0 {
		return `<p class="empty">(empty)</p>`
	}
	var b strings.Builder
	b.WriteString(`<pre class="hex">`)
	if from > 0 {
		fmt.Fprintf(&b, "… %d bytes before\n", from)
	}
	for row := from; row < len(data) && row < to; row += 16 {
		fmt.Fprintf(&b, "%08x  ", row)
		var ascii strings.Builder
		for i := row; i < row+16; i++ {
			if i >= len(data) {
				b.WriteString("   ")
				continue
			}
			cell := fmt.Sprintf("%02x", data[i])
			ch := "."
			if data[i] >= 0x20 && data[i] < 0x7f {
				ch = html.EscapeString(string(rune(data[i])))
			}
			if i == mark {
				cell = `<mark class="first" data-offset="` + fmt.Sprint(i) + `"><span class="sr">first difference: </span>` + cell + `</mark>`
				ch = `<mark>` + ch + `</mark>`
			}
			b.WriteString(cell + " ")
			ascii.WriteString(ch)
		}
		b.WriteString(" " + ascii.String() + "\n")
	}
	if to < len(data) {
		fmt.Fprintf(&b, "… %d bytes after\n", len(data)-to)
	}
	b.WriteString(`</pre>`)
	return template.HTML(b.String())
}

// streamRecords splits a JSONL or SSE body into its records.
func streamRecords(k normalize.Kind, body []byte) []string {
	var out []string
	sep := "\n"
	s := string(body)
	if k == normalize.KindSSE {
		sep, s = "\n\n", strings.ReplaceAll(s, "\r\n", "\n")
	}
	for _, r := range strings.Split(s, sep) {
		if strings.TrimSpace(r) != "" {
			out = append(out, strings.TrimRight(r, "\r\n"))
		}
	}
	return out
}

// streamView pairs records by position; the first that differs is open.
func streamView(id string, k normalize.Kind, want, got []byte, paths []string) []htmlRecord {
	w, g := streamRecords(k, want), streamRecords(k, got)
	var out []htmlRecord
	first := true
	for i := 0; i < max(len(w), len(g)) && i < maxStreamShown; i++ {
		rec := htmlRecord{Index: i, Anchor: fmt.Sprintf("%s-record-%d", id, i)}
		var ws, gs string
		if i < len(w) {
			ws = w[i]
		}
		if i < len(g) {
			gs = g[i]
		}
		switch {
		case i >= len(g):
			rec.State = "removed"
		case i >= len(w):
			rec.State = "added"
		case ws == gs:
			rec.State = "same"
		default:
			rec.State = "changed"
		}
		if rec.State != "same" && first {
			rec.Open, first = true, false
		}
		root := fmt.Sprintf("$[%d]", i)
		var rp []string
		for _, p := range paths {
			if under(p, root) {
				rp = append(rp, p)
			}
		}
		if k == normalize.KindJSONL {
			rec.Want, rec.Got = jsonTree([]byte(ws), root, rp), jsonTree([]byte(gs), root, rp)
		} else {
			rec.Want, rec.Got = wordDiff([]byte(ws), []byte(gs))
		}
		out = append(out, rec)
	}
	return out
}

// unifiedHTML renders a unified diff with its removed lines as <del> and its
// added lines as <ins>.
func unifiedHTML(d string) template.HTML {
	var b strings.Builder
	for _, line := range strings.SplitAfter(d, "\n") {
		switch {
		case line == "":
		case strings.HasPrefix(line, "---"), strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "@@"):
			b.WriteString(`<span class="muted">` + htmlText(line) + `</span>`)
		case line[0] == '-':
			b.WriteString(`<del><span class="sr">removed: </span>` + htmlText(line) + `</del>`)
		case line[0] == '+':
			b.WriteString(`<ins><span class="sr">added: </span>` + htmlText(line) + `</ins>`)
		default:
			b.WriteString(htmlText(line))
		}
	}
	return template.HTML(b.String())
}

// htmlText escapes s for HTML and writes its control characters (but line
// breaks and tabs) as visible escapes: a cassette's content (a terminal's
// escape sequences, a carriage return) shows as what it is, in the page
// and in its source.
func htmlText(s string) string { return html.EscapeString(outcome.PrintableText(s)) }
