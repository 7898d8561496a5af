package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"time"
)

// InventoryBytes is the normalized inventory byte sequence: one line
// "<sha256> <bytes> <path>\n" per distinct path, sorted by path bytes. The
// empty inventory is the empty byte sequence.
func InventoryBytes(items []InventoryItem) []byte {
	s := append([]InventoryItem(nil), items...)
	sort.SliceStable(s, func(i, j int) bool { return s[i].Path < s[j].Path })
	var b strings.Builder
	for i, it := range s {
		if i > 0 && s[i-1].Path == it.Path {
			continue
		}
		fmt.Fprintf(&b, "%s %d %s\n", it.SHA256, it.Bytes, it.Path)
	}
	return []byte(b.String())
}

// InventoryDigest is the lowercase hex SHA-256 of [InventoryBytes].
func InventoryDigest(items []InventoryItem) string { return sha256Hex(InventoryBytes(items)) }

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// traceID is the run's trace id: Run.TraceID, else one derived from the
// run's inputs and its start time (to the nanosecond) and shard, so that two
// runs' logs differ. In golden mode, which promises equal bytes for equal
// inputs, it is derived from the inputs only.
func (r *Run) traceID(golden bool) string {
	if r.TraceID != "" && !golden {
		return r.TraceID
	}
	in := r.command() + "\x1f" + r.Suite + "\x1f" + InventoryDigest(r.Inventory) + "\x1f" + sha256Hex(r.ConfigBytes)
	if !golden {
		in += "\x1f" + r.Started.UTC().Format(time.RFC3339Nano) + "\x1f" + r.Shard
	}
	return sha256Hex([]byte(in))[:32]
}
