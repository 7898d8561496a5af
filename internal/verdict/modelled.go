package verdict

import "math"

// Modelled is what a fake compared in modelled mode models of what the
// real service returned (package diff counts it): of the JSON object
// members of the recorded bodies, stdout and stream records, how many the
// fake gave, how many required ones it left out, and where the others are.
type Modelled struct {
	Fields          int               `json:"fields"`
	Modelled        int               `json:"modelled"`
	RequiredMissing int               `json:"required_missing"`
	Unmodelled      []UnmodelledField `json:"unmodelled,omitempty"`
}

// UnmodelledField is one thing the fake left out: a JSON member (with the
// fields under it), a header or a stream record, located in the cassette.
// It carries no value: a report says where, the cassette says what.
type UnmodelledField struct {
	Field    string `json:"field"`
	JSONPath string `json:"json_path,omitempty"`
	Line     int    `json:"line,omitempty"`
	Fields   int    `json:"fields,omitempty"`
}

// Percent is the share of fields modelled, rounded to 0.1; 100 when
// reality returned none.
func (m *Modelled) Percent() float64 {
	if m == nil || m.Fields == 0 {
		return 100
	}
	return math.Round(1000*float64(m.Modelled)/float64(m.Fields)) / 10
}

// Add sums o's figures into m (the lists are kept per case, not summed).
func (m *Modelled) Add(o *Modelled) {
	m.Fields += o.Fields
	m.Modelled += o.Modelled
	m.RequiredMissing += o.RequiredMissing
}
