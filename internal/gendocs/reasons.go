package gendocs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// advice is what a reason code means and what to do about it.
type advice struct{ means, todo string }

// reasons holds the advice for every registered reason code.
var reasons = map[outcome.Reason]advice{
	outcome.ECfgParse: {"`cassette.yaml` could not be read: a YAML syntax error, an unknown key, a wrong type, a normalizer or adapter name that does not exist. The message names the file, line and field.",
		"Fix the line it names, then run `cassette validate`. The [config reference](reference/config.md) lists every key; editors validate as you type with the `# yaml-language-server: $schema=…` line `cassette init` writes."},
	outcome.EMissingConfig: {"No `cassette.yaml` where the command looked (the current directory, or `--config FILE`).",
		"Run the command from the project's directory, pass `--config`, or create one with `cassette init`."},
	outcome.ECassetteNotFound: {"A path, `--case` or `--adapter` named no cassette.",
		"List what exists with `cassette cases`; record the missing one with `cassette record` (the `next:` line says how)."},
	outcome.ECassetteInvalid: {"A cassette file does not load strictly: bad YAML, an unknown field, a wrong type, a WebSocket session that breaks its rules. The message names file, line and field.",
		"Fix it or record it again; `cassette validate` lists every problem. The [cassette file reference](concepts/cassettes.md) has every field."},
	outcome.EReplayMissingDependency: {"Registered by specs/002 §5 for a replay that misses an offline dependency it needs (an uncached input). cassette registers it for the reports' contracts; no command of cassette raises it today.",
		"If a report carries it, the message names what was missing: restore it (from version control, or by recording again)."},
	outcome.ESecretLeak: {"A credential would appear in a cassette, report or log: a known token format or the value of a declared credential variable. Nothing was written.",
		"Declare the variable in `real.credentials` (its value is then redacted), or remove the secret from the file `cassette validate` names. See [Security](security.md)."},
	outcome.EUsage: {"The command line is wrong: an unknown flag, a missing value or required flag, the wrong number of arguments, or a line of `cassette check`'s input it cannot take.",
		"Read the command's `--help` (the `next:` line runs it); every command is in the [command reference](reference/generated/commands/cassette.md)."},
	outcome.EQuarantineInvalid: {"A `quarantine:` entry breaks specs/000's rules: a field missing, an expiry more than 14 days after it was quarantined, an unknown category.",
		"Complete the entry (all nine fields) or remove it, then `cassette validate`."},
	outcome.EBundleInvalid: {"`cassette bundle validate` found a forensic bundle that does not match its schema.",
		"Read the problems it printed; a bundle is written by verify and refresh, so an invalid one is a bug to report with the bundle attached."},
	outcome.EObservationInvalid: {"A line of `.cassette/observed/*.jsonl` is not an observation of the format `cassette coverage` reads.",
		"Observe again with `cassette observe -- …`, or mend the writer (the format is in [Coverage](concepts/coverage.md#the-observation-format))."},
	outcome.ELocked: {"Another process is writing the same cassette or adapter directory. Nothing was written; the message names the lock.",
		"Wait for the other `cassette record` or `refresh` to finish, then run the command again."},
	outcome.ETimeout: {"A fake, a real service or a case took longer than its timeout (`--timeout`, `fake.timeout`).",
		"See which in the message and the fake's log under `.cassette/`; raise the timeout only if the work really takes that long."},
	outcome.ERateLimit: {"The real service answered that it is rate-limiting (429, or a rate-limit header at zero).",
		"Wait and run again; refresh skips the adapter for this run and says so."},
	outcome.EProvider5xx: {"The real service answered with a server error (5xx) while recording.",
		"The service is failing, not your fake: run again later. Nothing was committed."},
	outcome.EFakeUnavailable: {"The fake could not be started or reached: `fake.build` or `fake.command` failed, it never became ready on `fake.ready`, or `fake.base_url` does not answer.",
		"Read the fake's log the message names (under `.cassette/`), start the fake by hand with the same command, and check `fake.ready`."},
	outcome.ERealUnreachable: {"The real service could not be reached while recording: connection refused, no route.",
		"Check `real.base_url` and the network; set `HTTPS_PROXY` if the machine reaches the service through a proxy."},
	outcome.EForge: {"The forge (GitHub, or the git remote) refused or failed a refresh operation: a pull request, an issue, a comment.",
		"Check `refresh.forge` and that its token may open pull requests and issues; the message has the forge's answer."},
	outcome.EPushRejected: {"`cassette refresh` could not push its refresh branch.",
		"Check the remote and that the token may push branches; a protected branch name may need changing."},
	outcome.EIO: {"A local file could not be read or written: permissions, a full disk, a missing directory.",
		"The message names the file; fix its permissions or free space, then run again."},
	outcome.EInterrupted: {"The run was stopped by SIGINT or SIGTERM before it finished. Reports written so far say how far it got.",
		"Run it again; in CI, check what cancelled the job."},
	outcome.ERealTLS: {"The real side's TLS failed: a certificate that is not trusted, a wrong name, an expired certificate.",
		"Give the service's CA with `real.ca_file` (see [Adapters](concepts/adapters.md#reaching-the-real-service-tls-and-proxies)); never turn verification off."},
	outcome.ERealDNS: {"The real side's host name does not resolve.",
		"Check the host in `real.base_url` and the machine's DNS."},
	outcome.ERealReset: {"The real side closed or reset the connection in the middle of an exchange.",
		"Usually transient: run again; if it repeats, the message has the request that was cut."},
	outcome.ERealAuth: {"The real side refused the credentials (401 Unauthorized or 403 Forbidden) while recording, learning or refreshing: wrong, expired or missing, or without the scope the call needs. Nothing was saved: a refusal is not the service's answer to keep.",
		"Check the credentials: the variables `real.credentials` names are set and current, and `real.headers` sends them. A scenario whose refusal is the behaviour under test declares it (`cassette record --allow-status 401`, or `status:` in the scenario); see [Adapters](concepts/adapters.md#when-the-real-side-fails)."},
	outcome.ERealUpgrade: {"The real side refused a WebSocket upgrade, or answered it with a handshake that is not valid.",
		"Check the URL and the credentials the upgrade needs; the message has the status the server answered."},
	outcome.ERealSuspect: {"A re-recorded command went from exit 0 to a failure with nothing on stdout, and no fault signature said why: the real side probably failed rather than changed.",
		"Run the command by hand in `real.dir`; if it is a known failure of that tool, add a fault signature (see [Adapters](concepts/adapters.md#a-clis-own-failures-fault-signatures))."},
	outcome.ETestFailed: {"The run's summary reason when its failed cases failed for different exit-1 reasons (a drift and a fake error, say), or a case failed without a more precise reason.",
		"Read each failed case's own reason in the output or `summary.json`; this page has each."},
	outcome.EContractDrift: {"The fake's output differs from the cassette after normalization: the fake is wrong about the real service (or the cassette is out of date). The drift names the field, the JSON path and the cassette line.",
		"Run the `next:` command (`cassette verify --case …`), read the diff, and fix the fake; if the real service changed, record the cassette again (`cassette record`)."},
	outcome.EFakeError: {"The fake crashed, exited, or answered something that is not a response (an in-process fake raised).",
		"Read the fake's log the message names; run the case alone with `cassette verify --case …`."},
	outcome.EQuarantineExpired: {"A quarantined case still fails after its entry expired.",
		"Fix the fake or the cassette, or renew the quarantine entry with a new expiry and evidence."},
	outcome.EReplayMiss: {"A replaying proxy or transport was asked a request no cassette holds. The message names the closest recorded interaction (file:line) and the fields that differ.",
		"Record the new request (`cassette record`, the `next:` line), or relax the match rules (`match:` in the config) if the difference should not matter."},
	outcome.EEscalated: {"`cassette refresh` found the same drift for `refresh.escalate_after` runs in a row and escalated to the adapter's owners.",
		"Fix the fake (the fake-drift issue says how it differs), then merge the refresh PR."},
	outcome.EUncoveredCall: {"The tests sent a call shape to a fake that no cassette backs, or an adapter whose fake was called has no cassette at all.",
		"Run the `next:` line: it is the `cassette record` command of the missing shape. See [Coverage](concepts/coverage.md)."},
	outcome.ERealDrift: {"`cassette refresh`: the real service changed, and a refresh PR now carries the new cassettes (the fake still matches them).",
		"Review and merge the refresh PR."},
	outcome.EFakeDrift: {"`cassette refresh`: the fake no longer matches the re-recorded cassettes; a fake-drift issue was filed.",
		"Fix the fake as the issue describes, then merge the refresh PR."},
}

