package cluster

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Environment variables of Image Updater whose literal values are
// configuration, not secrets, and may be printed.
var printableEnv = map[string]bool{
	"ARGOCD_NAMESPACE": true, "IMAGE_UPDATER_WATCH_NAMESPACES": true, "IMAGE_UPDATER_INTERVAL": true,
	"IMAGE_UPDATER_LOGLEVEL": true, "IMAGE_UPDATER_LOGFORMAT": true, "IMAGE_UPDATER_KUBE_EVENTS": true,
	"MAX_CONCURRENT_APPS": true, "MAX_CONCURRENT_RECONCILES": true,
	"GIT_COMMIT_USER": true, "GIT_COMMIT_EMAIL": true, "GIT_COMMIT_SIGNING_METHOD": true, "GIT_COMMIT_SIGN_OFF": true,
	"ENABLE_WEBHOOK": true, "WEBHOOK_PORT": true, "WEBHOOK_REQUIRE_SECRET": true, "WEBHOOK_RATELIMIT_ALLOWED": true,
	"DISABLE_TLS": true, "TLS_MIN_VERSION": true, "TLS_MAX_VERSION": true, "TLS_CIPHERS": true,
	"HTTP_PROXY": true, "HTTPS_PROXY": true, "NO_PROXY": true, "http_proxy": true, "https_proxy": true, "no_proxy": true,
	"ARGOCD_SERVER": true, "ARGOCD_INSECURE": true, "ARGOCD_PLAINTEXT": true, "ARGOCD_GRPC_WEB": true,
}

// sensitiveWords mark flags whose values are credentials.
var sensitiveWords = []string{"token", "secret", "password", "passwd", "cred", "private", "key", "auth"}

// Printable reports whether Value may appear in output: values from
// ConfigMaps and the downward API, and literal values of Image Updater's
// known configuration variables. Any other literal may be a credential
// somebody wrote into the Deployment.
func (e EnvVar) Printable() bool {
	if e.SecretRef != nil {
		return false
	}
	return e.ConfigMapRef != nil || e.EnvFrom != "" || e.FieldRef != "" || printableEnv[e.Name]
}

// DisplayValue is Value for output: "***" unless Printable, and passwords in
// URLs replaced by "xxxxx".
func (e EnvVar) DisplayValue() string {
	switch {
	case e.Value == "":
		return ""
	case !e.Printable():
		return "***"
	}
	return redactURL(e.Value)
}

// String prints the variable with DisplayValue.
func (e EnvVar) String() string { return fmt.Sprintf("%v", e) }

// GoString prints the variable with DisplayValue.
func (e EnvVar) GoString() string { return fmt.Sprintf("%#v", e) }

// Format prints the variable for every verb with DisplayValue in place of
// Value.
func (e EnvVar) Format(f fmt.State, verb rune) {
	prefix := "EnvVar"
	if verb == 'v' && f.Flag('#') {
		prefix = "cluster.EnvVar"
	}
	_, _ = io.WriteString(f, fmt.Sprintf("%s{Name:%s Value:%s Source:%s Resolved:%t Missing:%t}",
		prefix, e.Name, e.DisplayValue(), e.Source(), e.Resolved, e.Missing))
}

// MarshalJSON writes DisplayValue in place of Value.
func (e EnvVar) MarshalJSON() ([]byte, error) {
	type plain EnvVar
	p := plain(e)
	p.Value = e.DisplayValue()
	return json.Marshal(p)
}

// redactArgs hides values of flags whose names suggest credentials (v0.x had
// --argocd-auth-token) and passwords in URLs.
func redactArgs(args []string) []string {
	out := make([]string, len(args))
	hideNext := false
	for i, a := range args {
		switch {
		case hideNext && !strings.HasPrefix(a, "-"):
			out[i], hideNext = "***", false
			continue
		case strings.HasPrefix(a, "-"):
			name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			secret := sensitiveFlag(name)
			hideNext = secret && !hasValue
			if hasValue {
				eq := strings.Index(a, "=")
				if secret {
					out[i] = a[:eq+1] + "***"
				} else {
					out[i] = a[:eq+1] + redactURL(a[eq+1:])
				}
				continue
			}
		default:
			hideNext = false
		}
		out[i] = redactURL(a)
	}
	return out
}

func sensitiveFlag(name string) bool {
	n := strings.ToLower(name)
	for _, w := range sensitiveWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}
