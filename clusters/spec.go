package clusters

import (
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/go-viper/mapstructure/v2"

	"github.com/imgupd/imgupd/internal/textutil"
)

// Spec is one cluster of the configuration: its name and how to reach its Argo CD installation.
// Exactly one way to connect is set (Way): InCluster, KubeconfigSecret, Kubeconfig, or Server
// with TokenSecret.
type Spec struct {
	// Name is a DNS label: shown with every app, the `cluster` label of the metrics, what
	// --cluster and the access rules' clusters name.
	Name string `mapstructure:"name" json:"name"`
	// InCluster: the cluster imgupd runs in, with its own ServiceAccount.
	InCluster bool `mapstructure:"inCluster" json:"inCluster,omitempty"`
	// KubeconfigSecret is a kubeconfig kept in a Secret of imgupd's own namespace.
	KubeconfigSecret *SecretRef `mapstructure:"kubeconfigSecret" json:"kubeconfigSecret,omitempty"`
	// Kubeconfig is a kubeconfig file (a terminal's, or a mounted file).
	Kubeconfig string `mapstructure:"kubeconfig" json:"kubeconfig,omitempty"`
	// Context is a context of the kubeconfig (default its current-context).
	Context string `mapstructure:"context" json:"context,omitempty"`
	// Server is an API server's URL, reached with the bearer token of TokenSecret and, when
	// set, the CA bundle of CASecret (default the system roots).
	Server      string     `mapstructure:"server" json:"server,omitempty"`
	TokenSecret *SecretRef `mapstructure:"tokenSecret" json:"tokenSecret,omitempty"`
	CASecret    *SecretRef `mapstructure:"caSecret" json:"caSecret,omitempty"`
	// Namespace is Argo CD's namespace there: where Applications are looked for first
	// (default argocd).
	Namespace string `mapstructure:"namespace" json:"namespace,omitempty"`
	// UpdaterNamespace is where Image Updater runs there (default argocd).
	UpdaterNamespace string `mapstructure:"updaterNamespace" json:"updaterNamespace,omitempty"`
}

// SecretRef is a key of a Secret in imgupd's own namespace.
type SecretRef struct {
	Name string `mapstructure:"name" json:"name"`
	Key  string `mapstructure:"key" json:"key,omitempty"`
}

func (r SecretRef) String() string { return r.Name + "[" + r.Key + "]" }

// Way is how a cluster is reached.
type Way string

const (
	WayInCluster        Way = "inCluster"
	WayKubeconfigSecret Way = "kubeconfigSecret"
	WayKubeconfig       Way = "kubeconfig"
	WayServer           Way = "server"
)

// Way is how s is reached (valid Specs have exactly one).
func (s Spec) Way() Way {
	switch {
	case s.InCluster:
		return WayInCluster
	case s.KubeconfigSecret != nil:
		return WayKubeconfigSecret
	case s.Kubeconfig != "":
		return WayKubeconfig
	}
	return WayServer
}

// ArgoNamespace is Namespace, default argocd.
func (s Spec) ArgoNamespace() string { return orArgocd(s.Namespace) }

// ImageUpdaterNamespace is UpdaterNamespace, default argocd.
func (s Spec) ImageUpdaterNamespace() string { return orArgocd(s.UpdaterNamespace) }

func orArgocd(ns string) string {
	if ns == "" {
		return "argocd"
	}
	return ns
}

// Problem is one mistake in the clusters section, with the key at fault
// ("clusters[1].kubeconfigSecret.nmae").
type Problem struct {
	Key     string `json:"key"`
	Message string `json:"message"`
}

func (p Problem) Error() string { return p.Key + ": " + p.Message }

