package coverage

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/shimcall"
)

// ShimServer is the Unix socket of one observe run, to which its shims
// (cmd/cassette-shim) send their calls: each is redacted and written
// here, in the observe process, where the token rules and the adapters'
// coverage rules are made once for the whole run, instead of in a
// process started for each call (see shimcall).
//
// A shim that runs its fake in its place does not wait for its line to
// be written, so the order of the lines is kept here: the calls are read
// one after the other, in the order their shims connected, and each is
// written before the next is read (a shim sends its call as soon as it
// connects; one whose fake reads standard input connects again once the
// fake has exited). A call that follows another (the same test, or a
// fake's own call of a shimmed command) connects after it, and so is
// written after it; and Close reads every call that connected before it.
type ShimServer struct {
	ln      net.Listener
	dir     string
	mu      sync.Mutex
	shims   map[string]shimEntry
	cur     net.Conn // the connection being read
	closing bool     // Close has begun: a call is read within closeGrace
	done    chan struct{}
}

type shimEntry struct {
	shim  *Shim
	rules *Rules
	w     *Writer // opened on the first call, closed by Close
}

// maxRequest bounds a shim's line: the argument list and MaxInput bytes of
// standard input, JSON-escaped.
const maxRequest = 8 << 20

// closeGrace is how long Close waits for a call still being sent: a line
// sent whole is read at once, a shim stalled halfway is cut off.
const closeGrace = 250 * time.Millisecond

// sendGrace is how long a shim has to send its call once connected,
// before the calls behind it are read (it writes the call at once).
const sendGrace = 10 * time.Second

// drainMark is the line Close sends behind the calls already connected:
// when serve reads it, every one of them has been answered (a shim's line
// is a JSON object, never empty).
const drainMark = "\n"

// ListenShims opens the socket, in a directory of its own that only this
// user can enter (a socket's path must be short: the system's temporary
// directory, not the project's), and answers on it until Close.
func ListenShims() (*ShimServer, error) {
	dir, err := os.MkdirTemp("", "cassette-observe-")
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("unix", filepath.Join(dir, "shims.sock"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s := &ShimServer{ln: ln, dir: dir, shims: map[string]shimEntry{}, done: make(chan struct{})}
	go s.serve()
	return s, nil
}

// Socket is the socket's path, for Spec.Socket.
func (s *ShimServer) Socket() string { return s.ln.Addr().String() }

// Add answers the calls of shim's adapter.
func (s *ShimServer) Add(shim *Shim) {
	rules, _ := NewRules(&cfgschema.Adapter{Kind: cfgschema.KindCLI, Coverage: shim.Coverage})
	s.mu.Lock()
	s.shims[shim.Adapter] = shimEntry{shim: shim, rules: rules}
	s.mu.Unlock()
}

// Close writes every call sent before it (the shims that ran their fake
// without waiting: none is lost when the observe run ends), then stops
// answering and removes the socket. A shim stalled halfway through its
// call is cut off after closeGrace, and told its call was not written,
// instead of holding observe open.
func (s *ShimServer) Close() {
	s.mu.Lock()
	s.closing = true
	if s.cur != nil {
		_ = s.cur.SetReadDeadline(time.Now().Add(closeGrace))
	}
	s.mu.Unlock()
	// The mark connects after every call already connected: serve stops
	// once it has read them all.
	if c, err := net.Dial("unix", s.Socket()); err == nil {
		_, _ = io.WriteString(c, drainMark)
		select {
		case <-s.done:
		case <-time.After(10 * closeGrace): // serve gone: nothing to wait for
		}
		c.Close()
	}
	s.ln.Close()
	<-s.done
	os.RemoveAll(s.dir)
	for _, e := range s.shims {
		if e.w != nil {
			e.w.Close()
		}
	}
}

func (s *ShimServer) serve() {
	defer close(s.done)
	for {
		conn, err := s.ln.Accept()
		if err != nil {
			return
		}
		if s.answer(conn) {
			return
		}
	}
}

// answer reads one call from conn, writes it and answers (the shim that
// waits reads it); it says whether conn was Close's mark.
func (s *ShimServer) answer(conn net.Conn) (mark bool) {
	defer conn.Close()
	s.mu.Lock()
	s.cur = conn
	// A shim sends its call as soon as it connects: one stopped halfway
	// (a suspended test process) would hold every later call, so it has
	// sendGrace, and closeGrace once Close has begun.
	grace := sendGrace
	if s.closing {
		grace = closeGrace
	}
	_ = conn.SetReadDeadline(time.Now().Add(grace))
	s.mu.Unlock()
	line, err := bufio.NewReader(io.LimitReader(conn, maxRequest)).ReadBytes('\n')
	s.mu.Lock()
	s.cur = nil
	s.mu.Unlock()
	switch {
	case len(line) == 0: // a shim that found observe here and sent nothing on this connection
		return false
	case string(line) == drainMark:
		return true
	}
	answer := "ok"
	if err != nil {
		answer = "error: reading the call: " + err.Error()
	} else if err := s.handle(line); err != nil {
		answer = "error: " + err.Error()
	}
	if _, werr := io.WriteString(conn, answer+"\n"); werr != nil && answer != "ok" {
		// The shim ran its fake without waiting: observe says it.
		fmt.Fprintln(os.Stderr, "cassette observe: a call was not observed: "+strings.TrimPrefix(answer, "error: "))
	}
	return false
}

// handle writes the call of one line.
func (s *ShimServer) handle(line []byte) error {
	var req shimcall.Request
	if err := json.Unmarshal(line, &req); err != nil {
		return fmt.Errorf("reading the call: %w", err)
	}
	s.mu.Lock()
	e, ok := s.shims[req.Adapter]
	var err error
	if ok && e.w == nil {
		if e.w, err = e.shim.OpenWriter(); err == nil {
			s.shims[req.Adapter] = e
		}
	}
	s.mu.Unlock()
	switch {
	case !ok:
		return errors.New("no shim of adapter " + strings.ReplaceAll(req.Adapter, "\n", " ") + " in this observe run")
	case err != nil:
		return err
	}
	return e.shim.Record(req, e.rules, e.w)
}
