package cassettes

import (
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// withConfig is words, then `--config PATH` unless path is the default
// config file: a printed command names the config the user named.
func withConfig(path string, words ...string) string {
	if path != "" && path != cfgschema.ConfigFile {
		words = append(words, "--config", path)
	}
	return outcome.Command(words...)
}

// validateStep is `cassette validate` for the config at path.
func validateStep(path string) string { return withConfig(path, "cassette", "validate") }

// initStep is `cassette init` for a config at path.
func initStep(path string) string { return withConfig(path, "cassette", "init") }
