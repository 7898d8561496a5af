//go:build unix

package cassettes

import "syscall"

// noFollow opens a path only when its last component is not a symlink
// (readRegular's first try: one system call less than an lstat first).
const noFollow = syscall.O_NOFOLLOW
