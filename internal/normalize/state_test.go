package normalize

import (
	"bytes"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// TestNumbersSurviveGrowth: the numbers a State gave stay the values'
// through the growth of its table, and new values get the next ones.
func TestNumbersSurviveGrowth(t *testing.T) {
	st := NewState()
	for i := range 5000 {
		if n := st.Number("id", strconv.Itoa(i*7919)); n != i+1 {
			t.Fatalf("value %d numbered %d, want %d", i, n, i+1)
		}
	}
	for i := range 5000 {
		if n := st.Number("id", strconv.Itoa(i*7919)); n != i+1 {
			t.Fatalf("value %d renumbered %d, want %d", i, n, i+1)
		}
	}
	if n := st.Number("id", "new"); n != 5001 {
		t.Errorf("a new value after 5000: %d", n)
	}
	if n := st.Number("other", "0"); n != 1 {
		t.Errorf("another kind starts at %d", n)
	}
	if got := st.Values()["id"][4321]; got != strconv.Itoa(4320*7919) {
		t.Errorf("Values()[id][4321] = %q", got)
	}
}

// TestStateKeepsCopies: the values a State numbers (by Number and as
// SHAs, of every size, many enough to fill several of its blocks) are its
// own copies: reusing the bytes they came from changes none of them, and
// none is written over by a later one.
func TestStateKeepsCopies(t *testing.T) {
	st := NewState()
	buf := make([]byte, 40<<10)
	want := map[string]map[int]string{"id": {}, "sha": {}}
	for i := range 3000 {
		v := strings.Repeat(strconv.Itoa(i), 1+i%7)
		kind := "id"
		if i == 1500 {
			v = strings.Repeat("x", 32<<10) // larger than a block
		}
		if i%3 == 0 {
			kind, v = "sha", fmt.Sprintf("%040x", i*7919)
		}
		n := copy(buf, v)
		in := unsafe.String(&buf[0], n) // a body the caller will reuse
		if kind == "sha" {
			st.sha(in)
		} else {
			st.Number(kind, in)
		}
		want[kind][len(want[kind])+1] = v
		for j := range n {
			buf[j] = '#'
		}
	}
	if got := st.Values(); !reflect.DeepEqual(got, want) {
		for kind := range want {
			for n, v := range want[kind] {
				if got[kind][n] != v {
					t.Fatalf("%s %d is %.40q, want %.40q", kind, n, got[kind][n], v)
				}
			}
		}
		t.Fatalf("Values() = %v", got)
	}
}

// FuzzIDTableIsAMap: a kind's table numbers values as a map[string]int
// would, through its growth, for values that share their hashes' low bits
// or not (the input's bytes are the values, a byte's low bits their length).
func FuzzIDTableIsAMap(f *testing.F) {
	f.Add([]byte("abcabcdefgh\x00\x01\xff"), 3)
	f.Add(bytes.Repeat([]byte{1, 2, 3, 4, 5, 6, 7}, 300), 1)
	f.Fuzz(func(t *testing.T, in []byte, width int) {
		width = 1 + width&7
		var k kindIDs
		want := map[string]int{}
		for i := 0; i+width <= len(in) || i < len(in); i += width {
			v := string(in[i:min(len(in), i+width)])
			n, ok := k.get(v)
			if w, wok := want[v]; ok != wok || n != w {
				t.Fatalf("get(%q) = %d, %v; a map has %d, %v", v, n, ok, w, wok)
			}
			if !ok {
				n, ok, h, slot := k.find(v)
				if ok || n != 0 {
					t.Fatalf("find(%q) after get missed: %d, %v", v, n, ok)
				}
				want[v] = len(want) + 1
				k.put(v, h, slot, len(want))
			}
		}
		for v, w := range want {
			if n, ok := k.get(v); !ok || n != w {
				t.Fatalf("get(%q) at the end = %d, %v, want %d", v, n, ok, w)
			}
		}
		if len(k.entries) != len(want) {
			t.Fatalf("%d entries for %d values", len(k.entries), len(want))
		}
	})
}

// TestIDTableIsAMap: many values, enough to grow the table many times.
func TestIDTableIsAMap(t *testing.T) {
	var k kindIDs
	for i := range 100000 {
		v := strconv.Itoa(i * 7919)
		if _, ok := k.get(v); ok {
			t.Fatalf("%s found before it was put", v)
		}
		_, _, h, slot := k.find(v)
		k.put(v, h, slot, i+1)
	}
	for i := range 100000 {
		if n, ok := k.get(strconv.Itoa(i * 7919)); !ok || n != i+1 {
			t.Fatalf("value %d: %d, %v", i, n, ok)
		}
	}
	if len(k.index) > 4*len(k.entries) || 2*len(k.entries) > len(k.index) {
		t.Errorf("index of %d slots for %d entries", len(k.index), len(k.entries))
	}
}

// TestPlaceholdersStay: the placeholders a State writes into its blocks,
// enough to fill several, stay as they were written while it numbers more
// values and writes more placeholders, in a clone too.
func TestPlaceholdersStay(t *testing.T) {
	st := NewState()
	var got []string
	for i := range 20000 {
		if i == 10000 {
			st = st.Clone()
		}
		got = append(got, st.Placeholder("id", strconv.Itoa(i)), st.placeholder("sha", st.sha(fmt.Sprintf("%040x", i)), ":short"))
	}
	for i := range 20000 {
		if want := "<id:" + strconv.Itoa(i+1) + ">"; got[2*i] != want {
			t.Fatalf("placeholder %d is %q, want %q", i, got[2*i], want)
		}
		if want := "<sha:" + strconv.Itoa(i+1) + ":short>"; got[2*i+1] != want {
			t.Fatalf("sha placeholder %d is %q, want %q", i, got[2*i+1], want)
		}
	}
}

// FuzzToLower: toLower gives what strings.ToLower gives.
func FuzzToLower(f *testing.F) {
	for _, s := range []string{"", "9f1c3a2e-1b7d-4c8e-9a55-0d1e2f3a4b5c", "9F1C3A2E-1B7D-4C8E-9A55-0D1E2F3A4B5C", "6dcb09b5b57875f334f61aebed695e2e4193db5Z",
		"@[`{", "abcdefgh@", "abcdefghZ", "ẞig", "\xff\x80abcdefgh", "AAAAAAAA", "zzzzzzzz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := toLower(s), strings.ToLower(s); got != want {
			t.Fatalf("toLower(%q) = %q; strings.ToLower gives %q", s, got, want)
		}
	})
}

