package normalize

import (
	"strings"
	"testing"
)

func TestJSONPathSelect(t *testing.T) {
	p, err := ParseJSONPath("$.messages[*].content")
	if err != nil {
		t.Fatal(err)
	}
	vals, ok := p.Select([]byte(`{"model":"m","messages":[{"content":"hi"},{"content": {"a" : 1}}]}`))
	if !ok || len(vals) != 2 || string(vals[0]) != `"hi"` || string(vals[1]) != `{"a" : 1}` {
		t.Errorf("%q %v", vals, ok)
	}
	if _, ok := p.Select([]byte("not json")); ok {
		t.Error("selected from text")
	}
	if vals, _ := p.Select([]byte(`{"x":1}`)); len(vals) != 0 {
		t.Errorf("%q", strings.Join(nil, ""))
	}
}
