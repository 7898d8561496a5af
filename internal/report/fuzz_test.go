package report

import (
	"os"
	"path/filepath"
	"testing"
)

func FuzzParseSummary(f *testing.F) {
	for _, n := range []string{"failing.summary.json"} {
		b, _ := os.ReadFile(filepath.Join("testdata", n))
		f.Add(b)
	}
	f.Add([]byte(`{"schema_version":1,"reason_code_version":1,"exit_code":3,"reason_code":"E_TIMEOUT","x":[1,{}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSummary("summary.json", data)
		if err == nil && (s.SchemaVersion != 1 || s.ReasonCodeVersion != 1 || (s.ExitCode != 0 && s.ReasonCode == "")) {
			t.Fatalf("accepted an invalid summary: %+v", s)
		}
	})
}

func FuzzValidateLog(f *testing.F) {
	b, _ := os.ReadFile(filepath.Join("testdata", "failing.log.jsonl"))
	f.Add(b)
	f.Add([]byte("{\"schema\":\"cassette.test.log.v1\"}\n\n{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, p := range ValidateLog("log.jsonl", data) {
			if p.Line < 1 || p.Message == "" {
				t.Fatalf("problem without line or message: %+v", p)
			}
		}
	})
}
