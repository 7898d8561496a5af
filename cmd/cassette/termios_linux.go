package main

import "golang.org/x/sys/unix"

// getTermios is the ioctl that reads a terminal's attributes (colorWanted).
const getTermios = unix.TCGETS
