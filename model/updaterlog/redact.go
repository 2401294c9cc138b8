package updaterlog

import (
	"strings"

	"github.com/imgupd/imgupd/internal/lazyre"
)

// Mask replaces every secret Redact finds.
const Mask = "***"

// secretKey matches the names of keys whose values are secrets, or their
// tail: the characters before the keyword are left as they are anyway.
// A bare secret, pw or pass is a key only as a whole word (secretName,
// bypass and pwm are not).
const secretKey = `(?:password|passwd|passphrase|secret_?key|client_?secret|access_?key|private_?key|privatekey|api_?key|apikey|token)[\w.-]*|secret\b|\bpwd|\bpw\b|\bpass\b|\bauth`

// secretKeywords are the lower-case literals one of which a secret key
// contains; they gate the key=value pattern cheaply.
var secretKeywords = []string{"pass", "secret", "key", "token", "pwd", "pw", "auth"}

var (
	privateKeyRE = lazyre.New(`(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)`)
	// Authorization: <scheme> <credentials>, as header, field or JSON member.
	authHeaderRE = lazyre.New(`(?i)(\bauthorization\\?["']?\s*[:=]\s*\\?["']?\s*)(?:(bearer|basic|token|digest|negotiate)\s+)?([^\s"'\\,;]+)`)
	bearerRE     = lazyre.New(`(?i)\b(bearer)\s+[A-Za-z0-9\-._~+/]+=*`)
	// key=value, key: value, "key":"value", \"key\":\"value\" (JSON inside a quoted msg).
	keyValueRE = lazyre.New(`(?i)(` + secretKey + `)(\\?["']?[ \t]*[:=][ \t]*)(\\?"(?:[^"\\]|\\.)*?\\?"|'[^']*'|[^\s"'\\,;&}\])]+)`)
	// key: value as prose or YAML writes it (a space after the colon, the
	// value unquoted): the value may hold spaces, so it runs to the end of
	// the line or a quote ("password: a b" leaked the b).
	keyColonRE = lazyre.New(`(?i)(` + secretKey + `)([ \t]*:[ \t]+)([^\s"'\\][^\r\n"'\\]*)`)
	// A credential reference written key:namespace/name (pullsecret:,
	// secret:, git:secret:) names a Secret; it is no secret itself.
	secretRefRE = lazyre.New(`^[a-z0-9]([a-z0-9.-]*[a-z0-9])?/[a-z0-9]([a-z0-9.-]*[a-z0-9])?(#[\w.-]+)?$`)
	// Command-line flags that take a secret: docker login -p S3cret,
	// --password S3cret, --token=S3cret.
	flagRE      = lazyre.New(`(^|[\s"'])(-p|--password|--passwd|--pass|--token|--secret|--client-secret|--api-key)([ \t]+|=)([^\s"'\\-][^\s"'\\]*)`)
	secretKeyRE = lazyre.New(`(?i)^[\w.-]*?(?:` + secretKey + `)$`)
	// Well-known token shapes: GitHub, GitLab, Slack, AWS access keys, JWTs.
	tokenShapeRE = lazyre.New(`\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_\-]{20,}|xox[abposr]-[A-Za-z0-9-]{10,}|xapp-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})\b`)
	// A credential reference that is not of a known form may be a raw user:password.
	credRefRE   = lazyre.New(`(` + credRefPrefix + `)([^\s"\\]+)`)
	knownCredRE = lazyre.New(`^(?:[^=\s]+=)?(?:pullsecret|secret|env|ext):`)
	// credRefValueRE is a whole credential reference, as a field's value
	// (pull_secret=pullsecret:argocd/regcred): kept under a secret-like key.
	credRefValueRE = lazyre.New(`^(?:[^=\s]+=)?(?:(?:git:)?(?:pullsecret|secret):[a-z0-9][a-z0-9.-]*/[a-z0-9][a-z0-9.-]*(?:#[\w.-]+)?|env:[A-Za-z_][A-Za-z0-9_]*|ext:/[^\s]*)$`)
)

// Redact masks secrets that may appear in log text: the userinfo of URLs
// (https://user:pass@host, up to the last @ of the host part, so a
// password holding an @ or a / goes too), Authorization headers and bearer
// tokens, values of password/token/secret/pw/pass-like keys (key=value,
// JSON members, also escaped inside a quoted logrus msg; key: value to the
// end of the line or quote, so every word of it), secret-taking flags (-p
// S3cret, --password S3cret, --token=S3cret), private key blocks,
// well-known token shapes (GitHub, GitLab, Slack, AWS, JWT) and credential
// references that are not of a known form. Credential references
// (pullsecret:ns/name, git:secret:ns/name, secret:ns/name#field) name a
// Secret and stay, as does everything else.
//
// Redact is idempotent: Redact(Redact(s)) == Redact(s). It errs on the side
// of masking: a masked non-secret costs a little evidence, a leaked secret
// cannot be taken back.
func Redact(s string) string {
	// Each rule's output is stable under every rule; the loop only guards
	// against rules uncovering each other's matches.
	for range 8 {
		next := redactOnce(s)
		if next == s {
			return s
		}
		s = next
	}
	return s
}

