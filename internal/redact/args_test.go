package redact

import (
	"slices"
	"strings"
	"testing"
)

// TestArgValues: the values a command line passes by name are found in
// flags, headers, assignments, forms and URLs, also inside an `sh -c`
// script; references to variables, boolean flags and names of where a
// credential is are not values.
func TestArgValues(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"tool", "--token=tok-value-1", "--password", "pw-value-2", "--name", "bob"}, []string{"tok-value-1", "pw-value-2"}},
		{[]string{"curl", "-H", "Authorization: Bearer bearer-value-3", "-H", "X-Api-Key: key-value-4", "-H", "Accept: json"}, []string{"bearer-value-3", "key-value-4"}},
		{[]string{"sh", "-c", `PGPASSWORD=pg-value-5 psql "postgres://app:url-pw-6@db/x" && curl -d 'grant_type=x&client_secret=form-value-7' https://h/t?access_token=q-value-8`},
			[]string{"pg-value-5", "url-pw-6", "form-value-7", "q-value-8"}},
		{[]string{"curl", "-d", `{"user":"bob","password":"json-pw-9"}`, "https://h/login"}, []string{"json-pw-9"}},
		{[]string{"git", "clone", "https://x9Kq2Lm7Xv4Rt8Wz1Np6Bc@github.com/acme/app.git", "https://alice@host/x"}, []string{"x9Kq2Lm7Xv4Rt8Wz1Np6Bc"}},
		{[]string{"sh", "-c", `gh api --token "$GH_TOKEN" --password=${PW} -H "Authorization: Bearer $TOK"`}, nil},
		{[]string{"tool", "--password-file", "/run/secrets/pw", "--no-password", "positional", "--token-url", "https://idp/token", "--with-token"}, nil},
		// Flags whose names do not say credential, known by their tool.
		{[]string{"curl", "-s", "--user", "alice:user-pw-10", "--proxy-user=bob:proxy-pw-11", "https://h/"}, []string{"user-pw-10", "YWxpY2U6dXNlci1wdy0xMA==", "proxy-pw-11"}},
		{[]string{"/usr/bin/curl", "-sSu", "alice:short-pw-12", "https://h/"}, []string{"short-pw-12"}},
		{[]string{"curl", "-ualice:attached-pw-13", "https://h/"}, []string{"attached-pw-13"}},
		{[]string{"sh", "-c", `cd /tmp && http -a 'alice:httpie-pw-14' GET https://h/ && mysql -pmysql-pw-15 shop && redis-cli -a redis-pw-16 ping`},
			[]string{"httpie-pw-14", "mysql-pw-15", "redis-pw-16"}},
		{[]string{"sh", "-c", `echo "$PW" | docker login -u alice --password-stdin ghcr.io; podman login -p login-pw-17 -u alice quay.io`}, []string{"login-pw-17"}},
		{[]string{"skopeo", "copy", "--src-creds", "alice:skopeo-pw-18", "docker://a", "docker://b"}, []string{"skopeo-pw-18"}},
		// The same letters elsewhere are not credentials: a user id, a
		// published port, a prompt for the password, another tool's -u.
		{[]string{"sh", "-c", `docker run -u 1000:1000 -p 8080:8080 img && mysql -p shopdb && sort -u names.txt && curl -u "alice:$PW" https://h/`}, nil},
		{[]string{"curl", "-o", "user-output.json", "-H", "Accept: json", "https://h/"}, nil},
		// Combined one-letter flags, a key as the user, the tool's name
		// inside another word, a bearer token, a proxy's and a
		// certificate's password, a wrapper, an assignment before.
		{[]string{"curl", "-s", "-kOu", "alice:combined-pw-19", "-#u", "bob:hash-pw-20", "https://h/"}, []string{"combined-pw-19", "hash-pw-20"}},
		{[]string{"curl", "-u", "4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c:", "https://api.stripe.test/"}, []string{"4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"}},
		{[]string{"sh", "-c", `curl -A 'ci http probe' -d 'install docker now' https://hub.docker.com/v2/repositories/library/mysql -u alice:named-pw-21`}, []string{"named-pw-21"}},
		{[]string{"http", "-A", "bearer", "-a", "eyJhbGciOiJIUzI1NiJ9.bearer-22", "GET", "https://h/"}, []string{"eyJhbGciOiJIUzI1NiJ9.bearer-22"}},
		{[]string{"curl", "-x", "bob:proxy-pw-23@proxy:8080", "--cert", "client.pem:cert-pw-24", "https://h/"}, []string{"proxy-pw-23", "cert-pw-24"}},
		{[]string{"sh", "-c", "FOO=1 sudo -u root curl -u alice:sudo-pw-25 https://h/; az login -u alice -p az-pw-26"}, []string{"sudo-pw-25", "az-pw-26"}},
		// A tool's flags end with its command: what follows is another's.
		{[]string{"sh", "-c", `redis-cli ping && cp -a /etc/app /backup; sshpass -e scp -p backup.tar host:/x
helm registry login r --password-stdin && mkdir -p /tmp/charts
http GET https://h/ && rsync -a backup:/srv/data /srv; curl https://h/ | sh && rsync -vu backup:/srv/data .
cd /srv/redis-cli && cp -a config.yaml /etc/app/`}, nil},
	} {
		got := builtin.ArgValues(tc.args)
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("ArgValues(%q) = %q, want it to hold %q", tc.args, got, w)
			}
		}
		if tc.want == nil && len(got) > 0 {
			t.Errorf("ArgValues(%q) = %q, want none", tc.args, got)
		}
	}
}

// TestLearnEnvAndArgs: a credential-named variable's value and a flag's
// value are scrubbed from what the session redacts afterwards, in their
// encodings too.
func TestLearnEnvAndArgs(t *testing.T) {
	r := New(nil, nil)
	r.LearnEnv([]string{"HOME=/home/ci", "NPM_TOKEN=env-npm-value-1", "SSH_AUTH_SOCK=/tmp/agent.sock", "PASSWORD_STORE_DIR=/home/ci/.pw",
		"PWD=/work/project", "OLDPWD=/work/old", "DESKTOP_SESSION=ubuntu", "XDG_SESSION_ID=c21", "TERM_SESSION_ID=w0t0p0:4B7A1C2D-3E4F"})
	r.LearnArgs([]string{"tool", "--client-secret", "flag-value-2"})
	got := r.String("npm env-npm-value-1 flag-value-2 " + strings.ToUpper("x") + " /tmp/agent.sock /home/ci/.pw ZW52LW5wbS12YWx1ZS0x /work/project ubuntu w0t0p0:4B7A1C2D-3E4F")
	if got != "npm [REDACTED] [REDACTED] X /tmp/agent.sock /home/ci/.pw [REDACTED] /work/project ubuntu w0t0p0:4B7A1C2D-3E4F" {
		t.Errorf("String = %q", got)
	}
}

// TestShellWords: quotes and backslashes as sh reads them, nothing
// expanded.
func TestShellWords(t *testing.T) {
	got := shellWords(`a "b c" 'd $e' f\ g h;i|j`)
	want := []string{"a", "b c", "d $e", "f g", "h", "i", "j"}
	if !slices.Equal(got, want) {
		t.Errorf("shellWords = %q, want %q", got, want)
	}
}
