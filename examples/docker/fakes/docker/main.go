// Command docker is a fake docker CLI: it answers the call shapes of
// examples/docker (see the README) the way the real docker CLI does against
// the engine that record.sh builds, without any engine.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/template"
	"time"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, time.Now())) }

// run is the whole CLI: it returns the exit code.
func run(args []string, stdout, stderr io.Writer, now time.Time) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "Usage:  docker [OPTIONS] COMMAND")
		return 1
	}
	cmd, rest := args[0], args[1:]
	if (cmd == "image" || cmd == "volume" || cmd == "network") && len(rest) > 0 {
		cmd, rest = cmd+" "+rest[0], rest[1:]
	}
	f, pos, err := parseFlags(rest)
	if err != nil {
		fmt.Fprintf(stderr, "unknown flag: %s\nSee 'docker %s --help'.\n", err, cmd)
		return 125
	}
	day := now.UTC().Format("2006-01-02 15:04:05 -0700 MST")
	switch cmd {
	case "version":
		return format(stdout, stderr, f, map[string]any{"Server": map[string]any{
			"Version": serverVersion, "APIVersion": apiVersion, "MinAPIVersion": minAPIVersion, "Os": "linux", "Arch": "amd64"}})
	case "info":
		return format(stdout, stderr, f, map[string]any{"ServerVersion": serverVersion, "Driver": storageDriver,
			"Images": 1, "Containers": 1, "ContainersStopped": 0})
	case "images", "image ls":
		return format(stdout, stderr, f, map[string]string{"Containers": "1", "CreatedAt": day, "CreatedSince": "1 second ago",
			"Digest": "<none>", "ID": imageID[:12], "Repository": imageRepo, "SharedSize": "0B", "Size": "11.3kB", "Tag": imageTag,
			"UniqueSize": "11.33kB", "VirtualSize": "11.33kB"})
	case "image inspect":
		for _, name := range pos {
			if name != imageRepo+":"+imageTag {
				fmt.Fprintln(stdout, "[]")
				fmt.Fprintf(stderr, "Error: No such image: %s\n", name)
				return 1
			}
		}
		return format(stdout, stderr, f, map[string]any{"RepoTags": []string{"docker.io/" + imageRepo + ":" + imageTag},
			"Comment": imageComment, "Os": "linux", "Architecture": "amd64", "Size": imageSize,
			"Config": map[string]any{"Labels": map[string]string(nil)}})
	case "import":
		fmt.Fprintf(stdout, "sha256:%s: sha256:%s\n", imageID, imageID)
		return 0
	case "create":
		fmt.Fprintln(stdout, containerID)
		return 0
	case "ps":
		if !f.bool("all") && !f.bool("a") {
			return 0 // nothing runs
		}
		return format(stdout, stderr, f, map[string]string{"Command": `"` + containerCommand[:19] + `…"`, "CreatedAt": day,
			"ID": containerID[:12], "Image": imageRepo + ":" + imageTag, "Labels": appLabel, "LocalVolumes": "0", "Mounts": "",
			"Names": containerName, "Networks": "podman", "Ports": "", "RunningFor": "1 second ago", "Size": "0B (virtual 39B)",
			"State": "created", "Status": "Created"})
	case "volume create":
		fmt.Fprintln(stdout, pos[len(pos)-1])
		return 0
	case "volume ls":
		var rows []any
		for _, v := range slices.Sorted(slices.Values(volumes)) { // by name, as the engine lists them
			labels := ""
			if v == volumeName {
				labels = appLabel
			}
			rows = append(rows, map[string]string{"Driver": "local", "Labels": labels, "Links": "N/A",
				"Mountpoint": "/var/lib/containers/storage/volumes/" + v + "/_data", "Name": v, "Scope": "local", "Size": "N/A"})
		}
		return format(stdout, stderr, f, rows...)
	case "network ls":
		return format(stdout, stderr, f, map[string]string{"CreatedAt": day, "Driver": "bridge", "ID": networkID,
			"IPv6": "false", "Internal": "false", "Labels": "", "Name": "bridge", "Scope": "local"})
	case "events":
		var rows []any
		for _, e := range events(now) {
			rows = append(rows, e)
		}
		return format(stdout, stderr, f, rows...)
	}
	fmt.Fprintf(stderr, "docker: '%s' is not a docker command.\nSee 'docker --help'\n", cmd)
	return 1
}

// flags are a command's options; values of repeated options are joined.
type flags map[string]string

func (f flags) bool(name string) bool { _, ok := f[name]; return ok }

// boolFlags take no value.
var boolFlags = map[string]bool{"a": true, "all": true, "q": true, "quiet": true}

func parseFlags(args []string) (flags, []string, error) {
	f, pos := flags{}, []string(nil)
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			pos = append(pos, args[i:]...) // the first operand ends the options (docker create IMAGE CMD...)
			break
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !hasVal && !boolFlags[name] {
			if i+1 >= len(args) {
				return nil, nil, fmt.Errorf("--%s needs a value", name)
			}
			i++
			val = args[i]
		}
		f[name] = val
	}
	return f, pos, nil
}

// format prints each object with the --format template, as docker does
// (its `json` function included); this fake has no table output.
func format(stdout, stderr io.Writer, f flags, objs ...any) int {
	text, ok := f["format"]
	if !ok {
		fmt.Fprintln(stderr, "fake docker: only --format output is implemented")
		return 2
	}
	tmpl, err := template.New("format").Funcs(template.FuncMap{"json": func(v any) (string, error) {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		err := enc.Encode(v)
		return strings.TrimSuffix(b.String(), "\n"), err
	}}).Parse(text)
	if err != nil {
		fmt.Fprintf(stderr, "template parsing error: %v\n", err)
		return 64
	}
	for _, o := range objs {
		if err := tmpl.Execute(stdout, o); err != nil {
			fmt.Fprintf(stderr, "template: %v\n", err)
			return 64
		}
		fmt.Fprintln(stdout)
	}
	return 0
}
