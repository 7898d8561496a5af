package recording

import (
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/proxy"
)

// UpstreamOf returns how adapter name reaches its real service: the TLS
// settings of its real section (files relative to the project directory
// dir) and the corporate proxy of this process's environment. caFile, when
// set (the --upstream-ca flag), replaces real.ca_file.
func UpstreamOf(dir, name string, a *cfgschema.Adapter, caFile string, lookup func(string) (string, bool)) proxy.Upstream {
	u := proxy.Upstream{ClientCert: resolve(dir, a.Real.ClientCert), ClientKey: resolve(dir, a.Real.ClientKey),
		CAFile: resolve(dir, a.Real.CAFile), InsecureSkipVerify: a.Real.InsecureSkipVerify,
		Field: "adapters." + name + ".real", LookupEnv: lookup}
	if caFile != "" {
		u.CAFile = caFile
	}
	return u
}

func resolve(dir, p string) string {
	if p == "" {
		return ""
	}
	return cfgschema.ResolvePath(dir, p)
}
