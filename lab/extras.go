package lab

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"sort"
	"strings"
	"time"

	labforge "github.com/imgupd/imgupd/lab/forge"
	labgit "github.com/imgupd/imgupd/lab/git"
	"github.com/imgupd/imgupd/lab/helmrepo"
	"github.com/imgupd/imgupd/lab/loopback"
	"github.com/imgupd/imgupd/sources/forge"
)

// startExtras starts what a scenario asks for beyond the registry and the
// git server: OCI charts in the registry, a classic Helm repository, the
// git server over SSH, a fake forge API for it, a forward proxy and a
// refusing address.
func (e *Env) startExtras(ctx context.Context) error {
	sc := e.Scenario
	for i, c := range sc.Registry.Charts {
		tgz, err := helmrepo.Build(chartOf(c, e.expand))
		if err != nil {
			return &ScenarioError{File: sc.Name, Field: fmt.Sprintf("registry.charts[%d]", i), Reason: "is not a chart", Err: err}
		}
		base := c.Repo
		if base == "" {
			base = "charts"
		}
		if _, err := e.Registry.PushChart(ctx, base, tgz); err != nil {
			return fmt.Errorf("pushing chart %s: %w", c.Name, err)
		}
	}
	if hr := sc.HelmRepo; hr != nil {
		var opts []helmrepo.Option
		if hr.Auth != nil {
			opts = append(opts, helmrepo.WithBasicAuth(hr.Auth.Username, hr.Auth.Password))
		}
		srv, err := helmrepo.Start(opts...)
		if err != nil {
			return fmt.Errorf("starting the lab Helm repository: %w", err)
		}
		e.HelmRepo = srv
		for i, c := range hr.Charts {
			if err := srv.AddChart(chartOf(c, e.expand)); err != nil {
				return &ScenarioError{File: sc.Name, Field: fmt.Sprintf("helmRepo.charts[%d]", i), Reason: "cannot be served", Err: err}
			}
		}
		e.Vars["HELM_REPO"] = strings.TrimSuffix(srv.RepoURL, "/")
	}
	if sc.Git.SSH {
		key, err := labgit.NewSSHKey()
		if err != nil {
			return err
		}
		ssh, err := e.Git.StartSSH(labgit.WithAuthorizedKey(key.PublicKey))
		if err != nil {
			return fmt.Errorf("starting the lab SSH git server: %w", err)
		}
		e.SSH = ssh
		e.Vars["GIT_SSH"] = strings.TrimSuffix(strings.TrimSuffix(ssh.RepoURL("x"), "/x.git"), "/")
		e.Vars["GIT_SSH_KNOWN_HOSTS"] = strings.TrimSpace(string(ssh.KnownHosts()))
		e.Vars["GIT_SSH_KEY"] = string(key.PrivateKeyPEM)
	}
	if sc.Proxy {
		var opts []labgit.ProxyOption
		if h := sc.Registry.Hostname; h != "" {
			opts = append(opts, labgit.WithProxyHost(h, "127.0.0.1"))
		}
		p, err := labgit.StartProxy(opts...)
		if err != nil {
			return fmt.Errorf("starting the lab proxy: %w", err)
		}
		e.Proxy = p
		e.Vars["PROXY"] = p.URL
		e.Vars["REGISTRY_ADDR"] = e.Registry.Host
	}
	closed, err := loopback.ClosedAddr()
	if err != nil {
		return err
	}
	e.Vars["CLOSED"] = closed
	return nil
}

// forgeHandler is the fake forge API for the git server's repositories,
// served on the git server's own host (found there by discovery, as a
// self-hosted GitHub Enterprise, GitLab or Gitea would be): the branches
// marked protected are protected, git.auth's password is a token that may
// push.
func (e *Env) forgeHandler() (*labforge.Handler, error) {
	sc := e.Scenario
	name := sc.Git.Forge
	if name == "" {
		name = "github" // a GitHub App
	}
	kind, err := forge.ParseForge(name)
	if err != nil {
		return nil, &ScenarioError{File: sc.Name, Field: "git.forge", Reason: "unknown forge", Err: err}
	}
	cfg := labforge.Config{Only: name}
	if app := sc.Git.GitHubApp; app != nil {
		key, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			return nil, err
		}
		der, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			return nil, err
		}
		e.Vars["GITHUB_APP_KEY"] = string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
		cfg.Apps = append(cfg.Apps, labforge.App{ID: app.AppID, InstallationID: app.InstallationID, PublicKey: &key.PublicKey,
			Token: labforge.Token{Username: "x-access-token", Repos: []string{"*"}, Push: true}})
	}
	names := make([]string, 0, len(sc.Git.Repositories))
	for n := range sc.Git.Repositories {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		repo := sc.Git.Repositories[n]
		lr := labforge.Repo{Path: n, DefaultBranch: repo.DefaultBranch}
		bnames := make([]string, 0, len(repo.Branches))
		for b := range repo.Branches {
			bnames = append(bnames, b)
		}
		sort.Strings(bnames)
		for _, b := range bnames {
			lb := labforge.Branch{Name: b, Protected: repo.Branches[b].Protected}
			if lb.Protected && kind == forge.Bitbucket {
				lr.Restrictions = append(lr.Restrictions, labforge.Restriction{ID: len(lr.Restrictions) + 1, Kind: "push", Pattern: b})
			}
			lr.Branches = append(lr.Branches, lb)
		}
		for _, pr := range repo.PullRequests {
			lp := labforge.PullRequest{Number: pr.Number, Head: pr.Head, Base: pr.Base, Title: e.expand(pr.Title), State: pr.State}
			switch pr.State {
			case "", "clean", "dirty", "blocked", "unknown":
			default:
				return nil, &ScenarioError{File: sc.Name, Field: "git.repositories." + n + ".pullRequests.state", Reason: fmt.Sprintf("%q: want clean, dirty, blocked or unknown", pr.State)}
			}
			if pr.Created != "" {
				t, err := time.Parse(time.RFC3339, pr.Created)
				if err != nil {
					return nil, &ScenarioError{File: sc.Name, Field: "git.repositories." + n + ".pullRequests.created", Reason: "not RFC 3339", Err: err}
				}
				lp.Created = t
			}
			lr.PullRequests = append(lr.PullRequests, lp)
		}
		cfg.Repos = append(cfg.Repos, lr)
	}
	if a := sc.Git.Auth; a != nil {
		cfg.Tokens = append(cfg.Tokens, labforge.Token{Value: a.Password, Username: a.Username, Repos: []string{"*"}, Push: true, Scopes: sc.Git.ForgeScopes})
	}
	e.Forge = labforge.NewHandler(cfg)
	return e.Forge, nil
}

func chartOf(c Chart, expand func(string) string) helmrepo.Chart {
	hc := helmrepo.Chart{Name: c.Name, Version: c.Version, AppVersion: c.Version, Values: expand(c.Values)}
	t := c.Template
	if t == "" {
		t = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
spec:
  template:
    spec:
      containers:
      - name: app
        image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
`
	}
	hc.Templates = map[string]string{"deployment.yaml": t}
	return hc
}

func portOf(hostport string) string {
	_, p, err := net.SplitHostPort(hostport)
	if err != nil {
		return ""
	}
	return p
}
