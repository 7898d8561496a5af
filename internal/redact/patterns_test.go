package redact

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// sample writes a random string that re matches: a letter or digit from
// each class where it can (so that tokens have entropy), a count from
// each repetition, an alternative from each alternation.
func sample(b *strings.Builder, re *syntax.Regexp, rnd *rand.Rand) {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 && rnd.IntN(2) == 0 {
				r = []rune(strings.ToUpper(string(r)))[0]
			}
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		b.WriteRune(classRune(re.Rune, rnd))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteRune(rune('a' + rnd.IntN(26)))
	case syntax.OpCapture:
		sample(b, re.Sub[0], rnd)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			sample(b, s, rnd)
		}
	case syntax.OpAlternate:
		sample(b, re.Sub[rnd.IntN(len(re.Sub))], rnd)
	case syntax.OpQuest:
		if rnd.IntN(2) == 0 {
			sample(b, re.Sub[0], rnd)
		}
	case syntax.OpStar, syntax.OpPlus, syntax.OpRepeat:
		lo, hi := 0, 3
		switch re.Op {
		case syntax.OpPlus:
			lo = 1
		case syntax.OpRepeat:
			lo, hi = re.Min, re.Max
			if hi < 0 {
				hi = lo + 3
			}
		}
		for range lo + rnd.IntN(hi-lo+1) {
			sample(b, re.Sub[0], rnd)
		}
	}
}

// classRune picks a rune of a class, an ASCII letter or digit when the
// class has one.
func classRune(ranges []rune, rnd *rand.Rand) rune {
	var alnum, any []rune
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1] && r < 0x80; r++ {
			any = append(any, r)
			if r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
				alnum = append(alnum, r)
			}
		}
	}
	switch {
	case len(alnum) > 0 && rnd.IntN(10) > 0:
		return alnum[rnd.IntN(len(alnum))]
	case len(any) > 0:
		return any[rnd.IntN(len(any))]
	}
	return ranges[0]
}

// reference finds the secrets of one pattern the way gitleaks does: its
// whole expression (the original, leading part included) over the whole
// text, FindAll, then the same judgement of each secret.
func reference(p *Pattern, rs *ruleSet, data []byte) []string {
	re := regexp.MustCompile(p.Expr)
	var out []string
	for _, loc := range re.FindAllSubmatchIndex(data, -1) {
		if s, ok := p.secret(data, loc, rs); ok {
			out = append(out, string(data[s.start:s.end]))
		}
	}
	return out
}

// TestEveryPatternFindsWhatItsExpressionMatches: for random strings each
// pattern's expression matches, set in text, the scan (keywords, anchored
// tries, windows) finds the same secrets as the expression run over the
// whole text, and every pattern finds at least one of its samples — so
// every keyword is in every match, and every rule can fire.
func TestEveryPatternFindsWhatItsExpressionMatches(t *testing.T) {
	rs := rules()
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := range rs.patterns {
		p := &rs.patterns[i]
		t.Run(p.Name, func(t *testing.T) {
			tree, err := syntax.Parse(p.Expr, syntax.Perl)
			if err != nil {
				t.Fatal(err)
			}
			found := 0
			for range 60 {
				var b strings.Builder
				sample(&b, tree, rnd)
				s := b.String()
				if !utf8.ValidString(s) {
					continue
				}
				for _, text := range []string{"x = " + s + "\n", `{"v":"` + s + `"}`, s} {
					data := []byte(text)
					want := reference(p, rs, data)
					var got []string
					for _, sp := range p.search(data, occurrencesOf(rs, i, data), rs, nil) {
						got = append(got, string(data[sp.start:sp.end]))
					}
					if !slices.Equal(got, want) {
						t.Fatalf("in %q the scan finds %q, the whole expression %q", text, got, want)
					}
					found += len(got)
				}
			}
			if found == 0 {
				t.Errorf("no sample of %s was found: its keywords, entropy or allowlists reject what it matches", p.Name)
			}
		})
	}
}

