package cassettes

import "github.com/cassette-dev/cassette/internal/cfgschema"

// plainlyValid reports whether r keeps every rule its tags say (the
// validator would find nothing), checked without the validator's
// reflection: for a small cassette the validator was a tenth of its load.
// It answers only the plain case: false means "ask the validator", never
// "invalid"; interactions are always left to the validator (its `url`
// rule). TestPlainlyValidAgreesWithTheValidator holds it to the tags.
func (r *cassetteRules) plainlyValid(regs registries) bool {
	http, cli := r.Kind == cfgschema.KindHTTP, r.Kind == cfgschema.KindCLI
	switch {
	case r.Cassette != 0 && r.Cassette != 1,
		r.Version != 2 && (r.Version != 0 || http),
		!ValidNewName(r.Adapter), !ValidName(r.Scenario), !knownKind(regs.kinds, r.Kind),
		r.Compare != "" && r.Compare != "exact" && r.Compare != "modelled",
		r.Stream != "" && r.Stream != "records" && r.Stream != "content",
		cli && (r.Input == nil || r.Output == nil),
		http && r.Interactions == nil,
		len(r.Interactions) > 0:
		return false
	}
	if regs.cfg != nil {
		if _, ok := regs.cfg.Adapters[r.Adapter]; !ok {
			return false
		}
	}
	for _, n := range r.Normalizers {
		if !regs.knownNormalizer(n) {
			return false
		}
	}
	for _, s := range r.Required {
		if !validRequired(s) {
			return false
		}
	}
	for _, s := range r.StreamText {
		if !validStreamText(s) {
			return false
		}
	}
	if in := r.Input; in != nil {
		if in.Command == "" {
			return false
		}
		for _, e := range in.Env {
			if !envNameRe.MatchString(e) {
				return false
			}
		}
	}
	return true
}
