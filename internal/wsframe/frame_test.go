package wsframe

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"
)

// stream is a connection's bytes: a text message in three fragments with a
// ping between them, a 70,000-byte binary message (64-bit length), a
// 200-byte one (16-bit length), and a close frame.
func stream(masked bool) ([]byte, []Message) {
	big := bytes.Repeat([]byte{0, 1, 2, 0xFF}, 70000/4)
	mid := bytes.Repeat([]byte("x"), 200)
	var b []byte
	b = AppendFrame(b, Frame{Op: Text, Payload: []byte("hel")}, masked)
	b = AppendFrame(b, Frame{Op: Ping, Fin: true, Payload: []byte("p")}, masked)
	b = AppendFrame(b, Frame{Op: Continuation, Payload: []byte("lo, ")}, masked)
	b = AppendFrame(b, Frame{Op: Continuation, Fin: true, Payload: []byte("wörld")}, masked)
	b = AppendFrame(b, Frame{Op: Binary, Fin: true, Payload: big}, masked)
	b = AppendFrame(b, Frame{Op: Binary, Fin: true, Payload: mid}, masked)
	b = AppendFrame(b, Frame{Op: Close, Fin: true, Payload: CloseData(1000, "bye")}, masked)
	return b, []Message{{Ping, []byte("p")}, {Text, []byte("hello, wörld")}, {Binary, big}, {Binary, mid}, {Close, CloseData(1000, "bye")}}
}

func TestReaderAndTapAgree(t *testing.T) {
	for _, masked := range []bool{false, true} {
		data, want := stream(masked)
		r := NewReader(bytes.NewReader(data), 1<<20)
		var got []Message
		for {
			m, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, m)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("masked=%v: Reader read %d messages, want %d", masked, len(got), len(want))
		}
		// The tap sees the same messages whatever the relay's chunks are.
		for _, chunk := range []int{1, 3, 7, 4096, len(data)} {
			var tapped []Message
			tap := NewTap(1<<20, func(m Message) { tapped = append(tapped, m) })
			for i := 0; i < len(data); i += chunk {
				if n, err := tap.Write(data[i:min(i+chunk, len(data))]); err != nil || n != min(chunk, len(data)-i) {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if tap.Err() != nil || !reflect.DeepEqual(tapped, want) {
				t.Fatalf("masked=%v chunk=%d: tap read %d messages (err %v), want %d", masked, chunk, len(tapped), tap.Err(), len(want))
			}
		}
	}
}

func TestLimits(t *testing.T) {
	data := AppendFrame(nil, Frame{Op: Binary, Fin: true, Payload: make([]byte, 1000)}, true)
	if _, err := NewReader(bytes.NewReader(data), 999).Next(); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Reader over its limit: %v, want ErrTooLarge", err)
	}
	tap := NewTap(999, func(Message) { t.Error("a message over the limit was handed out") })
	_, _ = tap.Write(data[:20]) // the header alone says it is too large
	if !errors.Is(tap.Err(), ErrTooLarge) {
		t.Errorf("Tap over its limit: %v, want ErrTooLarge", tap.Err())
	}
	deflated := []byte{0xC1, 0x01, 'x'} // RSV1: permessage-deflate
	if _, err := NewReader(bytes.NewReader(deflated), 10).Next(); err == nil {
		t.Error("a compressed frame was read as plain")
	}
	cut := AppendFrame(nil, Frame{Op: Text, Fin: true, Payload: []byte("hello")}, false)[:4]
	if _, err := NewReader(bytes.NewReader(cut), 10).Next(); err != io.ErrUnexpectedEOF {
		t.Errorf("a frame cut short: %v, want io.ErrUnexpectedEOF", err)
	}
}

func TestAcceptKeyAndClose(t *testing.T) {
	// RFC 6455 §1.3's example.
	if got := AcceptKey("dGhlIHNhbXBsZSBub25jZQ=="); got != "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" {
		t.Errorf("AcceptKey = %q", got)
	}
	long := string(bytes.Repeat([]byte("é"), 100))
	code, reason := ParseClose(CloseData(4599, long))
	if code != 4599 || len(reason) > 123 || !bytes.HasPrefix([]byte(long), []byte(reason)) {
		t.Errorf("ParseClose(CloseData) = %d, %d bytes", code, len(reason))
	}
	if code, _ := ParseClose(CloseData(0, "x")); code != 0 {
		t.Errorf("no status: code %d", code)
	}
}

// FuzzTap: whatever the bytes, the tap never panics, and what it hands
// out equals what the Reader reads from the same bytes.
func FuzzTap(f *testing.F) {
	data, _ := stream(true)
	f.Add(data[:300], 5)
	f.Add([]byte{0x81, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 0}, 1)
	f.Fuzz(func(t *testing.T, data []byte, chunk int) {
		if chunk <= 0 {
			chunk = 1
		}
		var tapped []Message
		tap := NewTap(1<<16, func(m Message) { tapped = append(tapped, m) })
		for i := 0; i < len(data); i += chunk {
			_, _ = tap.Write(data[i:min(i+chunk, len(data))])
		}
		r := NewReader(bytes.NewReader(data), 1<<16)
		for i := 0; i < len(tapped); i++ {
			m, err := r.Next()
			if err != nil || !reflect.DeepEqual(m, tapped[i]) {
				t.Fatalf("message %d: tap %v, reader %v (%v)", i, tapped[i], m, err)
			}
		}
	})
}
