#!/usr/bin/env bash
# make-repo.sh DIR: create the repository the git example records from.
#
# The content is fixed (the fake git in fakes/git reproduces it); the SHAs and
# dates are not (they depend on when this runs), which is what the
# normalizers in cassette.yaml are for. Nothing here reads the user's git
# configuration, so the result is the same on every machine.
set -euo pipefail
dir=${1:?usage: make-repo.sh DIR}
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir"

export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
g() { git -c user.name='Ada Lovelace' -c user.email=ada@example.com -c commit.gpgsign=false "$@"; }

g init -q -b main .

printf '# greet\n\nSays hello.\n' > README.md
g add README.md
g commit -q -m 'Initial commit'

cat > main.go <<'GO'
package main

import "fmt"

func main() {
	fmt.Println("hello")
}
GO
printf 'module example.com/greet\n\ngo 1.26\n' > go.mod
g add main.go go.mod
g commit -q -m 'Add the greet program'

printf '# greet\n\nSays hello to whoever runs it.\n\n    go run .\n' > README.md
g commit -q -a -m 'Document how to run it'

# A working tree with one change of each kind: staged, unstaged, untracked.
printf '# Changelog\n' > CHANGELOG.md
g add CHANGELOG.md
printf '\n// TODO: take a name.\n' >> main.go
printf 'scratch\n' > notes.txt
