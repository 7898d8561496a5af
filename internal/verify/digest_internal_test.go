package verify

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/report"
)

// TestErrorReportDigest: summary.json's policy_pack_digest is the sha256 of
// cassette.yaml also when verify stopped at a config error or found no
// cassette, and it is absent when there is no config file, never the hash
// of the empty input (it was e3b0c442… in both cases). A config that holds a
// credential is not carried into the reports.
func TestErrorReportDigest(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cassette.yaml")
	data := []byte("version: 1\nadapters: {}\n")
	if err := os.WriteFile(cfg, data, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	for _, c := range []struct {
		name, config string
		reason       outcome.Reason
		want         string
	}{
		{"config error", cfg, outcome.ECfgParse, "sha256:" + hex.EncodeToString(sum[:])},
		{"no cassette", cfg, outcome.ECassetteNotFound, "sha256:" + hex.EncodeToString(sum[:])},
		{"no config", filepath.Join(dir, "missing.yaml"), outcome.EMissingConfig, ""},
		{"config with a credential", cfg, outcome.ESecretLeak, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			run := ErrorReport(c.config, report.Tool{Name: "cassette", Version: "test"}, &outcome.Error{Reason: c.reason, Message: "x", NextStep: "cassette validate"}, time.Unix(0, 0))
			out := filepath.Join(t.TempDir(), "reports")
			if err := report.Write(out, (*report.Run)(run), report.Options{Golden: true}); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(out, report.FileSummary))
			if err != nil {
				t.Fatal(err)
			}
			var s struct {
				Provenance map[string]any `json:"provenance"`
			}
			if err := json.Unmarshal(b, &s); err != nil {
				t.Fatal(err)
			}
			got, _ := s.Provenance["policy_pack_digest"].(string)
			if got != c.want {
				t.Errorf("policy_pack_digest = %q, want %q", got, c.want)
			}
		})
	}
}
