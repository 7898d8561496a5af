package normalize

import "testing"

func TestOmit(t *testing.T) {
	cases := []struct {
		doc   string
		paths []string
		want  string
	}{
		// A member is left out with its key, wherever the query finds it.
		{`{"b":1,"a":{"x":1,"caller":{"type":"direct"}}}`, []string{"$..caller"}, `{"a":{"x":1},"b":1}`},
		// A key the document does not have changes nothing.
		{`{"b":1, "a":2}`, []string{"$.nonce"}, `{"a":2,"b":1}`},
		// Array elements are left out of their array.
		{`[1,2,3]`, []string{"$[1]"}, `[1,3]`},
		{`{"m":[{"c":[{"t":"x","is_error":false},{"t":"y"}]}]}`, []string{"$.m[*].c[*].is_error"}, `{"m":[{"c":[{"t":"x"},{"t":"y"}]}]}`},
		// A query inside a value another query leaves out.
		{`{"a":{"b":1},"c":2}`, []string{"$.a", "$.a.b"}, `{"c":2}`},
		{`{"a":1}`, []string{"$"}, `null`},
		// Numbers keep their text.
		{`{"id":12345678901234567890}`, nil, `{"id":12345678901234567890}`},
	}
	for _, tc := range cases {
		var qs []*JSONPath
		for _, s := range tc.paths {
			q, err := ParseJSONPath(s)
			if err != nil {
				t.Fatal(err)
			}
			qs = append(qs, q)
		}
		got, ok := Omit([]byte(tc.doc), qs)
		if !ok || string(got) != tc.want {
			t.Errorf("Omit(%s, %v) = %s, %v; want %s", tc.doc, tc.paths, got, ok, tc.want)
		}
	}
	if _, ok := Omit([]byte(`{"a":`), nil); ok {
		t.Error("Omit accepted a document that is not JSON")
	}
}
