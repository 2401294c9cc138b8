package cluster

import (
	"context"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// KeyRef names one key of a Secret or ConfigMap (an env valueFrom).
type KeyRef struct {
	Name, Key string
	Optional  bool
}

// EnvVar is one environment variable of the controller container.
type EnvVar struct {
	Name string
	// Value is the value the process sees when Resolved: a literal, a
	// ConfigMap value, or a downward-API namespace. Secret values are never
	// read (SecretRef set, Resolved false).
	Value                   string
	SecretRef, ConfigMapRef *KeyRef
	// FieldRef is a downward-API fieldPath (e.g. metadata.namespace).
	FieldRef string
	Resolved bool
	// Missing is set when the referenced ConfigMap or key does not exist: an
	// optional reference leaves the variable unset; a required one keeps the
	// pod from starting.
	Missing bool
	// EnvFrom names the ConfigMap an envFrom entry imported this from.
	EnvFrom string
}

// Source describes where the value comes from, for evidence.
func (e EnvVar) Source() string {
	switch {
	case e.SecretRef != nil:
		return fmt.Sprintf("Secret %s key %s (value not read)", e.SecretRef.Name, e.SecretRef.Key)
	case e.ConfigMapRef != nil:
		s := fmt.Sprintf("ConfigMap %s key %s", e.ConfigMapRef.Name, e.ConfigMapRef.Key)
		if e.Missing {
			s += " (missing)"
		}
		return s
	case e.EnvFrom != "":
		return "envFrom ConfigMap " + e.EnvFrom
	case e.FieldRef != "":
		return "fieldRef " + e.FieldRef
	}
	return "literal"
}

// LookupEnv returns the effective definition of an environment variable:
// the last one (Kubernetes lets later entries and env override envFrom).
func (u *UpdaterInstall) LookupEnv(name string) (EnvVar, bool) {
	for i := len(u.Env) - 1; i >= 0; i-- {
		if u.Env[i].Name == name {
			return u.Env[i], true
		}
	}
	return EnvVar{}, false
}

// Getenv is the value the process sees for name: ("", true) when it is
// unset; known is false when it comes from a Secret (or a ConfigMap that
// could not be read).
func (u *UpdaterInstall) Getenv(name string) (value string, known bool) {
	e, ok := u.LookupEnv(name)
	switch {
	case !ok || e.Missing:
		return "", true
	case !e.Resolved:
		return "", false
	}
	return e.Value, true
}

// Proxy is the proxy configuration Go's net/http derives from the
// environment (httpproxy.FromEnvironment): for each setting the upper-case
// variable if non-empty, else the lower-case one. Passwords in proxy URLs
// are replaced by "xxxxx". Unknown names proxy variables set from Secrets,
// whose values were not read.
type Proxy struct {
	HTTPProxy, HTTPSProxy, NoProxy string
	Unknown                        []string
}

// configMapCache reads each ConfigMap of the install namespace once.
type configMapCache struct {
	r    *Reader
	ns   string
	data map[string]map[string]string
	errs map[string]error
}

// get returns the data (nil with notFound when absent) or the read error.
func (c *configMapCache) get(ctx context.Context, name string) (data map[string]string, notFound bool, err error) {
	if d, ok := c.data[name]; ok {
		return d, d == nil, nil
	}
	if err, ok := c.errs[name]; ok {
		return nil, false, err
	}
	d, err := c.r.ConfigMap(ctx, c.ns, name)
	if err != nil {
		if IsNotFound(err) {
			c.data[name] = nil
			return nil, true, nil
		}
		c.errs[name] = err
		return nil, false, err
	}
	c.data[name] = d
	return d, false, nil
}

// failures are the reads that failed other than for a missing ConfigMap.
func (c *configMapCache) failures() []error {
	names := make([]string, 0, len(c.errs))
	for n := range c.errs {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]error, len(names))
	for i, n := range names {
		out[i] = c.errs[n]
	}
	return out
}

