package outcome

// ShellJoin renders argv as a command a user can paste into a shell (next
// steps are printed this way). It is Command for a slice.
func ShellJoin(argv []string) string { return Command(argv...) }
