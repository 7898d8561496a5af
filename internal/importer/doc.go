// Package importer brings recordings made by other tools into a project,
// and takes cassettes out to them: `cassette import govcr|har` and `cassette
// export har` are one call each.
//
// Decisions:
//
//   - One pipeline for every source: convert (package har), place each
//     cassette at <dir>/<adapter>/<scenario>.yaml, redact, refuse to
//     overwrite without Force (before anything is written), scan each
//     cassette, then save the clean ones.
//   - Every source is redacted as a recording is (Interaction.Redact):
//     credential headers, cookies, credential-named query, form and JSON
//     fields, URL passwords, the declared values and every value learned
//     from them — twice over the set, so that a value learned in a later
//     file or entry (a token posted on page 3 and answered on page 1) is
//     scrubbed from the ones before it too. go-vcr files are loaded
//     without the leak scan (LoadOptions.SkipLeakScan): what is in them is
//     what import is there to redact.
//   - Known key formats are redacted with Options.Redact; without it they
//     are refused, one cassette at a time: a tree from another project
//     often holds a key in a few of its files, and the others import. The
//     error lists each refused source file with the line of the key and
//     the command that imports them redacted.
//   - A HAR saved without content (its sizes say there were bodies; it
//     holds no response body) is refused, each problem naming the entry:
//     imported, it replayed empty 200s. One that lacks only some bodies is
//     imported, and each one it lacks is a warning (Result.Warnings)
//     naming the cassette, the interaction and the entry.
//   - The caller reads the environment: Options carries the declared
//     credential values, never names to look up.
//   - Export writes every cassette it is given, in order; cassettes hold no
//     credentials, so neither does the HAR.
package importer