// occurrencesOf is the keyword index's finds for pattern pi.
func occurrencesOf(rs *ruleSet, pi int, data []byte) []occurrence {
	var out []occurrence
	for _, o := range rs.index.find(data) {
		if slices.Contains(rs.index.kws[o.kw].patterns, int32(pi)) {
			out = append(out, o)
		}
	}
	return out
}

// TestKnownFormats: a realistic token of each kind the issue named is found
// (and reported under its rule, at the token), redacted, and gone from
// what Redact returns; documentation examples are neither.
func TestKnownFormats(t *testing.T) {
	for _, tc := range []struct{ kind, text, secret string }{
		{"github-pat", `token: ghp_R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aE4u`, "ghp_R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aE4u"},
		{"gitlab-pat", `{"token":"glpat-Xk29PqL7mZ4vN8tR2wYb"}`, "glpat-Xk29PqL7mZ4vN8tR2wYb"},
		{"npm-access-token", `//registry.npmjs.org/:_authToken=npm_a8Kq2Lm9Xv4Rt7Wz1Np6Bc3Df5Jk0Sy8Ue2I`, "npm_a8Kq2Lm9Xv4Rt7Wz1Np6Bc3Df5Jk0Sy8Ue2I"},
		{"google-oauth-access-token", `Authorization-less echo: ya29.a0AfH6SMBx7Kq2Lm9Xv4Rt8Wz1Np6Bc3Df5Jk0Sy`, "ya29.a0AfH6SMBx7Kq2Lm9Xv4Rt8Wz1Np6Bc3Df5Jk0Sy"},
		{"aws-access-token", `"AccessKeyId": "AKIAQ3EGT7DKXW5HNZ2L"`, "AKIAQ3EGT7DKXW5HNZ2L"},
		{"url-password", `{"dsn":"postgres://app:Pg-s3cr3t-9xQ@db.internal:5432/shop"}`, "Pg-s3cr3t-9xQ"},
		{"url-password", `mongodb+srv://ops:M0ng0pw7Q@cluster0.example.net/?retryWrites=true`, "M0ng0pw7Q"},
		{"url-token", `remote: https://x9Kq2Lm7Xv4Rt8Wz1Np6Bc@github.com/acme/app.git`, "x9Kq2Lm7Xv4Rt8Wz1Np6Bc"},
		{"dsn-password", `"conn": "host=db user=app password=Pq7-wLm2xZ dbname=shop"`, "Pq7-wLm2xZ"},
		{"dsn-password", `Server=tcp:db;Database=shop;User Id=app;Password=Ad0-N3t9qx;`, "Ad0-N3t9qx"},
		{"dsn-password", `"conn": "host=db password=Pq7.wLm2xZ"`, "Pq7.wLm2xZ"}, // a dot, written as a DSN writes it (no spaces): not code
		{"private-key", "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n", "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n"},
		// #35's formats.
		{"openai-ephemeral-key", `{"client_secret":{"value":"ek_68af3c2b9e1d4f7a8c0b5e6d","expires_at":1756000000}}`, "ek_68af3c2b9e1d4f7a8c0b5e6d"},
		{"stripe-webhook-secret", `STRIPE_WEBHOOK_SECRET=whsec_Pq7wLm2xZk4vRt8yN3bC6dF1hJ5s`, "whsec_Pq7wLm2xZk4vRt8yN3bC6dF1hJ5s"},
		{"google-oauth-client-secret", `"client_secret": "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"`, "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"},
		{"google-oauth-refresh-token", `refresh: 1//0gPq7wLm2xZk4vRt8yN3bC6dF1hJ5sD0gY2aE4uLm9Xv4Rt8Wz`, "1//0gPq7wLm2xZk4vRt8yN3bC6dF1hJ5sD0gY2aE4uLm9Xv4Rt8Wz"},
		{"azure-storage-account-key", `DefaultEndpointsProtocol=https;AccountName=shop;AccountKey=` + strings.Repeat("Pq7wLm2xZk4vRt8yN3bC6dF1hJ5s", 3) + `Ab==;EndpointSuffix=core.windows.net`, strings.Repeat("Pq7wLm2xZk4vRt8yN3bC6dF1hJ5s", 3) + "Ab=="},
		{"discord-bot-token", `curl -H "Authorization: Bot MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs"`, "MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs"},
		{"slack-bot-token", `"token": "xoxb-918273645012-1029384756102-Pq7wLm2xZk4vRt8y"`, "xoxb-918273645012-1029384756102-Pq7wLm2xZk4vRt8y"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			data := []byte(tc.text)
			spans := rules().find(data, true)
			if len(spans) != 1 || spans[0].p.Name != tc.kind || string(data[spans[0].start:spans[0].end]) != tc.secret {
				var got []string
				for _, s := range spans {
					got = append(got, s.p.Name+"="+string(data[s.start:s.end]))
				}
				t.Fatalf("found %q, want %s=%s", got, tc.kind, tc.secret)
			}
			red := Redact(data, nil)
			if bytes.Contains(red, []byte(tc.secret)) || !bytes.Contains(red, []byte(Redacted)) {
				t.Errorf("Redact = %s", red)
			}
			if f := Scan(red, nil); len(f) != 0 {
				t.Errorf("redacted text still scans dirty: %+v", f)
			}
		})
	}
	for _, ex := range []string{
		"aws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
		`{"AccessKeyId":"AKIAI44QH8DHBEXAMPLE","SecretAccessKey":"je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY"}`,
		"Authorization: see eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c in the docs",
		"curl https://api.stripe.com/v1/charges -u sk_test_4eC39HqLyjWDarjtT1zdp7dc:",
		"postgres://app:${DB_PASSWORD}@db/shop host=db password=$PGPASSWORD",
		// From the Google API discovery documents in the Go module cache.
		`"description": "Example: -----BEGIN RSA PRIVATE KEY----- -----END RSA PRIVATE KEY----- @InputOnly"`,
		`"description": "accessed from the internet at ` + "`https://username:password@endpoint/`" + `."`,
		"PWD=/work/project OLDPWD=/home/ci",
		// Source code in HTML and JavaScript bodies (#35: npm tarballs, web
		// pages), from npm's own files and the issue's.
		`var password = document.getElementById("pw").value;`,
		`const password = querystring.unescape(auth.slice(i + 1));`,
		`const password = input.password || process.env.COREPACK_NPM_PASSWORD;`,
		`    let password = this.npm.config.get('password')`,
		`    const password = await readUserInfo.password()`,
		`key="-----BEGIN PRIVATE KEY-----\nXXXX\nXXXX\n-----END PRIVATE KEY-----"`,
		"-----BEGIN PRIVATE KEY-----\n...{your private key here}...\n-----END PRIVATE KEY-----",
		`"PrivateKey": "-----BEGIN DSA PRIVATE KEY-----<a very long private key string>-----END DSA PRIVATE KEY-----"`,
		`new URL('https://abc:xyz@example.com'); // Prints https://abc:123@example.com/`,
	} {
		if f := Scan([]byte(ex), nil); len(f) != 0 {
			t.Errorf("a documentation example is a finding %+v:\n%s", f, ex)
		}
		if got := RedactString(ex, nil); got != ex {
			t.Errorf("a documentation example was redacted:\n%s\n→\n%s", ex, got)
		}
	}
}

// TestRealCassettesScanClean: the rules that refuse find nothing in the
// real cassettes of ../shared/testdata and the examples' (the README's
// false-positive figure for them: 0). A rule that starts finding something
// there must be looked at before it refuses users' files.
func TestRealCassettesScanClean(t *testing.T) {
	files := 0
	for _, root := range []string{filepath.Join("..", "..", "..", "shared", "testdata"), filepath.Join("..", "..", "examples")} {
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			files++
			for _, f := range Scan(data, nil) {
				t.Errorf("%s:%d:%d: %s", p, f.Line, f.Column, f.Kind)
			}
			return nil
		})
	}
	if files < 90 {
		t.Errorf("scanned %d real cassettes, want the ~100 of ../shared/testdata and examples/", files)
	}
}
