package cassettes

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cassette-dev/cassette/internal/outcome"
	"go.yaml.in/yaml/v3"
)

// defaultSidecarThreshold is the body size above which Save moves a body
// into a content-addressed sidecar file, so that the YAML stays reviewable.
const defaultSidecarThreshold = 1 << 20

// sidecarDir is the directory, next to the cassette, holding sidecar bodies.
const sidecarDir = "bodies"

func sidecarName(sum string) string { return sidecarDir + "/sha256-" + sum + ".bin" }

// SaveOptions control Save.
type SaveOptions struct {
	// SidecarThreshold is the body size above which a body goes to a sidecar
	// file; 0 means defaultSidecarThreshold, a negative value never.
	SidecarThreshold int
	// Credentials are the declared credential values (name → value); a
	// cassette that still contains one, or a known key format, is refused.
	Credentials map[string]string
	// Root, when set, is the directory the cassette must stay in once
	// symlinks are resolved: a cassette or adapter directory that is a
	// symlink out of the project is refused, nothing is written.
	Root string
}

// Marshal renders a cassette in its deterministic byte layout: fixed field
// order, sorted map keys, two-space indentation, bodies as Body describes.
// Marshal(Load(Marshal(c))) == Marshal(c).
func Marshal(c *Cassette) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(c); err != nil {
		return nil, fmt.Errorf("encode cassette %s: %w", c.Path, err)
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Save writes a cassette to c.Path atomically (temp file in the same
// directory, fsync, rename): a killed recorder never leaves half a file,
// and what an earlier killed save left (its temp files) and the sidecars
// the previous version referred to and nothing refers to any more are
// removed once the new version is in place.
// Bodies above the sidecar threshold are written first, content-addressed.
// A cassette in which a credential still appears is refused with
// E_SECRET_LEAK and nothing is written.
func Save(c *Cassette, opts SaveOptions) error {
	if c.Path == "" {
		return outcome.Errorf(outcome.EUsage, "pass a path", "cassette has no path to save to")
	}
	threshold := opts.SidecarThreshold
	if threshold == 0 {
		threshold = defaultSidecarThreshold
	}
	out := *c
	if out.Cassette == 0 {
		out.Cassette = SchemaVersion // a plain go-vcr cassette saved by cassette gains its metadata
	}
	out.Interactions = append([]Interaction(nil), c.Interactions...)
	sidecars := map[string][]byte{}
	move := func(body *Body, ref *string) {
		if threshold < 0 || len(*body) <= threshold {
			*ref = ""
			return
		}
		sum := sha256.Sum256([]byte(*body))
		name := sidecarName(hex.EncodeToString(sum[:]))
		sidecars[name] = []byte(*body)
		*ref, *body = name, ""
	}
	for i := range out.Interactions {
		in := &out.Interactions[i]
		move(&in.Request.Body, &in.Request.BodyFile)
		move(&in.Response.Body, &in.Response.BodyFile)
	}
	data, err := Marshal(&out)
	if err != nil {
		return &outcome.Error{Reason: outcome.EIO, Message: "cannot encode cassette " + c.Path + ": a bug in cassette; report it with the cassette and the version below attached", Err: err, NextStep: outcome.Command("cassette", "version")}
	}
	// The bodies are scanned as they are, before the move to sidecars, so
	// that a compressed one is decoded and scanned wherever it is kept: a
	// body this save moves to a sidecar is not in data, and bodyLeaks scans
	// it as a sidecar body (once, decoded), whatever it was when loaded.
	whole := out
	whole.Interactions = append([]Interaction(nil), c.Interactions...)
	for i := range whole.Interactions {
		whole.Interactions[i].Request.BodyFile = out.Interactions[i].Request.BodyFile
		whole.Interactions[i].Response.BodyFile = out.Interactions[i].Response.BodyFile
	}
	leaks := append(leakProblems(c.Path, data, opts.Credentials), encodedLeaks(&whole, opts.Credentials)...)
	if len(leaks) > 0 {
		return &outcome.Error{Reason: outcome.ESecretLeak, Message: "refusing to save " + c.Path + ": it would contain a credential; declare its variable under the adapter's real.credentials in cassette.yaml so that it is redacted, then record again", Problems: leaks,
			NextStep: outcome.Command("cassette", "validate")}
	}
	dir := filepath.Dir(c.Path)
	if opts.Root != "" {
		if resolved := existingAncestor(dir); !within(opts.Root, resolved) {
			return &outcome.Error{Reason: outcome.EUsage, Message: fmt.Sprintf("refusing to save %s: its directory resolves to %s, outside the project %s; replace the symlink with a directory inside the project", c.Path, resolved, opts.Root),
				NextStep: outcome.Command("ls", "-l", dir)}
		}
	}
	old := sidecarRefs(c.Path)
	for name, body := range sidecars {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if _, err := os.Stat(p); err == nil {
			continue // content-addressed: same name, same bytes
		}
		if err := WriteFileAtomic(p, body, 0o644); err != nil {
			return err
		}
	}
	if err := WriteFileAtomic(c.Path, data, 0o644); err != nil {
		return err
	}
	keep := map[string]bool{}
	for name := range sidecars {
		keep[name] = true
	}
	removeLeftovers(c.Path, old, keep)
	return nil
}

// Within reports whether path, its symlinks resolved (those of its
// deepest existing parent when it does not exist yet), lies inside root,
// and returns where it resolves to: a file cassette writes stays in the
// project.
func Within(root, path string) (resolved string, ok bool) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path, false
	}
	resolved = existingAncestor(abs)
	return resolved, within(root, resolved)
}

// existingAncestor resolves the symlinks of dir, or of its deepest parent
// that exists (the directories Save would create do not exist yet).
func existingAncestor(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if r, err := filepath.EvalSymlinks(d); err == nil {
			rel, _ := filepath.Rel(d, dir)
			return filepath.Join(r, rel)
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

// WriteFileAtomic writes data to path through a temp file in the same
// directory, fsyncs it, renames it into place and fsyncs the directory.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	fail := func(err error) error {
		return &outcome.Error{Reason: outcome.EIO, Message: "cannot write " + path + " (is its directory writable?)", Err: err, NextStep: outcome.Command("ls", "-ld", filepath.Dir(path))}
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fail(err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fail(err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op after a successful rename
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fail(err)
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fail(err)
	}
	if err := f.Close(); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fail(err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}
