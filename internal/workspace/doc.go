// Package workspace is a loaded project: its cassette.yaml, validated, the
// normalizer registry (the built-ins plus the normalizers it defines) and
// its redaction rules, as one value (Project) that every command, test
// helper and door is given and asks for its options (LoadOptions,
// Credentials); the write locks on the project's cassettes and adapters
// (LockCassette, LockAdapter), so that two recordings never write one file;
// and the check that a CLI cassette names its adapter's declared command
// (UndeclaredCommands), which validate, record and refresh share.
//
// It stands on cassettes, the file format, whose strict loader checks a
// cassette against the project's Config; nothing below it knows a project
// was loaded.
package workspace
