//go:build !unix

package cassettes

// noFollow is 0 where there is no O_NOFOLLOW: readRegular then looks at
// the path with an lstat first.
const noFollow = 0
