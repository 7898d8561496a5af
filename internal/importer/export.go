package importer

import (
	"encoding/json"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/har"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// Export is one HAR written from cassettes.
type Export struct {
	JSON      []byte // the HAR, indented, ending in a newline
	Entries   int    // interactions written
	Cassettes int    // cassettes read
}

// ExportHAR loads the cassettes named by paths (files or directories) and
// writes their HTTP interactions as one HAR 1.2 archive: one page per
// cassette, one entry per interaction, in order. creator names the program
// in the HAR's log.creator.
func ExportHAR(paths []string, creator har.Creator) (*Export, error) {
	list, err := cassettes.LoadTree(paths, cassettes.LoadOptions{})
	if err != nil {
		return nil, err
	}
	a := har.FromCassettes(list, har.ExportOptions{Creator: creator})
	data, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return nil, &outcome.Error{Reason: outcome.EIO, Message: "cannot encode the HAR", Err: err, NextStep: outcome.Command("cassette", "validate")}
	}
	return &Export{JSON: append(data, '\n'), Entries: len(a.Log.Entries), Cassettes: len(list)}, nil
}