// TestShortSHAFindsTheFirstFull: an abbreviation shares the number of the
// first full SHA it abbreviates, whether the fulls came before its first
// lookup or between two lookups, and a full SHA after its abbreviation
// shares the abbreviation's.
func TestShortSHAFindsTheFirstFull(t *testing.T) {
	st := NewState()
	a, b := "abcdef1"+strings.Repeat("0", 33), "abcdef1"+strings.Repeat("1", 33)
	if st.sha(a) != 1 || st.sha(b) != 2 || st.sha("abcdef1") != 1 {
		t.Fatalf("the first full: %v", stateView(st))
	}
	c, d := "1234567"+strings.Repeat("2", 33), "1234567"+strings.Repeat("3", 33)
	if st.sha(c) != 3 || st.sha(d) != 4 || st.sha("1234567") != 3 || st.sha("12345672") != 3 {
		t.Fatalf("fulls between two lookups: %v", stateView(st))
	}
	if st.sha("9876543") != 5 || st.sha("9876543"+strings.Repeat("4", 33)) != 5 {
		t.Fatalf("a full after its abbreviation: %v", stateView(st))
	}
	if c := st.Clone(); c.sha("fedcba9"+strings.Repeat("5", 33)) != 6 || c.sha("fedcba95") != 6 || c.sha("abcdef10") != 1 {
		t.Fatalf("in a clone: %v", stateView(c))
	}
}
