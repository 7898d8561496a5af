package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
)

// start runs a replay server (or, with -wait, a command that runs to its
// end) the way a user starts it, and measures what the user waits for:
//
//   - the seconds from the start of the process until it answers the URL
//     -url (any HTTP status), polled every millisecond; with -wait, until
//     it exits (it must exit 0);
//   - its peak resident memory until then (VmHWM; with -wait, its maxrss);
//   - with -miss, the median µs of -probes requests to that URL, each
//     matching no recorded interaction (the answer must not be 200); "{I}"
//     in it is replaced by the probe's number, so that no two probes are
//     the same request (Hoverfly caches a miss it has explained).
//
// "{PORT}" and "{PORT2}" in the command are replaced by free ports, and
// "{URL}" in -url and -miss by http://127.0.0.1:{PORT}. Prints
// "seconds MB miss_µs" ("-" for a miss not measured).
func start(f flags, argv []string) {
	if len(argv) == 0 {
		fail("start: no command after --")
	}
	ports := strings.NewReplacer("{PORT}", freePort(), "{PORT2}", freePort())
	for i := range argv {
		argv[i] = ports.Replace(argv[i])
	}
	ready, miss := ports.Replace(f.target), ports.Replace(f.miss)
	cmd := exec.Command(argv[0], argv[1:]...)
	var errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &errOut
	t0 := time.Now()
	check(cmd.Start())
	if f.wait {
		err := cmd.Wait()
		secs := time.Since(t0).Seconds()
		if err != nil {
			fail(fmt.Sprintf("%s: %v\n%s", argv[0], err, tail(errOut.Bytes())))
		}
		fmt.Printf("%.3f %.0f -\n", secs, float64(maxRSS(cmd.ProcessState))/1e6)
		return
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	exited := make(chan struct{})
	go func() { _, _ = cmd.Process.Wait(); close(exited) }()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 5 * time.Second}
	for {
		if resp, err := client.Get(ready); err == nil {
			resp.Body.Close()
			break
		}
		select {
		case <-exited:
			fail(fmt.Sprintf("%s exited before it answered %s:\n%s", argv[0], ready, tail(errOut.Bytes())))
		case <-time.After(time.Millisecond):
		}
	}
	secs := time.Since(t0).Seconds()
	rss := peakRSS(cmd.Process.Pid)
	m := "-"
	if miss != "" {
		m = strconv.FormatFloat(timeMisses(miss, f.probes), 'f', 0, 64)
	}
	fmt.Printf("%.3f %.0f %s\n", secs, rss, m)
}

// timeMisses returns the median µs of probes GETs of target ("{I}"
// replaced by 1, 2, …) on one kept-alive connection, after a few
// unmeasured ones (5, or 1 when fewer than 10 probes are asked for: a
// slow miss).
func timeMisses(target string, probes int) float64 {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}, Timeout: 5 * time.Minute}
	warm := 5
	if probes < 10 {
		warm = 1
	}
	var ds []time.Duration
	for i := range probes + warm {
		u := strings.ReplaceAll(target, "{I}", strconv.Itoa(i+1))
		t0 := time.Now()
		resp, err := client.Get(u)
		check(err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			fail("the miss " + u + " was answered 200")
		}
		if i >= warm {
			ds = append(ds, time.Since(t0))
		}
	}
	slices.Sort(ds)
	return micros(ds[len(ds)/2])
}

// peakRSS is a process's peak resident set so far, in MB.
func peakRSS(pid int) float64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	check(err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			check(err)
			return kb * 1024 / 1e6
		}
	}
	fail("no VmHWM in /proc/" + strconv.Itoa(pid) + "/status")
	return 0
}

// freePort is a port nothing listens on now. (It may be taken before the
// command listens on it: a benchmark can retry, a test could not.)
func freePort() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

func tail(b []byte) []byte { return b[max(0, len(b)-2000):] }