var (
	labelRE  = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	dnsRE    = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`)
	secKeyRE = regexp.MustCompile(`^[-._a-zA-Z0-9]+$`)
)

// ValidName reports whether s is a cluster name: a DNS label (lower-case letters, digits and -,
// at most 63).
func ValidName(s string) bool { return len(s) <= 63 && labelRE.MatchString(s) }

// Keys are the keys of a cluster, SecretKeys those of a Secret reference.
var (
	Keys       = tagNames(reflect.TypeOf(Spec{}))
	SecretKeys = tagNames(reflect.TypeOf(SecretRef{}))
)

// Decode reads the clusters section as the configuration file holds it (a list of maps, keys in
// any case: viper lower-cases them) strictly: an unknown key is a problem naming it with the key
// it is nearest to, and every Spec is validated (Validate). nil raw is no section: no Specs and
// no problems. The Specs returned are the valid ones, with their defaults set.
func Decode(raw any) ([]Spec, []Problem) {
	if raw == nil {
		return nil, nil
	}
	items, ok := raw.([]any)
	if !ok {
		return nil, []Problem{{"clusters", "a list of clusters (- name: … and one of inCluster, kubeconfigSecret, kubeconfig, server), see config.example.yaml"}}
	}
	var out []Spec
	var problems []Problem
	seen := map[string]string{}
	inCluster := ""
	for i, item := range items {
		key := fmt.Sprintf("clusters[%d]", i)
		m, ok := item.(map[string]any)
		if !ok {
			problems = append(problems, Problem{key, "a cluster is a map of " + strings.Join(Keys, ", ")})
			continue
		}
		keysOK := true
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if !textutil.ContainsFold(Keys, k) {
				problems = append(problems, Problem{key + "." + k, "not a key of a cluster" + didYouMean(k, Keys)})
				keysOK = false
				continue
			}
			if textutil.ContainsFold([]string{"kubeconfigSecret", "tokenSecret", "caSecret"}, k) {
				sub, ok := m[k].(map[string]any)
				if !ok {
					problems = append(problems, Problem{key + "." + k, "a map of name and key (a Secret in imgupd's namespace)"})
					keysOK = false
					continue
				}
				for _, sk := range slices.Sorted(maps.Keys(sub)) {
					if !textutil.ContainsFold(SecretKeys, sk) {
						problems = append(problems, Problem{key + "." + k + "." + sk, "not a key of a Secret reference" + didYouMean(sk, SecretKeys)})
						keysOK = false
					}
				}
			}
		}
		if !keysOK {
			continue
		}
		var s Spec
		dec, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{Result: &s, ErrorUnused: true})
		if err == nil {
			err = dec.Decode(m)
		}
		if err != nil {
			problems = append(problems, Problem{key, textutil.OneLine(err.Error())})
			continue
		}
		s.setDefaults()
		if errs := s.Validate(); len(errs) > 0 {
			for _, e := range errs {
				problems = append(problems, Problem{key + e.Key, e.Message})
			}
			continue
		}
		if prev, dup := seen[s.Name]; dup {
			problems = append(problems, Problem{key + ".name", fmt.Sprintf("%q is the name of %s too: each cluster has its own name", s.Name, prev)})
			continue
		}
		seen[s.Name] = key
		if s.InCluster {
			if inCluster != "" {
				problems = append(problems, Problem{key + ".inCluster", fmt.Sprintf("%s is the cluster imgupd runs in already", inCluster)})
				continue
			}
			inCluster = key
		}
		out = append(out, s)
	}
	return out, problems
}

func (s *Spec) setDefaults() {
	if s.KubeconfigSecret != nil && s.KubeconfigSecret.Key == "" {
		s.KubeconfigSecret.Key = "kubeconfig"
	}
	if s.TokenSecret != nil && s.TokenSecret.Key == "" {
		s.TokenSecret.Key = "token"
	}
	if s.CASecret != nil && s.CASecret.Key == "" {
		s.CASecret.Key = "ca.crt"
	}
	s.Namespace = s.ArgoNamespace()
	s.UpdaterNamespace = s.ImageUpdaterNamespace()
}

// Validate reports every mistake of s, each with its key relative to the cluster (".server").
func (s Spec) Validate() []Problem {
	var out []Problem
	bad := func(key, format string, a ...any) { out = append(out, Problem{key, fmt.Sprintf(format, a...)}) }
	switch {
	case s.Name == "":
		bad(".name", "missing: every cluster has a name (a DNS label: lower-case letters, digits and -), e.g. prod-eu")
	case !ValidName(s.Name):
		bad(".name", "%q is not a DNS label (lower-case letters, digits and -, at most 63)", textutil.ClipBytes(textutil.Visible(s.Name), 64))
	}
	var ways []string
	if s.InCluster {
		ways = append(ways, "inCluster")
	}
	if s.KubeconfigSecret != nil {
		ways = append(ways, "kubeconfigSecret")
	}
	if s.Kubeconfig != "" {
		ways = append(ways, "kubeconfig")
	}
	if s.Server != "" || s.TokenSecret != nil {
		ways = append(ways, "server")
	}
	switch len(ways) {
	case 0:
		bad("", "says no way to reach it: set one of inCluster: true, kubeconfigSecret, kubeconfig, or server with tokenSecret")
	case 1:
	default:
		bad("", "sets %s: set exactly one way to reach a cluster", strings.Join(ways, " and "))
	}
	if s.Server != "" && s.TokenSecret == nil {
		bad(".tokenSecret", "missing: server needs tokenSecret (a Secret with the bearer token)")
	}
	if s.TokenSecret != nil && s.Server == "" {
		bad(".server", "missing: tokenSecret needs the API server's URL (https://host:6443)")
	}
	if s.Server != "" && !strings.HasPrefix(s.Server, "https://") {
		bad(".server", "%q: want an https:// URL (a bearer token is not sent in clear)", textutil.ClipBytes(textutil.Visible(s.Server), 64))
	}
	if s.CASecret != nil && s.Server == "" {
		bad(".caSecret", "only with server (a kubeconfig carries its own CA)")
	}
	if s.Context != "" && s.KubeconfigSecret == nil && s.Kubeconfig == "" {
		bad(".context", "only with kubeconfig or kubeconfigSecret")
	}
	for _, r := range []struct {
		key string
		ref *SecretRef
	}{{".kubeconfigSecret", s.KubeconfigSecret}, {".tokenSecret", s.TokenSecret}, {".caSecret", s.CASecret}} {
		if r.ref == nil {
			continue
		}
		if r.ref.Name == "" || len(r.ref.Name) > 253 || !dnsRE.MatchString(r.ref.Name) {
			bad(r.key+".name", "%q is not a Secret name (lower-case letters, digits, - and .)", textutil.ClipBytes(textutil.Visible(r.ref.Name), 64))
		}
		if r.ref.Key != "" && (len(r.ref.Key) > 253 || !secKeyRE.MatchString(r.ref.Key)) {
			bad(r.key+".key", "%q is not a key of a Secret (letters, digits, -, _ and .)", textutil.ClipBytes(textutil.Visible(r.ref.Key), 64))
		}
	}
	for _, n := range []struct{ key, ns string }{{".namespace", s.Namespace}, {".updaterNamespace", s.UpdaterNamespace}} {
		if n.ns != "" && (len(n.ns) > 63 || !labelRE.MatchString(n.ns)) {
			bad(n.key, "%q is not a namespace name", textutil.ClipBytes(textutil.Visible(n.ns), 64))
		}
	}
	return out
}

// Names are the specs' names, in order.
func Names(specs []Spec) []string {
	out := make([]string, len(specs))
	for i, s := range specs {
		out[i] = s.Name
	}
	return out
}

func didYouMean(k string, names []string) string {
	if near := textutil.NearestOne(strings.ToLower(k), lowered(names), func(_ string, d int) bool { return d <= 2 }); near != "" {
		return "; did you mean " + names[slices.Index(lowered(names), near)] + "?"
	}
	return " (" + strings.Join(names, ", ") + ")"
}

func lowered(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strings.ToLower(n)
	}
	return out
}

func tagNames(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("mapstructure"), ","); name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}
