//go:build !unix

package cassettes

import "time"

func cpuTime() time.Duration { return 0 }