func redactOnce(s string) string {
	// Cheap literal checks keep the regexps off the common line without secrets.
	// First the rule anchored on Image Updater's message: a key=value rule before it would mask the
	// message's first word under a secret-like key before it ("pass= Invalid credential reference
	// specified: user:S3cret") and leave the reference unmasked.
	if strings.Contains(s, credRefPrefix) {
		s = credRefRE().ReplaceAllStringFunc(s, func(m string) string {
			sub := credRefRE().FindStringSubmatch(m)
			if knownCredRE().MatchString(sub[2]) {
				return m
			}
			return sub[1] + Mask
		})
	}
	lower := strings.ToLower(s)
	if strings.Contains(s, "PRIVATE KEY") {
		s = privateKeyRE().ReplaceAllString(s, "[REDACTED PRIVATE KEY]")
	}
	if strings.Contains(s, "://") && strings.Contains(s, "@") {
		s = maskUserinfo(s)
	}
	if strings.Contains(lower, "authorization") {
		s = authHeaderRE().ReplaceAllStringFunc(s, func(m string) string {
			sub := authHeaderRE().FindStringSubmatch(m)
			if sub[2] != "" {
				return sub[1] + sub[2] + " " + Mask
			}
			return sub[1] + Mask
		})
	}
	if strings.Contains(lower, "bearer") {
		s = bearerRE().ReplaceAllString(s, "${1} "+Mask)
	}
	if strings.ContainsAny(s, "=:") && containsAny(lower, secretKeywords) {
		s = keyColonRE().ReplaceAllStringFunc(s, func(m string) string {
			sub := keyColonRE().FindStringSubmatch(m)
			if first, _, _ := strings.Cut(sub[3], " "); credRefValueRE().MatchString(first) {
				return m // pullSecret: pullsecret:argocd/regcred
			}
			return sub[1] + sub[2] + Mask
		})
		s = keyValueRE().ReplaceAllStringFunc(s, func(m string) string {
			sub := keyValueRE().FindStringSubmatch(m)
			if (sub[2] == ":" && secretRefRE().MatchString(sub[3])) || credRefValueRE().MatchString(sub[3]) {
				return m // pullsecret:argocd/regcred, pull_secret=secret:argocd/creds#token
			}
			return sub[1] + sub[2] + maskValue(sub[3])
		})
	}
	if strings.Contains(s, "-p") {
		s = flagRE().ReplaceAllString(s, "${1}${2}${3}"+Mask)
	}
	if containsAny(s, tokenPrefixes) {
		s = tokenShapeRE().ReplaceAllString(s, Mask)
	}
	return s
}

// tokenPrefixes gate tokenShapeRE.
var tokenPrefixes = []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xox", "xapp-", "AKIA", "eyJ"}

const credRefPrefix = "Invalid credential reference specified: "

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// maskUserinfo masks the userinfo of every scheme://userinfo@host in s.
// Userinfo should not hold an unescaped / ? # or @, but passwords in logs
// do (https://u:p@ss@host, a base64 token with a /): it runs to the last @
// before the URL ends (a space, a quote, a backslash), when what comes
// before that @ has a colon (user:password) or no / (a user or a token).
// An @ further along a path (https://host/v2/@scope) is left alone.
func maskUserinfo(s string) string {
	var b strings.Builder
	rest := s
	for {
		i := strings.Index(rest, "://")
		if i < 0 {
			break
		}
		start := i + len("://")
		end := start
		for end < len(rest) && !strings.ContainsRune(" \t\r\n\"'\\", rune(rest[end])) {
			end++
		}
		b.WriteString(rest[:start])
		at := strings.LastIndexByte(rest[start:end], '@')
		if at > 0 {
			if info := rest[start : start+at]; strings.Contains(info, ":") || !strings.Contains(info, "/") {
				b.WriteString(Mask)
				start += at
			}
		}
		rest = rest[start:]
	}
	if b.Len() == 0 {
		return s
	}
	b.WriteString(rest)
	return b.String()
}

// maskValue masks a value and keeps its quotes.
func maskValue(v string) string {
	switch {
	case strings.HasPrefix(v, `\"`) && strings.HasSuffix(v, `\"`) && len(v) >= 4:
		return `\"` + Mask + `\"`
	case strings.HasPrefix(v, `"`) && strings.HasSuffix(v, `"`) && len(v) >= 2:
		return `"` + Mask + `"`
	case strings.HasPrefix(v, `'`) && strings.HasSuffix(v, `'`) && len(v) >= 2:
		return `'` + Mask + `'`
	}
	return Mask
}

// Redacted returns a copy of the line with secrets masked in Raw, Msg and
// every field value; values of secret-like keys are masked whole.
func (l Line) Redacted() Line {
	out := l
	out.Raw = Redact(l.Raw)
	out.Msg = Redact(l.Msg)
	if l.Fields != nil {
		out.Fields = make(map[string]string, len(l.Fields))
		for k, v := range l.Fields {
			if v != "" && secretKeyRE().MatchString(k) && !credRefValueRE().MatchString(v) {
				out.Fields[k] = Mask
				continue
			}
			out.Fields[k] = Redact(v)
		}
	}
	return out
}

// Redacted returns a copy of the event with its line and captures redacted.
func (e Event) Redacted() Event {
	out := Event{Line: e.Line.Redacted(), Match: e.Match}
	if e.Captures != nil {
		out.Captures = make(map[string]string, len(e.Captures))
		for k, v := range e.Captures {
			if e.Code == CodeCredsInvalidReference && k == "reference" && !knownCredRE().MatchString(v) {
				v = Mask
			}
			out.Captures[k] = Redact(v)
		}
	}
	return out
}
