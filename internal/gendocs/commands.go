package gendocs

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// CommandDir is where the command pages go, below docs/.
const CommandDir = "reference/generated/commands"

// Commands renders a page per command of root's tree that a user can run
// or that groups others (hidden commands and help left out): its help as
// printed, its usage, examples, flags and inherited flags, and links to its
// parent and subcommands. The keys are file names within CommandDir.
func Commands(root *cobra.Command) map[string][]byte {
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	pages := map[string][]byte{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" {
			return
		}
		pages[pageName(c)] = []byte(commandPage(c))
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	return pages
}

func pageName(c *cobra.Command) string {
	return strings.ReplaceAll(c.CommandPath(), " ", "_") + ".md"
}

func commandPage(c *cobra.Command) string {
	var b strings.Builder
	b.WriteString(generated("cassette gendocs", "the cobra command tree of cmd/cassette"))
	fmt.Fprintf(&b, "# %s\n\n%s\n\n", c.CommandPath(), cell(c.Short))
	if long := strings.TrimSpace(c.Long); long != "" {
		fmt.Fprintf(&b, "```text\n%s\n```\n\n", long)
	}
	if c.Runnable() {
		fmt.Fprintf(&b, "## Usage\n\n```text\n%s\n```\n\n", c.UseLine())
	}
	if ex := strings.TrimRight(c.Example, "\n "); ex != "" {
		fmt.Fprintf(&b, "## Examples\n\n```sh\n%s\n```\n\n", dedent(ex))
	}
	if fs := c.NonInheritedFlags(); fs.HasAvailableFlags() {
		fmt.Fprintf(&b, "## Flags\n\n```text\n%s```\n\n", fs.FlagUsages())
	}
	if fs := c.InheritedFlags(); fs.HasAvailableFlags() {
		fmt.Fprintf(&b, "## Flags of every command\n\n```text\n%s```\n\n", fs.FlagUsages())
	}
	var subs []string
	for _, s := range c.Commands() {
		if s.IsAvailableCommand() {
			subs = append(subs, fmt.Sprintf("- [%s](%s): %s\n", s.CommandPath(), pageName(s), cell(s.Short)))
		}
	}
	if len(subs) > 0 {
		b.WriteString("## Commands\n\n" + strings.Join(subs, "") + "\n")
	}
	if p := c.Parent(); p != nil {
		fmt.Fprintf(&b, "See also: [%s](%s).\n", p.CommandPath(), pageName(p))
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// dedent removes the indent every line of s shares.
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	indent := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " \t"))
		if indent < 0 || n < indent {
			indent = n
		}
	}
	for i, l := range lines {
		if len(l) >= indent && indent > 0 {
			lines[i] = l[indent:]
		}
	}
	return strings.Join(lines, "\n")
}
