package main

import "os"

// maxRSS is not measured on Windows (no getrusage): 0.
func maxRSS(*os.ProcessState) int64 { return 0 }
