package cassettes

// The fast reader of an interaction's `websocket:` in the layout Marshal
// writes (fastdecode.go): a mapping of `messages:` (a block sequence of
// mappings, or `[]`) and `close:` (a mapping). Anything else declines, as
// everywhere in the fast reader, and yaml.v3 reads the batch.

// session reads a `websocket:` value below a key at column ki.
func (d *fastDecoder) session(ki int, rest []byte, out **WebSocket) bool {
	if rest != nil {
		return false
	}
	ws := &WebSocket{}
	*out = ws
	return d.nested(ki, func(key []byte, ki int, rest []byte) bool {
		switch string(key) {
		case "messages":
			return d.messages(ki, rest, &ws.Messages)
		case "close":
			ws.Close = &WebSocketClose{}
			return rest == nil && d.nested(ki, func(key []byte, _ int, rest []byte) bool { return d.closeField(ws.Close, key, rest) })
		}
		return false
	})
}

// messages reads a block sequence of messages (or `[]`) below a key at
// column ki.
func (d *fastDecoder) messages(ki int, rest []byte, out *[]WebSocketMessage) bool {
	if string(rest) == "[]" {
		*out = []WebSocketMessage{}
		return true
	}
	return d.items(ki, rest, func(ind int) bool {
		*out = append(*out, WebSocketMessage{})
		m := &(*out)[len(*out)-1]
		return d.mapping(ind+2, true, func(key []byte, ki int, rest []byte) bool { return d.messageField(m, key, ki, rest) })
	})
}

func (d *fastDecoder) messageField(m *WebSocketMessage, key []byte, ki int, rest []byte) bool {
	switch string(key) {
	case "from":
		return d.str(rest, &m.From)
	case "type":
		return d.str(rest, &m.Type)
	case "at":
		return durationValue(rest, &m.At)
	case "data":
		return d.body(ki, rest, &m.Data)
	}
	return false
}

func (d *fastDecoder) closeField(c *WebSocketClose, key, rest []byte) bool {
	switch string(key) {
	case "from":
		return d.str(rest, &c.From)
	case "code":
		return intValue(rest, &c.Code)
	case "reason":
		return d.str(rest, &c.Reason)
	}
	return false
}
