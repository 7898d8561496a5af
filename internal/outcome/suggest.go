package outcome

import (
	"fmt"
	"strings"
)

// Closest returns the candidate nearest to s by edit distance (case
// ignored, the first in sort order on a tie) when it is near enough to be
// a plausible typo of it, else "": the "did you mean" of a problem.
func Closest(s string, candidates []string) string {
	best, bestD := "", -1
	for _, c := range candidates {
		d := editDistance(strings.ToLower(s), strings.ToLower(c))
		if bestD < 0 || d < bestD || d == bestD && c < best {
			best, bestD = c, d
		}
	}
	if bestD < 0 || bestD > max(2, len(s)/3) {
		return ""
	}
	return best
}

func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// Suggest returns "did you mean `x`?" for the candidate nearest to s, or "".
func Suggest(s string, candidates []string) string {
	if c := Closest(s, candidates); c != "" {
		return fmt.Sprintf("did you mean `%s`?", c)
	}
	return ""
}
