package normalize

// Select returns the JSON text of every value the query selects in doc, in
// the order of the query's evaluation, each as it is written in doc. ok is
// false when doc is not JSON. Replay matching uses it to compare only some
// paths of a request body.
func (p *JSONPath) Select(doc []byte) (values [][]byte, ok bool) {
	root, err := parseJSON(doc)
	if err != nil {
		return nil, false
	}
	for _, n := range p.selectNodes(root) {
		values = append(values, doc[n.start:n.end])
	}
	return values, true
}
