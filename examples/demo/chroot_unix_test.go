//go:build unix

package demo_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// chrootRunner returns a function that runs the image's entrypoint with
// args from the image's exported root file system under chroot, the demo
// at /demo as its working directory, in the host's network namespace.
func chrootRunner(t *testing.T, podman, tag, demo string) func(args ...string) string {
	rootfs := t.TempDir()
	exportImage(t, podman, tag, rootfs)
	if err := os.Rename(demo, filepath.Join(rootfs, "demo")); err != nil {
		t.Fatal(err)
	}
	// What every OCI runtime gives a container, and an image does not hold.
	if err := os.Mkdir(filepath.Join(rootfs, "dev"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mknod(filepath.Join(rootfs, "dev", "null"), syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Fatalf("mknod /dev/null in the image's root file system: %v", err)
	}
	return func(args ...string) string {
		cmd := exec.Command("/cassette", args...)
		cmd.Dir = "/demo" // entered after the chroot
		// The host's network namespace: a new one's loopback is down, and
		// bringing it up needs a tool the image does not hold. The demo's
		// verify reaches only its fakes, on loopback.
		cmd.SysProcAttr = &syscall.SysProcAttr{Chroot: rootfs}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("/cassette %s in the image's root file system: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
}
