package cassettes

import (
	"hash/crc32"
	"os"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// Line returns the 1-based line of a field path in the file the cassette was
// loaded from, such as "interactions[1].response.body" or "output.stdout"
// (yaml names, as in error messages). When the exact field is absent it
// returns the line of the closest existing parent; 0 when nothing is known
// (a cassette built in memory).
func (c *Cassette) Line(field string) int {
	if c.loc == nil {
		return 0
	}
	return c.loc.line(field)
}

// locator finds lines in a loaded cassette's file. A file parsed whole
// keeps its node tree in head; a file the fast reader decoded whole
// (fasthead.go) keeps its bytes in src and the lines of its top-level keys
// in top, and parses the tree from src the first time a line below the top
// level is asked for; a split file (split.go) keeps the tree of its
// head and where each interaction starts, and parses one interaction again
// when a field inside it is asked for: from the bytes being loaded while
// Parse runs, afterwards from the file, if it still holds those bytes.
type locator struct {
	head  *yaml.Node
	items []item // nil when head holds the whole document
	end   int64  // where the last item ends
	path  string // the file to re-read items from, once data is gone
	data  []byte // the file's bytes, while they are at hand

	src  []byte    // the file the fast reader decoded, while head is not parsed
	top  []keyLine // its top-level keys, in file order
	once sync.Once // parses head from src

	mu     sync.Mutex
	cached int // the item in node, +1 (0: none)
	node   *yaml.Node
}

// tree is the file's node tree (its head, for a split file).
func (l *locator) tree() *yaml.Node {
	if l.src != nil {
		l.once.Do(func() {
			var doc yaml.Node
			if yaml.Unmarshal(l.src, &doc) == nil && len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode {
				l.head = &doc
			}
		})
	}
	return l.head
}

// hasTop reports whether the file has top-level key key.
func (l *locator) hasTop(key string) bool {
	if l.src != nil {
		for _, k := range l.top {
			if k.key == key {
				return true
			}
		}
		return false
	}
	return l.head != nil && len(l.head.Content) > 0 && mappingKey(l.head.Content[0], key) != nil
}

func (l *locator) line(field string) int {
	if l.src != nil {
		for _, k := range l.top {
			if k.key == field {
				return k.line
			}
		}
	}
	steps := splitPath(field)
	if l.items == nil || len(steps) < 2 || steps[0] != "interactions" {
		return lineOf(l.tree(), field)
	}
	i, err := strconv.Atoi(steps[1])
	if err != nil || i < 0 || i >= len(l.items) {
		return lineOf(l.tree(), "interactions")
	}
	it := l.items[i]
	n := l.item(i)
	if n == nil {
		return int(it.line)
	}
	return lineIn(n, steps[2:]) + int(it.line) - 1
}

// item parses interaction i again, or returns nil when its bytes are gone
// or changed.
func (l *locator) item(i int) *yaml.Node {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cached == i+1 {
		return l.node
	}
	it := l.items[i]
	end := l.end
	if i+1 < len(l.items) {
		end = l.items[i+1].off
	}
	var text []byte
	if l.data != nil {
		text = l.data[it.off:end]
	} else {
		text = readAt(l.path, it.off, end-it.off)
	}
	if text == nil || crc32.ChecksumIEEE(text) != it.sum {
		return nil
	}
	var doc yaml.Node
	if yaml.Unmarshal(text, &doc) != nil || len(doc.Content) != 1 || len(doc.Content[0].Content) != 1 {
		return nil
	}
	l.cached, l.node = i+1, doc.Content[0].Content[0]
	return l.node
}

// readAt reads n bytes at off of the regular file path (the cassette a
// FIFO or a device replaced since it was loaded is not read).
func readAt(path string, off, n int64) []byte {
	if path == "" || n < 0 || n > MaxFileBytes {
		return nil
	}
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() || st.Size() < off+n {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, off); err != nil {
		return nil
	}
	return buf
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
	return lineIn(n, splitPath(field))
}

// lineIn walks from node n along steps.
func lineIn(n *yaml.Node, steps []string) int {
	best := n.Line
	for _, step := range steps {
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
