package main

import (
	"fmt"
	"strings"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/spf13/cobra"
)

// usageKind says which mistake in calling cassette a usageError is.
type usageKind string

// The kinds of usage errors, each made where cobra finds it.
const (
	unknownCommand usageKind = "unknown command"   // a word that is no subcommand
	badFlag        usageKind = "bad flag"          // unknown flag, flag without its value, value that does not parse
	badArgs        usageKind = "bad arguments"     // the wrong number of arguments
	missingFlag    usageKind = "missing flag"      // a required flag not given
	flagGroup      usageKind = "flags in conflict" // flags that go together, or exclude each other
)

// usageError is a mistake in how a command was called: exit 2, E_USAGE,
// and the next step is that command's --help. Each is made typed where
// cobra detects it (typeUsageErrors), so that Main never reads cobra's
// message text.
type usageError struct {
	kind usageKind
	cmd  *cobra.Command // the command that was called
	err  error          // cobra's or pflag's error
	// problem, when set, says more than the message (the subcommand
	// nearest to an unknown one).
	problem *outcome.Problem
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// asError is the error Main prints.
func (e *usageError) asError() *outcome.Error {
	ce := &outcome.Error{Reason: outcome.EUsage, Message: e.err.Error(), NextStep: outcome.Command(append(strings.Fields(e.cmd.CommandPath()), "--help")...)}
	if e.problem != nil {
		ce.Problems = []outcome.Problem{*e.problem}
	}
	return ce
}

// typeUsageErrors makes every usage error of the command tree under root a
// usageError at its source: flag parsing (SetFlagErrorFunc, inherited by
// every command), positional arguments (each command's Args validator,
// wrapped), unknown subcommands (a group command validates its arguments
// as subcommand names, and shows its help when called alone), required
// flags and flag groups (checked before the command runs). Call it once
// every command, help and completion included, is added.
func typeUsageErrors(root *cobra.Command) {
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &usageError{kind: badFlag, cmd: c, err: err}
	})
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		switch {
		case c.HasSubCommands():
			c.Args = subcommandArgs
			if !c.Runnable() {
				c.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
			}
		case c.Args != nil:
			c.Args = typedArgs(c.Args)
		}
		if c.Runnable() {
			c.PreRunE = checkFlags(c.PreRunE)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// subcommandArgs accepts no argument on a group command: a word there is
// a subcommand that does not exist.
func subcommandArgs(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	e := &usageError{kind: unknownCommand, cmd: c, err: fmt.Errorf("unknown command %q for %q", args[0], c.CommandPath())}
	if c.SuggestionsMinimumDistance <= 0 {
		c.SuggestionsMinimumDistance = 2 // cobra's own default, set only when it prints
	}
	if s := c.SuggestionsFor(args[0]); len(s) > 0 {
		e.problem = &outcome.Problem{Field: "command", Message: fmt.Sprintf("%q is not a command of %s", args[0], c.CommandPath()),
			Suggestion: fmt.Sprintf("did you mean `%s %s`?", c.CommandPath(), s[0])}
	}
	return e
}

// typedArgs wraps a command's argument validator.
func typedArgs(validate cobra.PositionalArgs) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if err := validate(c, args); err != nil {
			return &usageError{kind: badArgs, cmd: c, err: err}
		}
		return nil
	}
}

// checkFlags checks the required flags and the flag groups before next
// (cobra checks them after PreRunE, untyped; once checked here, its own
// checks pass).
func checkFlags(next func(*cobra.Command, []string) error) func(*cobra.Command, []string) error {
	return func(c *cobra.Command, args []string) error {
		if err := c.ValidateRequiredFlags(); err != nil {
			return &usageError{kind: missingFlag, cmd: c, err: err}
		}
		if err := c.ValidateFlagGroups(); err != nil {
			return &usageError{kind: flagGroup, cmd: c, err: err}
		}
		if next != nil {
			return next(c, args)
		}
		return nil
	}
}