// resolveEnv lists the container's environment: envFrom ConfigMaps first
// (keys sorted, as the kubelet does not promise an order), then env.
func resolveEnv(ctx context.Context, c *corev1.Container, cms *configMapCache) ([]EnvVar, []string) {
	var out []EnvVar
	var secrets []string
	for _, ef := range c.EnvFrom {
		switch {
		case ef.SecretRef != nil:
			secrets = append(secrets, ef.SecretRef.Name)
		case ef.ConfigMapRef != nil:
			d, _, err := cms.get(ctx, ef.ConfigMapRef.Name)
			if err != nil {
				continue
			}
			keys := make([]string, 0, len(d))
			for k := range d {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				out = append(out, EnvVar{Name: ef.Prefix + k, Value: d[k], Resolved: true, EnvFrom: ef.ConfigMapRef.Name})
			}
		}
	}
	for _, e := range c.Env {
		v := EnvVar{Name: e.Name, Value: e.Value, Resolved: true}
		if vf := e.ValueFrom; vf != nil {
			v.Value, v.Resolved = "", false
			switch {
			case vf.SecretKeyRef != nil:
				v.SecretRef = &KeyRef{Name: vf.SecretKeyRef.Name, Key: vf.SecretKeyRef.Key, Optional: vf.SecretKeyRef.Optional != nil && *vf.SecretKeyRef.Optional}
			case vf.ConfigMapKeyRef != nil:
				ref := vf.ConfigMapKeyRef
				v.ConfigMapRef = &KeyRef{Name: ref.Name, Key: ref.Key, Optional: ref.Optional != nil && *ref.Optional}
				d, notFound, err := cms.get(ctx, ref.Name)
				if err == nil {
					val, ok := d[ref.Key]
					v.Value, v.Resolved, v.Missing = val, ok, notFound || !ok
				}
			case vf.FieldRef != nil:
				v.FieldRef = vf.FieldRef.FieldPath
				if v.FieldRef == "metadata.namespace" {
					v.Value, v.Resolved = cms.ns, true
				}
			}
		}
		out = append(out, v)
	}
	return out, secrets
}

// expandArgs expands $(VAR) with resolved env values and $$ to $, like the
// kubelet; references it cannot resolve (Secrets) stay as written.
func expandArgs(args []string, env []EnvVar) []string {
	vals := map[string]string{}
	for _, e := range env {
		if e.Resolved && !e.Missing {
			vals[e.Name] = e.Value
		} else {
			delete(vals, e.Name)
		}
	}
	out := make([]string, len(args))
	for i, a := range args {
		var b strings.Builder
		for j := 0; j < len(a); j++ {
			if a[j] != '$' || j+1 >= len(a) {
				b.WriteByte(a[j])
				continue
			}
			switch a[j+1] {
			case '$':
				b.WriteByte('$')
				j++
				continue
			case '(':
				if end := strings.IndexByte(a[j:], ')'); end > 0 {
					if v, ok := vals[a[j+2:j+end]]; ok {
						b.WriteString(v)
						j += end
						continue
					}
				}
			}
			b.WriteByte(a[j])
		}
		out[i] = b.String()
	}
	return out
}

// flag returns the last value given for --name (as --name=v or --name v).
func (u *UpdaterInstall) flag(name string) (string, bool) {
	val, found := "", false
	for i, a := range u.Args {
		switch {
		case strings.HasPrefix(a, "--"+name+"="):
			val, found = strings.TrimPrefix(a, "--"+name+"="), true
		case a == "--"+name && i+1 < len(u.Args):
			val, found = u.Args[i+1], true
		}
	}
	return val, found
}

// setting resolves a flag backed by an environment variable (Image Updater
// reads the variable as the flag's default, so an explicit flag wins).
func (u *UpdaterInstall) setting(flag, env, def, defDesc string) (string, string) {
	if v, ok := u.flag(flag); ok {
		return v, "arg --" + flag
	}
	if e, ok := u.LookupEnv(env); ok && !e.Missing {
		if !e.Resolved {
			return def, "env " + env + " from " + e.Source() + "; assumed " + defDesc
		}
		if e.Value != "" {
			return e.Value, "env " + env + " (" + e.Source() + ")"
		}
	}
	return def, "default (" + defDesc + ")"
}

// settings derives the effective settings from args and env.
func (u *UpdaterInstall) settings() {
	u.WatchNamespaces, u.WatchNamespacesSource = u.setting("watch-namespaces", "IMAGE_UPDATER_WATCH_NAMESPACES", "", "the install namespace only")
	u.ArgoCDNamespace, u.ArgoCDNamespaceSource = u.setting("argocd-namespace", "ARGOCD_NAMESPACE", u.Namespace, "the install namespace")
	u.LogLevel, _ = u.setting("loglevel", "IMAGE_UPDATER_LOGLEVEL", "info", "info")
	u.RegistriesConfPath, _ = u.setting("registries-conf-path", "", defaultRegistriesConfPath, defaultRegistriesConfPath)
	u.Proxy = u.proxy()
}

func (u *UpdaterInstall) proxy() Proxy {
	var p Proxy
	pick := func(names ...string) string {
		for _, n := range names {
			v, known := u.Getenv(n)
			if !known {
				p.Unknown = append(p.Unknown, n)
				continue
			}
			if v != "" {
				return v
			}
		}
		return ""
	}
	p.HTTPProxy = redactURL(pick("HTTP_PROXY", "http_proxy"))
	p.HTTPSProxy = redactURL(pick("HTTPS_PROXY", "https_proxy"))
	p.NoProxy = pick("NO_PROXY", "no_proxy")
	return p
}