// Troubleshooting renders docs/troubleshooting.md: every registered reason
// code, by exit code, with what it means and what to do.
func Troubleshooting() ([]byte, error) {
	codes := outcome.Reasons()
	if err := sameNames("reason code", "internal/gendocs/reasons.go", names(codes), keys(reasons)); err != nil {
		return nil, err
	}
	slices.SortFunc(codes, func(a, b outcome.Reason) int {
		if d := int(a.Exit()) - int(b.Exit()); d != 0 {
			return d
		}
		return strings.Compare(string(a), string(b))
	})
	var b strings.Builder
	b.WriteString(generated("cassette gendocs", "the error model's registry (outcome.Reasons) and internal/gendocs/reasons.go"))
	b.WriteString("# Troubleshooting\n\n")
	b.WriteString("Every non-zero exit prints `error[REASON]: …` on stderr and a `next:` line, a command that runs as printed. ")
	b.WriteString("Here is every reason code: what it means and what to do. The exit codes are in [Exit codes](reference/exit-codes.md).\n\n")
	b.WriteString("| reason code | exit |\n|---|---|\n")
	for _, c := range codes {
		fmt.Fprintf(&b, "| [`%s`](#%s) | %d |\n", c, strings.ToLower(string(c)), c.Exit())
	}
	for _, c := range codes {
		a := reasons[c]
		fmt.Fprintf(&b, "\n## %s\n\nExit %d (%s).\n\n**What it means.** %s\n\n**What to do.** %s\n", c, c.Exit(), exitName(c.Exit()), a.means, a.todo)
	}
	return []byte(b.String()), nil
}

