// Package gendocs writes the reference pages of the docs site that are
// generated from the code, so that they cannot go stale: a page per
// command (from the cobra command tree), the reason codes with what each
// means and what to do (from the error model's registry), the built-in
// normalizers and match presets (from their registries), and the
// references of cassette.yaml and of the cassette file (from the JSON
// Schemas under schema/).
//
// Decisions:
//
//   - Pages are returned as values (path → bytes), not written here: the
//     hidden `cassette gendocs` command writes them, and cmd/cassette's
//     test compares them with what is committed (-update rewrites them).
//   - Names come from the registries; the prose a registry does not hold
//     (what a reason code means, what to do about it, what a normalizer
//     replaces) is in this package's tables, and a registered name without
//     an entry is an error, so a new code or normalizer cannot ship
//     undocumented. An entry for a name that is no longer registered is an
//     error too.
//   - The command pages are our own few lines over cobra's fields rather
//     than cobra/doc, which would bring go-md2man into the module for man
//     pages we do not ship.
package gendocs
