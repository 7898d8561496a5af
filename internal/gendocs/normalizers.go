package gendocs

import (
	"fmt"
	"strings"

	"github.com/cassette-dev/cassette/internal/normalize"
)

// normalizers says what each built-in normalizer replaces (normalize's
// Builtins doc comment is the source of these lines).
var normalizers = map[string]string{
	"timestamps.ISO8601":   "ISO 8601 times (2026-11-22T14:00:00Z, with or without zone and fraction) → `<ISO8601>`",
	"timestamps.RFC1123":   "HTTP dates (Sat, 22 Nov 2026 14:00:00 GMT) → `<RFC1123>`",
	"timestamps.ANSIC":     "git's default date (Sat Nov 22 14:00:00 2026 +0000) → `<ANSIC>`",
	"timestamps.unix":      "10- and 13-digit epochs in time-like fields (created_at, ts, exp…): JSON numbers keep their type (→ 1000000000 / 1000000000000), strings and text become `<unix>`",
	"sha:full":             "40 and 64 hex digits → `<sha:N>`, `<sha256:N>`",
	"sha:short":            "7–12 hex digits with a digit and a letter → `<sha:N:short>`; an abbreviation shares N with the full SHA it abbreviates",
	"uuid":                 "RFC 4122 UUIDs, any case → `<uuid:N>`",
	"headers.volatile":     "Date, Age, ETag, request ids, rate-limit counters, trace and timing headers → `<volatile>` (the header stays present)",
	"ports":                "loopback ports (127.0.0.1:54321, localhost:8080, [::1]:9) → `<port:N>`",
	"paths.tmp":            "the working directory → `<cwd>`; a directory under a temp root → `<tmp:N>`",
	"json.canonical":       "JSON written in RFC 8785 form (sorted keys, no spacing)",
	"whitespace.trailing":  "blanks at the end of each line removed",
	"redact.credentials":   "declared credential values and known key formats → `[REDACTED]`; credential headers forced to `[REDACTED]`",
	"header:<Name>":        "the named header's values → `<volatile>`",
	"json.path:<JSONPath>": "the selected JSON values → `<name:N>`, name being the last member name of the path (`$.items[*].id` → `<id:N>`)",
}

// Normalizers renders the built-in normalizers of normalize.Builtins.
func Normalizers() ([]byte, error) {
	reg := normalize.Builtins().Names()
	if err := sameNames("built-in normalizer", "internal/gendocs/normalizers.go", reg, keys(normalizers)); err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString(generated("cassette gendocs", "the registry of normalize.Builtins and internal/gendocs/normalizers.go"))
	b.WriteString("# Built-in normalizers\n\n")
	b.WriteString("Named in `normalizers:` of an adapter in `cassette.yaml` (or of a cassette), applied to both sides before verify compares them. ")
	b.WriteString("Placeholders numbered N keep identity: within one cassette the same value always gets the same number. ")
	b.WriteString("A project defines its own under the top-level `normalizers:` key ([Normalizers](../../concepts/normalizers.md)).\n\n")
	b.WriteString("| name | replaces |\n|---|---|\n")
	for _, n := range reg {
		fmt.Fprintf(&b, "| `%s` | %s |\n", n, normalizers[n])
	}
	return []byte(b.String()), nil
}
