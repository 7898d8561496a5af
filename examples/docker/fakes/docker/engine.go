package main

import (
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// The engine the fake answers for: what ./record.sh builds on a fresh
// engine, in this order — an image imported from rootfs.tar.gz, a
// container created from it (never started: the machines this example is
// recorded on cannot run one), a volume. Every call shape reads this state;
// the calls that built it print what they printed then.

const (
	imageRepo    = "example/motd"
	imageTag     = "1"
	imageComment = "cassette example"
	imageSize    = 11332 // bytes: rootfs.tar.gz unpacked, as the engine counts them

	containerName    = "web"
	containerCommand = "/bin/sh -c cat /etc/motd"

	volumeName = "data"
	appLabel   = "app=web"

	serverVersion = "4.3.1" // podman
	apiVersion    = "1.41"
	minAPIVersion = "1.24"
	storageDriver = "vfs"
)

// volumes are the engine's volumes, in creation order.
var volumes = []string{volumeName}

// id is a stable 64-hex id for a name: the real ids are random, and the
// normalizers number them (<sha:1>), so only their identity matters.
func id(name string) string {
	sum := sha256.Sum256([]byte(name))
	return hex.EncodeToString(sum[:])
}

var (
	imageID     = id("image " + imageRepo + ":" + imageTag)
	containerID = id("container " + containerName)
	networkID   = "2f259bab93aa" // podman's default network
)

// event is one line of `docker events --format '{{json .}}'`, fields in
// the order the engine writes them.
type event struct {
	Status string `json:"status"`
	ID     string `json:"id,omitempty"`
	From   string `json:"from,omitempty"`
	Type   string `json:"Type"`
	Action string `json:"Action"`
	Actor  actor  `json:"Actor"`
	Scope  string `json:"scope"`
	Time   int64  `json:"time"`
	Nano   int64  `json:"timeNano"`
}

type actor struct {
	ID         string            `json:"ID"`
	Attributes map[string]string `json:"Attributes"`
}

// events is what the engine logged, oldest first: its own start, then each
// call that changed it.
func events(now time.Time) []event {
	attrs := func(kv ...string) map[string]string {
		m := map[string]string{"containerExitCode": "0", "image": "", "name": "", "podId": ""}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	ref := "docker.io/" + imageRepo + ":" + imageTag
	evs := []event{
		{Status: "refresh", Type: "system", Action: "refresh", Actor: actor{Attributes: attrs()}},
		{Status: "tag", ID: imageID, Type: "image", Action: "tag", Actor: actor{ID: imageID, Attributes: attrs("name", ref)}},
		{Status: "create", ID: containerID, From: ref, Type: "container", Action: "create",
			Actor: actor{ID: containerID, Attributes: attrs("app", "web", "image", ref, "name", containerName)}},
	}
	for _, v := range volumes {
		evs = append(evs, event{Status: "create", Type: "volume", Action: "create", Actor: actor{Attributes: attrs("name", v)}})
	}
	for i := range evs {
		evs[i].Scope, evs[i].Time, evs[i].Nano = "local", now.Unix(), now.UnixNano()
	}
	return evs
}
