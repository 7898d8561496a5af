// Command fake-prometheus is a fake of Prometheus's HTTP API for the
// endpoints the prometheus example records: health and readiness, build and
// runtime information, the loaded configuration, labels, targets and
// instant queries of constant expressions (vector(N), scalars, `up`), with
// Prometheus's own JSON shapes and error bodies. It serves on
// 127.0.0.1:$PORT; it keeps no time series (the recorded Prometheus has no
// scrape jobs, so neither does the real one).
package main

import (
	"encoding/json"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Server is the identity and configuration the fake reports.
type Server struct {
	Build     BuildInfo
	Retention string
	Config    string // the configuration as /api/v1/status/config shows it
}

// BuildInfo is the body of /api/v1/status/buildinfo, in Prometheus's field order.
type BuildInfo struct {
	Version   string `json:"version"`
	Revision  string `json:"revision"`
	Branch    string `json:"branch"`
	BuildUser string `json:"buildUser"`
	BuildDate string `json:"buildDate"`
	GoVersion string `json:"goVersion"`
}

func main() {
	port := os.Getenv("PORT")
	if port == "" {
		port = "9090"
	}
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("fake-prometheus listening on http://%s", l.Addr())
	log.Fatal(http.Serve(l, NewHandler(server, time.Now)))
}

// NewHandler returns the fake's API; now is its clock.
func NewHandler(s Server, now func() time.Time) http.Handler {
	started := now()
	mux := http.NewServeMux()
	text := func(msg string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			fmt.Fprintln(w, msg)
		}
	}
	mux.HandleFunc("GET /-/healthy", text("Prometheus Server is Healthy."))
	mux.HandleFunc("GET /-/ready", text("Prometheus Server is Ready."))
	mux.HandleFunc("GET /api/v1/status/buildinfo", func(w http.ResponseWriter, r *http.Request) {
		success(w, s.Build)
	})
	mux.HandleFunc("GET /api/v1/status/runtimeinfo", func(w http.ResponseWriter, r *http.Request) {
		cwd, _ := os.Getwd()
		success(w, struct {
			StartTime           time.Time `json:"startTime"`
			CWD                 string    `json:"CWD"`
			ReloadConfigSuccess bool      `json:"reloadConfigSuccess"`
			LastConfigTime      time.Time `json:"lastConfigTime"`
			CorruptionCount     int       `json:"corruptionCount"`
			GoroutineCount      int       `json:"goroutineCount"`
			GOMAXPROCS          int       `json:"GOMAXPROCS"`
			GOGC                string    `json:"GOGC"`
			GODEBUG             string    `json:"GODEBUG"`
			StorageRetention    string    `json:"storageRetention"`
		}{started.UTC(), cwd, true, started.UTC().Truncate(time.Second), 0, runtime.NumGoroutine(),
			runtime.GOMAXPROCS(0), os.Getenv("GOGC"), os.Getenv("GODEBUG"), s.Retention})
	})
	mux.HandleFunc("GET /api/v1/status/config", func(w http.ResponseWriter, r *http.Request) {
		success(w, map[string]string{"yaml": s.Config})
	})
	mux.HandleFunc("GET /api/v1/labels", func(w http.ResponseWriter, r *http.Request) {
		success(w, []string{})
	})
	mux.HandleFunc("GET /api/v1/targets", func(w http.ResponseWriter, r *http.Request) {
		success(w, struct {
			Active  []any `json:"activeTargets"`
			Dropped []any `json:"droppedTargets"`
		}{[]any{}, []any{}})
	})
	query := func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			apiError(w, "bad_data", err.Error())
			return
		}
		at := now()
		if t := r.Form.Get("time"); t != "" {
			var err error
			if at, err = parseTime(t); err != nil {
				apiError(w, "bad_data", fmt.Sprintf("invalid parameter \"time\": %v", err))
				return
			}
		}
		res, err := eval(r.Form.Get("query"), at)
		if err != nil {
			apiError(w, "bad_data", fmt.Sprintf("invalid parameter \"query\": %v", err))
			return
		}
		success(w, res)
	}
	mux.HandleFunc("GET /api/v1/query", query)
	mux.HandleFunc("POST /api/v1/query", query)
	return mux
}

// sampleTime is a sample's timestamp as Prometheus writes it: seconds, and
// milliseconds only when there are some (1780000000, 1795448307.58).
type sampleTime time.Time

func (t sampleTime) MarshalJSON() ([]byte, error) {
	ms := time.Time(t).UnixMilli()
	s := strconv.FormatInt(ms/1000, 10)
	if ms%1000 != 0 {
		s += fmt.Sprintf(".%03d", ms%1000)
	}
	return []byte(s), nil
}

type sample struct {
	Metric map[string]string `json:"metric"`
	Value  [2]any            `json:"value"`
}

type result struct {
	Type   string `json:"resultType"`
	Result any    `json:"result"`
}

// eval evaluates the constant expressions the fake understands.
func eval(q string, at time.Time) (result, error) {
	q = strings.TrimSpace(q)
	switch {
	case q == "":
		return result{}, fmt.Errorf("1:1: parse error: no expression found in input")
	case strings.Count(q, "(") > strings.Count(q, ")"):
		return result{}, fmt.Errorf("1:%d: parse error: unclosed left parenthesis", len(q)+1)
	case q == "up":
		return result{"vector", []sample{}}, nil
	case strings.HasPrefix(q, "vector(") && strings.HasSuffix(q, ")"):
		v, err := strconv.ParseFloat(strings.TrimSpace(q[len("vector("):len(q)-1]), 64)
		if err != nil {
			return result{}, fmt.Errorf("fake-prometheus: not faked: %q", q)
		}
		return result{"vector", []sample{{Metric: map[string]string{}, Value: [2]any{sampleTime(at), formatValue(v)}}}}, nil
	}
	if v, err := strconv.ParseFloat(q, 64); err == nil {
		return result{"scalar", [2]any{sampleTime(at), formatValue(v)}}, nil
	}
	return result{}, fmt.Errorf("fake-prometheus: not faked: %q", q)
}

func formatValue(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// parseTime reads a time parameter: RFC 3339 or (fractional) Unix seconds.
func parseTime(s string) (time.Time, error) {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return time.UnixMilli(int64(f * 1000)), nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("cannot parse %q to a valid timestamp", s)
	}
	return t, nil
}

func success(w http.ResponseWriter, data any) {
	write(w, http.StatusOK, struct {
		Status string `json:"status"`
		Data   any    `json:"data"`
	}{"success", data})
}

func apiError(w http.ResponseWriter, typ, msg string) {
	write(w, http.StatusBadRequest, struct {
		Status    string `json:"status"`
		ErrorType string `json:"errorType"`
		Error     string `json:"error"`
	}{"error", typ, msg})
}

func write(w http.ResponseWriter, code int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(body)
}
