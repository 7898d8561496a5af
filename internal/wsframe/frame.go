package wsframe

import (
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// Opcode is a frame's type (RFC 6455 §5.2).
type Opcode byte

// The opcodes.
const (
	Continuation Opcode = 0x0
	Text         Opcode = 0x1
	Binary       Opcode = 0x2
	Close        Opcode = 0x8
	Ping         Opcode = 0x9
	Pong         Opcode = 0xA
)

// IsControl reports whether op is a control frame's (close, ping, pong).
func (op Opcode) IsControl() bool { return op&0x8 != 0 }

func (op Opcode) String() string {
	switch op {
	case Continuation:
		return "continuation"
	case Text:
		return "text"
	case Binary:
		return "binary"
	case Close:
		return "close"
	case Ping:
		return "ping"
	case Pong:
		return "pong"
	}
	return fmt.Sprintf("opcode %#x", byte(op))
}

// Frame is one frame, unmasked.
type Frame struct {
	Fin     bool
	Op      Opcode
	Payload []byte
}

// ErrTooLarge is the error of a message over a reader's limit.
var ErrTooLarge = errors.New("websocket: message too large")

// header parses a frame header at the start of b: the opcode and flags,
// the mask key (zero when unmasked) and the payload length; n is the
// header's size, 0 when b does not hold all of it yet.
func header(b []byte) (fin bool, op Opcode, masked bool, key [4]byte, length uint64, n int, err error) {
	if len(b) < 2 {
		return
	}
	fin, op = b[0]&0x80 != 0, Opcode(b[0]&0x0F)
	if b[0]&0x70 != 0 {
		err = fmt.Errorf("websocket: reserved bits set (%#x): an extension (permessage-deflate?) that was not negotiated", b[0]&0x70)
		return
	}
	masked = b[1]&0x80 != 0
	length, n = uint64(b[1]&0x7F), 2
	switch length {
	case 126:
		if len(b) < 4 {
			return fin, op, masked, key, 0, 0, nil
		}
		length, n = uint64(binary.BigEndian.Uint16(b[2:])), 4
	case 127:
		if len(b) < 10 {
			return fin, op, masked, key, 0, 0, nil
		}
		length, n = binary.BigEndian.Uint64(b[2:]), 10
		if length>>63 != 0 {
			err = errors.New("websocket: frame length has its most significant bit set")
			return
		}
	}
	if op.IsControl() && (length > 125 || !fin) {
		err = fmt.Errorf("websocket: %s frame fragmented or over 125 bytes", op)
		return
	}
	if masked {
		if len(b) < n+4 {
			return fin, op, masked, key, 0, 0, nil
		}
		copy(key[:], b[n:n+4])
		n += 4
	}
	return fin, op, masked, key, length, n, nil
}

func unmask(b []byte, key [4]byte, pos int) {
	for i := range b {
		b[i] ^= key[(pos+i)&3]
	}
}

// ReadFrame reads one frame from r, unmasking its payload; a payload over
// max bytes is ErrTooLarge.
func ReadFrame(r io.Reader, max int64) (Frame, error) {
	var buf [14]byte
	if _, err := io.ReadFull(r, buf[:2]); err != nil {
		return Frame{}, err
	}
	need := 2
	switch buf[1] & 0x7F {
	case 126:
		need += 2
	case 127:
		need += 8
	}
	if buf[1]&0x80 != 0 {
		need += 4
	}
	if _, err := io.ReadFull(r, buf[2:need]); err != nil {
		return Frame{}, unexpected(err)
	}
	fin, op, masked, key, length, _, err := header(buf[:need])
	if err != nil {
		return Frame{}, err
	}
	if length > uint64(max) {
		return Frame{}, ErrTooLarge
	}
	f := Frame{Fin: fin, Op: op}
	if length > 0 { // an empty payload is nil, as Tap hands it out
		f.Payload = make([]byte, length)
	}
	if _, err := io.ReadFull(r, f.Payload); err != nil {
		return Frame{}, unexpected(err)
	}
	if masked {
		unmask(f.Payload, key, 0)
	}
	return f, nil
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// WriteFrame writes f as one frame in one Write; masked is true for a
// client's frames (RFC 6455 §5.3: a random key each).
func WriteFrame(w io.Writer, f Frame, masked bool) error {
	b := AppendFrame(nil, f, masked)
	_, err := w.Write(b)
	return err
}

// AppendFrame appends the bytes of f to b.
func AppendFrame(b []byte, f Frame, masked bool) []byte {
	first := byte(f.Op)
	if f.Fin {
		first |= 0x80
	}
	var mbit byte
	if masked {
		mbit = 0x80
	}
	n := len(f.Payload)
	switch {
	case n < 126:
		b = append(b, first, mbit|byte(n))
	case n <= 0xFFFF:
		b = append(b, first, mbit|126)
		b = binary.BigEndian.AppendUint16(b, uint16(n))
	default:
		b = append(b, first, mbit|127)
		b = binary.BigEndian.AppendUint64(b, uint64(n))
	}
	if !masked {
		return append(b, f.Payload...)
	}
	var key [4]byte
	_, _ = rand.Read(key[:])
	b = append(b, key[:]...)
	start := len(b)
	b = append(b, f.Payload...)
	unmask(b[start:], key, 0)
	return b
}

// Message is a whole data message (Text or Binary, its fragments joined)
// or one control frame (Close, Ping, Pong).
type Message struct {
	Op   Opcode
	Data []byte
}

// Reader reads messages from a stream of frames.
type Reader struct {
	r   io.Reader
	max int64
	msg Message // the fragments of a data message read so far
}

// NewReader reads from r; a message over max bytes is ErrTooLarge.
func NewReader(r io.Reader, max int64) *Reader { return &Reader{r: r, max: max} }

// Next returns the next data message, or the next control frame when one
// comes first (between the fragments of a data message too).
func (r *Reader) Next() (Message, error) {
	for {
		f, err := ReadFrame(r.r, r.max-int64(len(r.msg.Data)))
		if err != nil {
			return Message{}, err
		}
		if f.Op.IsControl() {
			return Message{Op: f.Op, Data: f.Payload}, nil
		}
		if r.msg, err = assemble(r.msg, f); err != nil {
			return Message{}, err
		}
		if f.Fin {
			m := r.msg
			r.msg = Message{}
			return m, nil
		}
	}
}

// Tap reads the messages out of one direction of a connection whose bytes
// are relayed unchanged: each Write hands it the next bytes, and each
// whole message or control frame goes to the callback as it completes.
// A Write never fails (the relay goes on); the first framing error stops
// the Tap and is kept (Err).
type Tap struct {
	max int64
	on  func(Message)
	buf []byte
	msg Message
	err error
}

// NewTap returns a Tap that hands each message to on; a message over max
// bytes is ErrTooLarge.
func NewTap(max int64, on func(Message)) *Tap { return &Tap{max: max, on: on} }

// Err is the framing error that stopped the Tap, nil while it reads.
func (t *Tap) Err() error { return t.err }

// Write takes the next relayed bytes.
func (t *Tap) Write(b []byte) (int, error) {
	if t.err != nil {
		return len(b), nil
	}
	t.buf = append(t.buf, b...)
	for t.err == nil {
		fin, op, masked, key, length, n, err := header(t.buf)
		switch {
		case err != nil:
			t.err = err
		case n == 0:
			return len(b), nil
		case length > uint64(t.max-int64(len(t.msg.Data))):
			t.err = ErrTooLarge
		case uint64(len(t.buf)-n) < length:
			return len(b), nil
		default:
			payload := append([]byte(nil), t.buf[n:n+int(length)]...)
			if masked {
				unmask(payload, key, 0)
			}
			t.buf = append(t.buf[:0], t.buf[n+int(length):]...)
			t.frame(Frame{Fin: fin, Op: op, Payload: payload})
		}
	}
	t.buf = nil
	return len(b), nil
}

func (t *Tap) frame(f Frame) {
	if f.Op.IsControl() {
		t.on(Message{Op: f.Op, Data: f.Payload})
		return
	}
	var err error
	if t.msg, err = assemble(t.msg, f); err != nil {
		t.err = err
		return
	}
	if f.Fin {
		m := t.msg
		t.msg = Message{}
		t.on(m)
	}
}

// assemble adds data frame f to the message being read.
func assemble(msg Message, f Frame) (Message, error) {
	switch {
	case f.Op == Continuation && msg.Op == 0:
		return msg, errors.New("websocket: continuation frame without a message to continue")
	case f.Op != Continuation && msg.Op != 0:
		return msg, fmt.Errorf("websocket: %s frame inside a fragmented message", f.Op)
	case f.Op != Continuation && f.Op != Text && f.Op != Binary:
		return msg, fmt.Errorf("websocket: unknown %s", f.Op)
	case f.Op != Continuation:
		msg.Op = f.Op
	}
	msg.Data = append(msg.Data, f.Payload...)
	return msg, nil
}

// acceptGUID is RFC 6455's constant for the accept key.
const acceptGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

// AcceptKey is the Sec-WebSocket-Accept a server answers the client's
// Sec-WebSocket-Key with.
func AcceptKey(key string) string {
	h := sha1.Sum([]byte(key + acceptGUID))
	return base64.StdEncoding.EncodeToString(h[:])
}

// NewKey is a fresh Sec-WebSocket-Key for a client's handshake.
func NewKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base64.StdEncoding.EncodeToString(b[:])
}

// CloseData is the payload of a close frame: the status code and the
// reason, cut to fit 125 bytes on a character boundary. Code 0 is an empty
// payload (no status).
func CloseData(code int, reason string) []byte {
	if code == 0 {
		return nil
	}
	for len(reason) > 123 {
		_, size := utf8.DecodeLastRuneInString(reason)
		reason = reason[:len(reason)-size]
	}
	b := binary.BigEndian.AppendUint16(nil, uint16(code))
	return append(b, reason...)
}

// ParseClose reads a close frame's payload: code 0 when it has none
// (RFC 6455's 1005, "no status received").
func ParseClose(data []byte) (code int, reason string) {
	if len(data) < 2 {
		return 0, ""
	}
	return int(binary.BigEndian.Uint16(data)), string(data[2:])
}
