package cassettes

import (
	"crypto/sha256"
	"encoding/hex"
)

// Source is the file a cassette was loaded from, as it was read: its size
// and SHA-256 and, when LoadOptions.KeepBytes asked for them, its bytes.
// What a run reports about its cassette set (the inventory digest) and what
// a forensic bundle copies come from it, so that a run reads each cassette
// once, and reports the bytes it compared.
type Source struct {
	SHA256 string // lowercase hex
	Size   int64
	Bytes  []byte // nil unless LoadOptions.KeepBytes
}

func newSource(data []byte, keep bool) Source {
	sum := sha256.Sum256(data)
	s := Source{SHA256: hex.EncodeToString(sum[:]), Size: int64(len(data))}
	if keep {
		s.Bytes = data
	}
	return s
}
