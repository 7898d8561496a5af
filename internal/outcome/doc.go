// Package outcome is how a run of cassette ends: the one error model every
// command exits through, the next step it prints, and the rules for what
// reaches a terminal (commands shell-quoted, data made printable). It is
// the ground floor: it imports no package of the project, and every other
// package says what went wrong in its words, so that a reason code, an
// exit class and a printed command mean the same from every door.
//
// Decisions:
//
//   - Errors are one type (Error): a registered reason code that maps to an
//     exit class (0 pass, 1 drift or failure, 2 config or user error, 3
//     infrastructure), every problem with its file, line and field, and one
//     next step to run. Reason codes are added, never repurposed.
//   - A next step is one command that runs as printed: built from words by
//     Command (each word quoted by Quote, the one quoting rule of every
//     command cassette prints), never prose, a placeholder or a comment;
//     what to fix first goes in the message.
//   - Only this package defines reason codes (internal/layout holds every
//     other package to it): a code is registered once, with its exit class.
//   - What is printed is free of control characters that come from data
//     (Printable, PrintableText, PrintableBlock): a name from a cassette
//     cannot forge a log line or drive a terminal.
package outcome
