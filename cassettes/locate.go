package cassettes

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Line returns the 1-based line of a field path in the file the cassette was
// loaded from, such as "interactions[1].response.body" or "output.stdout"
// (yaml names, as in error messages). When the exact field is absent it
// returns the line of the closest existing parent; 0 when nothing is known
// (a cassette built in memory).
func (c *Cassette) Line(field string) int {
	return lineOf(c.node, field)
}

// lineOf walks a document node along a field path.
func lineOf(doc *yaml.Node, field string) int {
	if doc == nil {
		return 0
	}
	n := doc
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	best := n.Line
	for _, step := range splitPath(field) {
		next, keyLine := child(n, step)
		if next == nil {
			if keyLine > 0 {
				return keyLine
			}
			return best
		}
		n = next
		best = n.Line
		if keyLine > 0 {
			best = keyLine
		}
	}
	return best
}

// child returns the node reached by one step (a key or an index) and, for a
// key, the line of the key itself (where an editor should point).
func child(n *yaml.Node, step string) (*yaml.Node, int) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == step {
				return n.Content[i+1], n.Content[i].Line
			}
		}
	case yaml.SequenceNode:
		i, err := strconv.Atoi(step)
		if err == nil && i >= 0 && i < len(n.Content) {
			return n.Content[i], 0
		}
	}
	return nil, 0
}

// splitPath splits "a.b[2].c" into ["a" "b" "2" "c"].
func splitPath(p string) []string {
	var out []string
	for _, part := range strings.Split(p, ".") {
		for part != "" {
			i := strings.IndexByte(part, '[')
			if i < 0 {
				out = append(out, part)
				break
			}
			if i > 0 {
				out = append(out, part[:i])
			}
			j := strings.IndexByte(part[i:], ']')
			if j < 0 {
				out = append(out, part[i+1:])
				break
			}
			out = append(out, part[i+1:i+j])
			part = part[i+j+1:]
		}
	}
	return out
}
