package normalize

// Omit returns doc without the values the queries select, in canonical
// form (object members sorted by key, no insignificant white space,
// numbers as written): a selected object member is left out with its
// key, a selected array element is left out of its array. A document the
// queries select nothing in is still returned canonical. ok is false when
// doc is not JSON. Selecting the root leaves null.
//
// Replay matching uses it to leave paths out of request bodies on both
// sides, so that a key only one side has (a field a newer SDK adds) does
// not make them differ.
func Omit(doc []byte, queries []*JSONPath) (out []byte, ok bool) {
	root, err := parseJSON(doc)
	if err != nil {
		return nil, false
	}
	gone := map[*jsonNode]bool{}
	for _, q := range queries {
		for _, n := range q.selectNodes(root) {
			gone[n] = true
		}
	}
	if gone[root] {
		return []byte("null"), true
	}
	if len(gone) > 0 {
		prune(root, gone)
	}
	return root.writeCanonical(nil), true
}

// prune drops the children of n (and below) that are gone, in place: a
// node's members are its own, so compacting them touches no other node.
func prune(n *jsonNode, gone map[*jsonNode]bool) {
	m := n.mem
	if m == nil {
		return
	}
	kept := 0
	for i, k := range m.kids {
		if gone[k] {
			continue
		}
		prune(k, gone)
		m.kids[kept] = k
		if n.kind == '{' {
			m.keys[kept] = m.keys[i]
		}
		kept++
	}
	m.kids = m.kids[:kept]
	if n.kind == '{' {
		m.keys = m.keys[:kept]
	}
}
