package cluster

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Argo CD's repository secret label and its two values.
const (
	LabelSecretType        = "argocd.argoproj.io/secret-type"
	SecretTypeRepository   = "repository"
	SecretTypeRepoCreds    = "repo-creds"
	repoSecretTypeSelector = LabelSecretType + " in (" + SecretTypeRepository + "," + SecretTypeRepoCreds + ")"
)

// RepoCred is one Argo CD repository secret: a "repository" (credentials for
// one repository URL) or a "repo-creds" (a credential template for every
// repository whose URL starts with URL). Data holds the raw secret data for
// the engine to inspect and mask; it is never printed (Format) nor
// marshalled to JSON.
type RepoCred struct {
	SecretName string `json:"secretName"`
	// Type is SecretTypeRepository or SecretTypeRepoCreds.
	Type string `json:"type"`
	URL  string `json:"url"`
	// RepoType is data.type: "git" (default) or "helm".
	RepoType     string `json:"repoType,omitempty"`
	Project      string `json:"project,omitempty"`
	Username     string `json:"username,omitempty"`
	HasPassword  bool   `json:"hasPassword"`
	HasSSHKey    bool   `json:"hasSSHKey"`
	HasGitHubApp bool   `json:"hasGitHubApp"`
	// HasBearerToken and HasTLSClientCert complete Argo CD's notion of
	// "has credentials".
	HasBearerToken   bool              `json:"hasBearerToken,omitempty"`
	HasTLSClientCert bool              `json:"hasTLSClientCert,omitempty"`
	Data             map[string][]byte `json:"-"`
}

// HasCredentials mirrors Argo CD's Repository.HasCredentials: a repository
// secret without any of these gets them from the best matching repo-creds.
func (c RepoCred) HasCredentials() bool {
	return c.Username != "" || c.HasPassword || c.HasSSHKey || c.HasGitHubApp || c.HasBearerToken || c.HasTLSClientCert
}

// String prints the credential without secret data.
func (c RepoCred) String() string { return fmt.Sprintf("%v", c) }

// GoString prints the credential without secret data.
func (c RepoCred) GoString() string { return fmt.Sprintf("%#v", c) }

// Format prints the credential for every verb with Data values replaced by
// "***" (keys stay visible: they tell which kind of credential it is).
func (c RepoCred) Format(f fmt.State, verb rune) {
	keys := make([]string, 0, len(c.Data))
	for k := range c.Data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	masked := make([]string, len(keys))
	for i, k := range keys {
		masked[i] = k + ":***"
	}
	prefix := "RepoCred"
	if verb == 'v' && f.Flag('#') {
		prefix = "cluster.RepoCred"
	}
	_, _ = io.WriteString(f, fmt.Sprintf("%s{SecretName:%s Type:%s URL:%s RepoType:%s Project:%s Username:%s HasPassword:%t HasSSHKey:%t HasGitHubApp:%t HasBearerToken:%t HasTLSClientCert:%t Data:map[%s]}",
		prefix, c.SecretName, c.Type, redactURL(c.URL), c.RepoType, c.Project, c.Username, c.HasPassword, c.HasSSHKey, c.HasGitHubApp, c.HasBearerToken, c.HasTLSClientCert, strings.Join(masked, " ")))
}

// RepoCredentials lists Argo CD's repository secrets (label
// argocd.argoproj.io/secret-type repository or repo-creds) in the Argo CD
// namespace, sorted by type then name.
func (r *Reader) RepoCredentials(ctx context.Context, argocdNS string) ([]RepoCred, error) {
	list, err := r.Kube.CoreV1().Secrets(argocdNS).List(ctx, metav1.ListOptions{LabelSelector: repoSecretTypeSelector})
	if err != nil {
		return nil, newAccessError("list", "", "secrets", argocdNS, "", err)
	}
	var out []RepoCred
	for _, s := range list.Items {
		t := s.Labels[LabelSecretType]
		if t != SecretTypeRepository && t != SecretTypeRepoCreds {
			continue
		}
		d := s.Data
		has := func(k string) bool { return len(d[k]) > 0 }
		out = append(out, RepoCred{
			SecretName:       s.Name,
			Type:             t,
			URL:              strings.TrimSpace(string(d["url"])),
			RepoType:         string(d["type"]),
			Project:          string(d["project"]),
			Username:         string(d["username"]),
			HasPassword:      has("password"),
			HasSSHKey:        has("sshPrivateKey"),
			HasGitHubApp:     has("githubAppPrivateKey") || has("githubAppID"),
			HasBearerToken:   has("bearerToken"),
			HasTLSClientCert: has("tlsClientCertData"),
			Data:             d,
		})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Type != out[j].Type {
			return out[i].Type == SecretTypeRepository
		}
		return out[i].SecretName < out[j].SecretName
	})
	return out, nil
}

// redactURL hides a password in a URL's userinfo.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	if _, ok := u.User.Password(); !ok {
		return s
	}
	return u.Redacted()
}
