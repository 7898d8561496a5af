//go:build linux

package verify

import "syscall"

// bindable reports whether a loopback TCP listener could bind port: a
// socket bound there as net.Listen binds one (SO_REUSEADDR, so that a
// connection of an earlier fake in TIME_WAIT does not count), then
// closed. Raw system calls: net.Listen also listened, asked the socket's
// name and registered it with the poller and took it out again, a case's
// fake paying for each.
func bindable(port int) error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1); err != nil {
		return err
	}
	return syscall.Bind(fd, &syscall.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}})
}
