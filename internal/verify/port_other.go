//go:build !linux

package verify

import (
	"net"
	"strconv"
)

// bindable reports whether a loopback TCP listener could bind port.
func bindable(port int) error {
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return err
	}
	return ln.Close()
}
