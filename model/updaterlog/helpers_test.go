package updaterlog

import (
	"encoding/json"
	"strconv"
	"strings"
)

// kv is an ordered field list, as logrus prints it.
type kv [][2]string

const testTime = "2026-11-29T10:00:00Z"

// Field sets as the v1.3.0 controller logs them.
var (
	crFields  = kv{{"imageUpdater_name", "demo"}, {"imageUpdater_namespace", "argocd"}}
	appFields = kv{{"application", "argocd/web"}, {"imageUpdater_name", "demo"}, {"imageUpdater_namespace", "argocd"}}
	imgFields = kv{{"application", "argocd/web"}, {"imageUpdater_name", "demo"}, {"imageUpdater_namespace", "argocd"},
		{"image_alias", "web"}, {"image_name", "ghcr.io/acme/web"}, {"image_registry", "ghcr.io"}, {"image_tag", "1.2.3"}}
	v0Fields = kv{{"alias", "web"}, {"application", "web"}, {"image_name", "acme/web"}, {"image_tag", "1.2.3"}, {"registry", "ghcr.io"}}
)

// logrusQuote quotes a value the way logrus's TextFormatter does.
func logrusQuote(s string) string {
	if s == "" {
		return ""
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			strings.ContainsRune("-._/@^+", c)) {
			return strconv.Quote(s)
		}
	}
	return s
}

// textLine renders a logrus text line.
func textLine(level, msg string, fields kv) string {
	var b strings.Builder
	b.WriteString(`time="` + testTime + `" level=` + level + ` msg=` + logrusQuote(msg))
	for _, f := range fields {
		b.WriteString(" " + f[0] + "=" + logrusQuote(f[1]))
	}
	return b.String()
}

// jsonLine renders a logrus JSON line.
func jsonLine(level, msg string, fields kv) string {
	m := map[string]string{"time": testTime, "level": level, "msg": msg}
	for _, f := range fields {
		m[f[0]] = f[1]
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return string(b)
}
