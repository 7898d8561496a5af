// Package cfgschema is cassette.yaml's schema: the Go types its strict
// loader (cassettes.LoadConfig) decodes the file into (Config, Adapter and
// their parts: real, fake, match, coverage, contracts, refresh, quarantine,
// normalizer definitions), the adapter kinds (Kind, and Kinds, the
// registry a load accepts them from), the rules across fields that struct
// tags cannot say (Rules), and what a fake's environment withholds
// (SecretVars, FakeEnviron). It stands on outcome and redact only, so that
// the cassette format (package cassettes) can check a cassette against a
// project without this package knowing the format.
//
// Decisions:
//
//   - It is under internal/: a Go user reads and writes cassettes (the
//     public package), and cassette.yaml is the CLI's; its names are not
//     part of the public face (issue #36, move 4).
//   - The loader stays with the cassette loader in package cassettes: both
//     share one strict-YAML checker (unknown keys, types, lines, the struct
//     validator). A Config records where its fields are (Located) and makes
//     its redaction rules once it is valid (Validated); the loader calls
//     both.
package cfgschema
