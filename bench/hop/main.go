// Command hop is the floor of a recording proxy's added latency: one more
// hop on the way to the server, doing nothing else. bench/compare.sh
// measures both beside the recording proxies in the same rounds.
//
//	hop http        a forward proxy that records nothing: net/http's
//	                httputil.ReverseProxy passing each absolute-URL request
//	                on (the cost of any net/http proxy hop)
//	hop tcp ADDR    a bare TCP relay to ADDR, io.Copy both ways (the
//	                kernel's cost of one more loopback hop); a client uses it
//	                as its proxy, and ADDR's server reads the absolute URLs
//
// Each listens on 127.0.0.1:0 and prints its address.
package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"os"
)

func main() {
	if len(os.Args) < 2 || (os.Args[1] == "tcp") != (len(os.Args) == 3) || (os.Args[1] != "tcp" && os.Args[1] != "http") {
		fail("usage: hop http | hop tcp ADDR")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err.Error())
	}
	fmt.Println(ln.Addr())
	if os.Args[1] == "http" {
		rp := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
			r.Out.URL, r.Out.Host = r.In.URL, r.In.Host // a forward proxy's request names its target
		}}
		fail(http.Serve(ln, rp).Error())
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			fail(err.Error())
		}
		go relay(c, os.Args[2])
	}
}

// relay copies c to a new connection to addr and back, until either side ends.
func relay(c net.Conn, addr string) {
	defer c.Close()
	u, err := net.Dial("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hop:", err)
		return
	}
	defer u.Close()
	go func() {
		_, _ = io.Copy(u, c)
		u.(*net.TCPConn).CloseWrite()
	}()
	_, _ = io.Copy(c, u)
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "hop:", msg)
	os.Exit(2)
}
