package main

// server is what the fake says about itself: the build and the flags of the
// Prometheus that record.sh runs (Debian 12's prometheus package, default
// flags). When refresh finds that the real one changed, change this.
var server = Server{
	Build: BuildInfo{
		Version:   "2.42.0+ds",
		Revision:  "2.42.0+ds-5+deb12u1",
		Branch:    "debian/sid",
		BuildUser: "team+pkg-go@tracker.debian.org",
		BuildDate: "20260604-00:58:54",
		GoVersion: "go1.19.8",
	},
	Retention: "15d", // --storage.tsdb.retention.time (15d when unset)
	Config:    "global:\n  scrape_interval: 15s\n  scrape_timeout: 10s\n  evaluation_interval: 1m\n",
}
