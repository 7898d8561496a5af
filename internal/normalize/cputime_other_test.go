//go:build !unix

package normalize

import "time"

// processCPU is not measured here: the cpu-MB/s metric is left out.
func processCPU() time.Duration { return 0 }
