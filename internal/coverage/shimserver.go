package coverage

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/shimcall"
)

// ShimServer is the Unix socket of one observe run, to which its shims
// (cmd/cassette-shim) send their calls: each is redacted and written
// here, in the observe process, where the token rules and the adapters'
// coverage rules are made once for the whole run, instead of in a
// process started for each call (see shimcall).
type ShimServer struct {
	ln     net.Listener
	dir    string
	mu     sync.Mutex
	shims  map[string]shimEntry
	conns  map[net.Conn]bool // the connections being answered
	closed bool              // Close has begun: no connection is answered any more
	wg     sync.WaitGroup
}

type shimEntry struct {
	shim  *Shim
	rules *Rules
	w     *Writer // opened on the first call, closed by Close
}

// maxRequest bounds a shim's line: the argument list and MaxInput bytes of
// standard input, JSON-escaped.
const maxRequest = 8 << 20

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
	s := &ShimServer{ln: ln, dir: dir, shims: map[string]shimEntry{}, conns: map[net.Conn]bool{}}
	s.wg.Add(1)
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

// Close stops answering and removes the socket. A call being written is
// written; a shim still waiting to send its call (its fake, which reads
// standard input, still running after the test command ended) is cut
// off, and says that its call was not observed, instead of holding
// observe open.
func (s *ShimServer) Close() {
	s.ln.Close()
	s.mu.Lock()
	s.closed = true // a call accepted from now on is cut off at once (serve)
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	os.RemoveAll(s.dir)
	for _, e := range s.shims {
		if e.w != nil {
			e.w.Close()
		}
	}
}

func (s *ShimServer) serve() {
	defer s.wg.Done()
	for {
		conn, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		if s.closed { // accepted while Close went through conns
			s.mu.Unlock()
			conn.Close()
			continue
		}
		s.conns[conn] = true
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			answer := "ok"
			if err := s.handle(conn); err != nil {
				answer = "error: " + err.Error()
			}
			_, _ = io.WriteString(conn, answer+"\n")
			s.mu.Lock()
			delete(s.conns, conn)
			s.mu.Unlock()
			conn.Close()
		}()
	}
}

// handle reads one call and writes it. A shim whose fake reads standard
// input sends its call once the fake has exited: no deadline.
func (s *ShimServer) handle(conn net.Conn) error {
	var req shimcall.Request
	if err := json.NewDecoder(io.LimitReader(conn, maxRequest)).Decode(&req); err != nil {
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
