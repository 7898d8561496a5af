package cassettes

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// What a cassette, a config or a sidecar may be. A pull request that adds
// one file must not be able to hang CI (a FIFO), exhaust its memory
// (/dev/zero, a sparse 10 GB file) or make it read a file outside the
// project (a symlink, ../ in body_file):
//
//   - cassettes and cassette.yaml are read only when they are regular files
//     (a symlink is resolved and must stay within the project: the config's
//     directory, or the cassette's own directory without a config), and
//     only up to MaxFileBytes;
//   - a body_file is exactly bodies/sha256-<64 hex>.bin, next to its
//     cassette, a regular file (not a symlink) of at most maxBodyFileBytes;
//   - `cassettes:` in cassette.yaml is a relative path inside the project.
const (
	// MaxFileBytes bounds a cassette or config file: large bodies belong in
	// sidecar files.
	MaxFileBytes = 64 << 20
	// maxBodyFileBytes bounds one sidecar body.
	maxBodyFileBytes = 512 << 20
)

// sidecarRe is the only form a body_file takes (what Save writes).
var sidecarRe = regexp.MustCompile(`^` + sidecarDir + `/sha256-[0-9a-f]{64}\.bin$`)

// readRegular reads a cassette or config file: it must be a regular file
// (a symlink is followed only when its target is a regular file inside
// root; root "" accepts any target) of at most limit bytes. The returned
// problem, when not nil, says what the path is instead; err is an I/O error
// (fs.ErrNotExist included) for the caller's own message.
func readRegular(path, root string, limit int64) ([]byte, *outcome.Problem, error) {
	if noFollow != 0 { // not a symlink when this opens: no lstat first (a tenth of loading a small cassette)
		if f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|noFollow, 0); err == nil {
			data, st, err := readOpen(f, limit)
			f.Close()
			return regularProblem(path, data, st, limit, err)
		}
	}
	st, err := os.Lstat(path)
	if err != nil {
		return nil, nil, err
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		target, err := filepath.EvalSymlinks(path)
		if err != nil {
			return nil, &outcome.Problem{File: path, Line: 1, Message: "the file is a symlink whose target cannot be resolved: " + err.Error(),
				Suggestion: "commit the file itself, not a symlink"}, nil
		}
		if root != "" && !within(root, target) {
			return nil, &outcome.Problem{File: path, Line: 1, Message: "the file is a symlink to " + target + ", outside the project " + root,
				Expected: "a regular file inside the project", Suggestion: "commit the file itself, not a symlink"}, nil
		}
	}
	data, st, err := readNoBlock(path, limit)
	return regularProblem(path, data, st, limit, err)
}

// regularProblem is readRegular's verdict on what readNoBlock or readOpen
// returned.
func regularProblem(path string, data []byte, st fs.FileInfo, limit int64, err error) ([]byte, *outcome.Problem, error) {
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &outcome.Problem{File: path, Line: 1, Message: "not a regular file (" + fileKind(st.Mode()) + "); it is not read",
			Expected: "a regular file", Suggestion: "remove it: rm " + path}, nil
	}
	if st.Size() > limit {
		return nil, &outcome.Problem{File: path, Line: 1, Message: fmt.Sprintf("the file is %d bytes, more than the %d a cassette or config may have", st.Size(), limit),
			Expected: "large bodies in sidecar files (bodies/), written by cassette record"}, nil
	}
	if int64(len(data)) > limit {
		return nil, &outcome.Problem{File: path, Line: 1, Message: fmt.Sprintf("the file is more than %d bytes", limit)}, nil
	}
	return data, nil, nil
}

// readSidecar reads one body_file of the cassette at path.
func readSidecar(path, ref string, limit int64) ([]byte, string) {
	if !sidecarRe.MatchString(ref) {
		return nil, "body_file " + strconvQuote(ref) + " is not a sidecar of this cassette"
	}
	p := filepath.Join(filepath.Dir(path), filepath.FromSlash(ref))
	st, err := os.Lstat(p)
	if err != nil {
		return nil, "sidecar body " + ref + " cannot be read: " + err.Error()
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		return nil, "sidecar body " + ref + " is not a regular file (" + fileKind(st.Mode()) + ")"
	}
	data, st, err := readNoBlock(p, limit)
	if err != nil {
		return nil, "sidecar body " + ref + " cannot be read: " + err.Error()
	}
	if !st.Mode().IsRegular() {
		return nil, "sidecar body " + ref + " is not a regular file (" + fileKind(st.Mode()) + ")"
	}
	if st.Size() > limit {
		return nil, fmt.Sprintf("sidecar body %s is %d bytes, more than the %d allowed", ref, st.Size(), limit)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Sprintf("sidecar body %s is more than %d bytes", ref, limit)
	}
	return data, ""
}

func strconvQuote(s string) string {
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// within reports whether path (resolved) lies inside dir (resolved).
func within(dir, path string) bool {
	d, err := filepath.EvalSymlinks(dir)
	if err != nil {
		d = dir
	}
	d, _ = filepath.Abs(d)
	p, _ := filepath.Abs(path)
	rel, err := filepath.Rel(d, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	}
	return "not a regular file"
}

// cassettesDirProblem checks `cassettes:` of cassette.yaml: a relative path
// that stays inside the project, also once its symlinks are resolved.
func cassettesDirProblem(cfg *cfgschema.Config) *outcome.Problem {
	d := cfg.Cassettes
	if d == "" {
		return nil
	}
	p := &outcome.Problem{File: cfg.Path, Line: cfg.Line("cassettes"), Field: "cassettes",
		Expected: "a directory inside the project, relative to " + cfgschema.ConfigFile + " (like cassettes)"}
	clean := filepath.Clean(filepath.FromSlash(d))
	if filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		p.Message = fmt.Sprintf("`cassettes: %s` points outside the project", d)
		return p
	}
	full := filepath.Join(cfg.Dir, clean)
	if resolved, err := filepath.EvalSymlinks(full); err == nil && !within(cfg.Dir, resolved) {
		p.Message = fmt.Sprintf("`cassettes: %s` is a symlink to %s, outside the project", d, resolved)
		return p
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		p.Message = fmt.Sprintf("`cassettes: %s` cannot be resolved: %v", d, err)
		return p
	}
	return nil
}
