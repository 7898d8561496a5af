package report

import (
	"fmt"
	"html"
	"html/template"
	"strings"
)

// htmlHistory words each adapter's history and draws it: one bar per cycle,
// as high as the escalation count (a clean cycle is a low green bar), with
// the threshold as a dashed line. The same numbers are in a table beside
// it for screen readers and text browsers.
func (r *Run) htmlHistory() []htmlAdapterHistory {
	var out []htmlAdapterHistory
	for _, h := range r.History {
		sum := fmt.Sprintf("Escalation count %d of %d", h.Consecutive, h.Threshold)
		if h.Escalated {
			sum += ": escalated to the adapter's owners"
		}
		drifting := 0
		for _, c := range h.Cycles {
			if c.Drifts > 0 {
				drifting++
			}
		}
		sum += fmt.Sprintf("; %d of the last %d cycles drifted.", drifting, len(h.Cycles))
		out = append(out, htmlAdapterHistory{Adapter: h.Adapter, Summary: sum, Chart: historyChart(h)})
	}
	return out
}

func historyChart(h AdapterHistory) template.HTML {
	const (
		left, top, bottom = 28, 10, 30
		barW, gap, plotH  = 20, 16, 80
	)
	top2 := max(h.Threshold, 1)
	for _, c := range h.Cycles {
		top2 = max(top2, c.Consecutive)
	}
	unit := float64(plotH) / float64(top2)
	width := left + len(h.Cycles)*(barW+gap) + 90
	height := top + plotH + bottom
	id := anchor("history", h.Adapter)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="history" role="img" aria-labelledby="%s-t %s-d" width="%d" height="%d" viewBox="0 0 %d %d">`, id, id, width, height, width, height)
	fmt.Fprintf(&b, `<title id="%s-t">Drift history of %s</title><desc id="%s-d">One bar per refresh cycle, as high as the escalation count after it; the dashed line is the threshold (%d).</desc>`,
		id, html.EscapeString(h.Adapter), id, h.Threshold)
	base := top + plotH
	fmt.Fprintf(&b, `<line class="axis" x1="%d" y1="%d" x2="%d" y2="%d"/>`, left-4, base, width-90, base)
	if h.Threshold > 0 {
		y := float64(base) - float64(h.Threshold)*unit
		fmt.Fprintf(&b, `<line class="limit" x1="%d" y1="%.1f" x2="%d" y2="%.1f"/><text x="%d" y="%.1f">escalates at %d</text>`,
			left-4, y, width-90, y, width-86, y+4, h.Threshold)
	}
	fmt.Fprintf(&b, `<text x="2" y="%d">%d</text><text x="2" y="%d">0</text>`, top+8, top2, base)
	for i, c := range h.Cycles {
		x := left + i*(barW+gap)
		bh, cls := float64(c.Consecutive)*unit, "bar-drift"
		if c.Drifts == 0 {
			bh, cls = 3, "bar-clean"
		}
		date := cycleName(c, i)
		if len(date) >= 10 {
			date = date[:10]
		}
		what := "no drift"
		if c.Drifts > 0 {
			what = fmt.Sprintf("%d drifting cassette(s), escalation count %d", c.Drifts, c.Consecutive)
		}
		fmt.Fprintf(&b, `<rect class="%s" x="%d" y="%.1f" width="%d" height="%.1f"><title>%s: %s</title></rect>`, cls, x, float64(base)-bh, barW, bh, date, what)
		if len(date) == 10 {
			fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">%s</text>`, x+barW/2, base+14, date[5:])
		}
	}
	b.WriteString(`</svg>`)
	b.WriteString(`<details><summary>The cycles as a table</summary><table><thead><tr><th scope="col">cycle</th><th scope="col">drifting cassettes</th><th scope="col">escalation count</th></tr></thead><tbody>`)
	for i, c := range h.Cycles {
		esc := ""
		if c.Escalated {
			esc = " (escalated)"
		}
		fmt.Fprintf(&b, `<tr><td>%s</td><td>%d</td><td>%d%s</td></tr>`, html.EscapeString(cycleName(c, i)), c.Drifts, c.Consecutive, esc)
	}
	b.WriteString(`</tbody></table></details>`)
	return template.HTML(b.String())
}

// cycleName is a cycle's date, or "cycle N" in golden mode, which leaves
// the dates out.
func cycleName(c HistoryCycle, i int) string {
	if c.At == "" {
		return fmt.Sprintf("cycle %d", i+1)
	}
	return c.At
}
