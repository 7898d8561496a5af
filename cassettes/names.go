package cassettes

// NameExpected says what a valid adapter or scenario name is, for messages.
const NameExpected = "lower-case letters, digits, '.', '_' and '-', starting with a letter or digit (no '/', no spaces)"

// ValidName reports whether s is a valid adapter or scenario name: the
// strict form cassette.yaml and cassette files use. Such a name holds no
// path separator and cannot be "." or "..", so a cassette named after it
// stays in its adapter's directory.
func ValidName(s string) bool { return nameRe.MatchString(s) }
