// Package importer brings recordings made by other tools into a project,
// and takes cassettes out to them: `cassette import govcr|har` and `cassette
// export har` are one call each.
//
// Decisions:
//
//   - One pipeline for every source: convert (package har), place each
//     cassette at <dir>/<adapter>/<scenario>.yaml, redact, refuse to
//     overwrite without Force, scan every cassette, then save. The import
//     is all or nothing up to the first write: an existing file or a
//     credential left in any cassette stops it before anything is written.
//   - A HAR is redacted like any recording (credential headers, query and
//     form fields by name, the declared credential values), twice: a value
//     learned from a later entry (a token posted on page 3 and answered on
//     page 1) is scrubbed from the cassettes before it too. go-vcr files
//     keep their bytes as the other project committed them; they are
//     scanned, and a cassette holding a credential is refused.
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
