#!/usr/bin/env bash
# make-repo.sh DIR: the repository teamtool's git cassettes are recorded from,
# a repository of its own (record refuses a real.dir inside this project's).
set -euo pipefail
dir=${1:?usage: make-repo.sh DIR}
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
g() { git -c user.name='Ada Lovelace' -c user.email=ada@example.com -c commit.gpgsign=false "$@"; }
g init -q -b main .
printf '# hello\n' > README.md && g add README.md && g commit -q -m 'Initial commit'
printf 'print("hello")\n' > hello.py && g add hello.py && g commit -q -m 'Add hello.py'
printf '# hello\n\nSays hello.\n' > README.md && g commit -q -a -m 'Document it'
