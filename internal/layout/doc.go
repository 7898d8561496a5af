// Package layout holds no code: its tests hold the project's package
// layout to the one ARCHITECTURE.md draws. Each package
// stands on a floor and imports only packages of lower floors (no arrow
// runs up, so there is no cycle); a new package must be given its floor
// here, which is where a reviewer sees that it has a place; no package has
// an init function; no file outside tests and internal/speccheck is over
// 600 lines, and no function outside tests is over 80.
package layout