func exitName(e outcome.Exit) string {
	switch e {
	case outcome.ExitFail:
		return "drift or failure"
	case outcome.ExitUser:
		return "configuration or user error"
	case outcome.ExitInfra:
		return "infrastructure"
	}
	return "pass"
}

func names[T ~string](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(x)
	}
	return out
}

func keys[K ~string, V any](m map[K]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, string(k))
	}
	return out
}

// sameNames reports a registered name without an entry in table, or an
// entry for a name that is not registered.
func sameNames(what, table string, registered, documented []string) error {
	var probs []string
	for _, n := range registered {
		if !slices.Contains(documented, n) {
			probs = append(probs, fmt.Sprintf("%s %s is registered but has no entry in %s: add one (what it means, what to do)", what, n, table))
		}
	}
	for _, n := range documented {
		if !slices.Contains(registered, n) {
			probs = append(probs, fmt.Sprintf("%s %s has an entry in %s but is not registered: remove the entry", what, n, table))
		}
	}
	slices.Sort(probs)
	if len(probs) > 0 {
		return fmt.Errorf("%s", strings.Join(probs, "\n"))
	}
	return nil
}

// generated is the comment a generated page starts with.
func generated(by, from string) string {
	return fmt.Sprintf("<!-- Generated by `%s` from %s. Do not edit: run `go test ./cmd/cassette -run TestGeneratedDocs -update`. -->\n\n", by, from)
}
