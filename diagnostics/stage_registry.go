package diagnostics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/http/httpproxy"

	"github.com/imgupd/imgupd/internal/netclass"
	"github.com/imgupd/imgupd/internal/shell"
	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/model/advice"
	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/cluster"
	"github.com/imgupd/imgupd/sources/registry"
)

// checkRegistry resolves, for each image Image Updater would process, the
// registry endpoint and credentials exactly as Image Updater would (the
// pull secret exists, has a matching auths key, the env var is set in the
// updater's pod, the v1.3 namespace rule), then lists the tags for real and
// classifies any failure. It also compares the updater pod's proxy settings
// with what reaching the registry needs.
func checkRegistry(ctx context.Context, r *run) []report.Finding {
	var out []report.Finding
	for _, im := range r.images {
		m, ok := r.live[im.Alias]
		if !ok || !m.Found {
			continue // Image Updater skips images that are not live
		}
		out = append(out, r.checkImageRegistry(ctx, im)...)
	}
	return out
}

func (r *run) checkImageRegistry(ctx context.Context, im updater.ImageConfig) []report.Finding {
	name := aliasOr(im)
	ep, how := updater.ResolveEndpoint(im.Image, r.conf)
	repo := ep.RepositoryPath(im.Image)
	ir := &imageRegistry{endpoint: ep}
	r.reg[im.Alias] = ir
	out := []report.Finding{find(report.CodeRegistryEndpoint, report.Info, fmt.Sprintf("image %s uses registry %s (%s)", name, ep.APIURL, how.Rule)).WithImage(im.Alias).
		With(ev("endpoint", ep.Name), ev("API", ep.APIURL), ev("repository", repo), ev("why", how.Summary))}
	for _, w := range how.Warnings {
		out = append(out, find(report.CodeRegistriesConfWarning, report.Warn, w).WithImage(im.Alias))
	}
	target := registry.Target{APIURL: ep.APIURL, Repository: repo, Insecure: ep.Insecure, Limit: ep.Limit}
	if ep.CAData != "" {
		target.CAData = []byte(ep.CAData)
	}

	// Credentials: the image's pullSecret wins over the registry's.
	refStr, level, from := im.Settings.PullSecret, updater.CredLevelImage, "the image's pullSecret"
	if refStr == "" {
		refStr, level, from = ep.Credentials, updater.CredLevelRegistry, "registries.conf entry "+ep.Name
	}
	credsChecked := true
	if refStr == "" && isECR(ep.Host()) {
		ir.err = errors.New("ECR without credentials")
		return append(out, r.ecrWithoutCredentials(ctx, im, ep))
	}
	if refStr != "" {
		ref, err := updater.ParseCredentialRef(refStr)
		if err != nil {
			ir.err = err
			return append(out, find(report.CodeRegistryCredsRef, report.Fail, fmt.Sprintf("the credentials of image %s (%s) are invalid: %s", name, from, textutil.OneLine(err.Error()))).WithImage(im.Alias).
				With(ev("value", refStr)))
		}
		if err := updater.CheckSecretNamespace(refStr, r.req.Namespace, level, r.version); err != nil {
			ir.err = err
			f := find(report.CodeRegistrySecretNamespace, report.Fail, fmt.Sprintf("the pull secret of image %s is not in the app's namespace %s", name, r.req.Namespace)).WithImage(im.Alias).
				With(ev("reference", refStr))
			var sn *updater.SecretNamespaceError
			if errors.As(err, &sn) {
				p := r.imagePlace(im, updater.FieldPullSecret)
				kind := strings.SplitN(refStr, ":", 2)[0]
				newRef := kind + ":" + r.req.Namespace + "/" + ref.Name
				if ref.Field != "" && ref.Kind == updater.CredSecret {
					newRef += "#" + ref.Field
				}
				_ = newRef
				where, steps := r.newPullSecretSteps(im, ep)
				f = f.WithFix(sn.Fix()+" Do not copy "+ref.Namespace+"/"+ref.Name+" there: its owner put it in "+ref.Namespace+"; create a pull secret for "+ep.Host()+" in "+r.req.Namespace+" with an account of your own.", where+"; "+p.Where, steps...)
			}
			return append(out, f)
		}
		creds, err := updater.ResolveCredentials(ctx, ref, ep, &clusterCreds{ctx: ctx, r: r})
		switch {
		case errors.Is(err, errExtUnchecked):
			f, blocked := r.extScriptFinding(ctx, im, ep, ref, level, from)
			if blocked {
				// Image Updater gets no credentials and lists no tags.
				ir.err = err
				return append(out, f)
			}
			credsChecked = false
			ir.extUnchecked = true
			out = append(out, f)
		case err != nil:
			ir.err = err
			use := secretUse{stay: level == updater.CredLevelImage && r.version.SecretsMustShareAppNamespace(), sendsTo: ep.Host(), chosenBy: "registries.conf (Image Updater's own configuration)"}
			if level == updater.CredLevelImage {
				use.chosenBy = "whoever wrote the image's settings (" + r.imagePlace(im, "imageName").Where + ")"
				use.insteadWhere, use.instead = r.newPullSecretSteps(im, ep)
			}
			if f, ok := r.secretGateFinding(report.CodeRegistryPullSecretDenied, fmt.Sprintf("the credentials of image %s, %s", name, from), use, err); ok {
				return append(out, f.WithImage(im.Alias).With(ev("reference", refStr)))
			}
			return append(out, credentialFailure(name, im.Alias, from, refStr, ref, ep, err))
		default:
			target.Username, target.Password = creds.Username, creds.Password.Reveal()
			ir.account = refStr + " (" + from + ")"
		}
	}

	// Probe the registry the way Image Updater reaches it: through its
	// pod's proxy when that proxy applies to the registry (Go's rules,
	// loopback never proxied), else directly from imgupd's network.
	theirs := r.updaterProxy(ep)
	if theirs != nil {
		target.Proxy = theirs
	}
	tags, err := r.e.Registry.ListTags(ctx, target)
	ir.target = target
	if over := tooLarge(err); over != nil {
		// Past imgupd's read bound: the tags read stand in for the list,
		// and the candidates stage says what that leaves unverified.
		ir.tags, ir.partial = tags, over.List
		out = append(out, r.proxyFindings(im, ep, true)...)
		return append(out, r.tagListTooLarge(im, ep, repo, over))
	}
	if err != nil && outOfTime(ctx) {
		// imgupd's own deadline, not the registry's answer.
		ir.err = err
		f := timeoutFinding(report.StageRegistry, fmt.Sprintf("the tags of image %s were not listed before imgupd's deadline (%s did not answer in time)", name, ep.Host()))
		return append(out, f.WithImage(im.Alias))
	}
	if err != nil {
		ir.err = err
		var re *registry.Error
		if !errors.As(err, &re) {
			re = registry.Classify("list tags", err)
		}
		f := r.registryFailure(name, im, ep, re, refStr != "", refStr)
		switch {
		case theirs != nil && re.Kind == netclass.Proxy:
			f = r.updaterProxyFailure(f, im, ep, theirs)
		case theirs != nil:
			f.Title += " (probed through Image Updater's proxy " + redactURL(theirs) + ")"
			f = f.With(ev("path", "through Image Updater's proxy "+redactURL(theirs)+", as its pod sends it"))
		case re.Kind == netclass.DNS || re.Kind == netclass.Connect || re.Kind == netclass.Timeout:
			f = f.With(ev("path", "direct from imgupd's network (Image Updater's pod has no proxy for "+ep.Host()+"); from inside the cluster the answer can differ"))
		}
		if !credsChecked && (re.Kind == registry.Unauthorized || re.Kind == registry.Forbidden) {
			f.Severity = report.Unknown
			f.Decides = true
			f.Verify = "check the ext: script inside Image Updater's pod: it must print user:pass"
			f.Title += " (without the ext: credentials imgupd cannot run)"
		}
		out = append(out, f)
		return append(out, r.proxyFindings(im, ep, false)...)
	}
	ir.tags = tags
	out = append(out, r.proxyFindings(im, ep, true)...)
	ok := find(report.CodeRegistryOK, report.Pass, fmt.Sprintf("registry %s lists %d tag(s) of %s", ep.Host(), len(tags), repo)).WithImage(im.Alias)
	if theirs != nil {
		ok = ok.With(ev("path", "through Image Updater's proxy "+redactURL(theirs)))
	}
	return append(out, ok)
}

// updaterProxy is the proxy Image Updater's pod uses for the registry's API
// URL, as Go's net/http derives it from HTTPS_PROXY, HTTP_PROXY and NO_PROXY
// (never for localhost or loopback addresses), or nil.
func (r *run) updaterProxy(ep updater.Endpoint) *url.URL {
	if r.install == nil {
		return nil
	}
	u, err := url.Parse(ep.APIURL + "/v2/")
	if err != nil {
		return nil
	}
	p := r.install.Proxy
	cfg := httpproxy.Config{HTTPProxy: p.HTTPProxy, HTTPSProxy: p.HTTPSProxy, NoProxy: p.NoProxy}
	theirs, err := cfg.ProxyFunc()(u)
	if err != nil {
		return nil
	}
	return theirs
}

// updaterProxyFailure: Image Updater's own proxy refuses or fails the
// connection to the registry, as its log shows (proxyconnect tcp: ...).
func (r *run) updaterProxyFailure(f report.Finding, im updater.ImageConfig, ep updater.Endpoint, proxy *url.URL) report.Finding {
	where := r.install.Namespace + "/" + r.install.Name
	env := "HTTPS_PROXY"
	if strings.HasPrefix(ep.APIURL, "http://") {
		env = "HTTP_PROXY"
	}
	g := find(report.CodeRegistryProxy, report.Fail, fmt.Sprintf("Image Updater's proxy %s fails the connection to %s: %s", redactURL(proxy), ep.Host(), strings.TrimPrefix(f.Title, fmt.Sprintf("cannot list the tags of image %s at %s: ", aliasOr(im), ep.Host())))).WithImage(im.Alias).
		With(ev("proxy", redactURL(proxy)+" (from "+env+" of Deployment "+where+")"),
			ev("NO_PROXY", orNone(r.install.Proxy.NoProxy)),
			ev("Image Updater logs", "Could not get tags from registry: ... proxyconnect tcp: ..."))
	g.Evidence = append(g.Evidence, f.Evidence...)
	return g.WithFix(fmt.Sprintf("Point %s at a proxy that works, or exempt the registry from the proxy.", env), "Deployment "+where+", env "+env+" / NO_PROXY",
		proxyVar(),
		r.setEnvStep("point "+env+" at that proxy", shell.Concat(shell.Lit(env+"="), shell.Var("PROXY_URL"))),
		report.Otherwise(r.setEnvStep("reach the registry directly, past the proxy", envLit("NO_PROXY", joinNoProxy(r.install.Proxy.NoProxy, hostOnly(ep.Host()))))))
}

// errExtUnchecked marks an ext: credentials script imgupd cannot run.
var errExtUnchecked = errors.New("ext: credentials run inside Image Updater's pod")

// clusterCreds performs credential I/O as Image Updater's pod would see it:
// env vars from the updater's pod spec (secretKeyRef values read from the
// cluster: the kubelet resolves them whatever the ServiceAccount may read),
// Secrets through the cluster reader only when Image Updater's
// ServiceAccount may get them (updaterSecret), no scripts.
type clusterCreds struct {
	ctx context.Context
	r   *run
}

func (c *clusterCreds) Env(name string) (string, bool) {
	if c.r.install == nil {
		return "", false
	}
	for _, e := range c.r.install.Env {
		if e.Name != name {
			continue
		}
		if e.SecretRef != nil {
			data, err := c.r.e.Cluster.Secret(c.ctx, c.r.install.Namespace, e.SecretRef.Name)
			if err != nil {
				return "", false
			}
			v, ok := data[e.SecretRef.Key]
			return string(v), ok
		}
		return e.Value, true
	}
	return "", false
}

func (c *clusterCreds) Secret(ctx context.Context, ns, name string) (map[string][]byte, error) {
	return c.r.updaterSecret(ctx, ns, name)
}

func (c *clusterCreds) Exec(ctx context.Context, path string) (string, error) {
	return "", errExtUnchecked
}

func credentialFailure(name, alias, from, ref string, cref updater.CredentialRef, ep updater.Endpoint, err error) report.Finding {
	var ce *updater.CredentialError
	if !errors.As(err, &ce) {
		return find(report.CodeRegistryCredsFetch, report.Fail, fmt.Sprintf("the credentials of image %s cannot be fetched: %s", name, textutil.OneLine(err.Error()))).WithImage(alias)
	}
	var ae *cluster.AccessError
	switch {
	case ce.Code == updater.CredErrSecretUnreadable && errors.As(err, &ae) && ae.NotFound:
		return find(report.CodeRegistryPullSecretMissing, report.Fail, fmt.Sprintf("the secret %s/%s named by %s does not exist", ae.Namespace, ae.Name, from)).WithImage(alias).
			With(ev("reference", ref))
	case ce.Code == updater.CredErrSecretUnreadable && errors.As(err, &ae) && ae.Forbidden:
		return readFailure(report.StageRegistry, "the pull secret "+ae.Namespace+"/"+ae.Name, err)
	case ce.Code == updater.CredErrNoAuthEntry:
		f := find(report.CodeRegistryPullSecretKey, report.Fail, fmt.Sprintf("no auths key of the pull secret matches %s", ep.APIURL)).WithImage(alias).
			With(ev("reference", ref), ev("Image Updater logs", ce.Error()))
		if ce.Fix != "" {
			f = f.WithFix(ce.Fix, fmt.Sprintf("Secret %s/%s, key .dockerconfigjson", cref.Namespace, cref.Name),
				registryAccountVars(ep.Host()),
				createPullSecret("write the pull secret anew, for "+ep.APIURL, cref.Namespace, cref.Name, ep.APIURL, true))
		}
		return f
	}
	f := find(report.CodeRegistryCredsFetch, report.Fail, fmt.Sprintf("the credentials of image %s (%s) cannot be fetched: %s", name, from, textutil.OneLine(ce.Error()))).WithImage(alias).
		With(ev("reference", ref))
	if ce.Fix != "" {
		f = f.WithFix(ce.Fix, from)
	}
	return f
}

// outOfTime reports whether imgupd's own deadline for ctx has come: its
// error is set, or its deadline has passed. The second covers the moment
// when a shared read, run under an ancestor context (a fleet scan's), has
// already failed at that ancestor's deadline and the cancellation has not
// yet reached ctx.
func outOfTime(ctx context.Context) bool {
	if ctx.Err() != nil {
		return true
	}
	dl, ok := ctx.Deadline()
	return ok && !time.Now().Before(dl)
}

var registryCodes = map[registry.Kind]report.Code{
	registry.Unauthorized: report.CodeRegistryUnauthorized, registry.Forbidden: report.CodeRegistryForbidden,
	registry.NotFound: report.CodeRegistryNotFound, registry.RateLimited: report.CodeRegistryRateLimited,
	netclass.DNS: report.CodeRegistryDNS, netclass.Connect: report.CodeRegistryConnect, netclass.TLS: report.CodeRegistryTLS,
	netclass.Timeout: report.CodeRegistryTimeout, netclass.Proxy: report.CodeRegistryProxy, registry.NotRegistry: report.CodeRegistryNotRegistry,
	netclass.Canceled: report.CodeCheckTimeout, registry.TooLarge: report.CodeRegistryTagListTooLarge,
}

func (r *run) registryFailure(name string, im updater.ImageConfig, ep updater.Endpoint, re *registry.Error, hasCreds bool, ref string) report.Finding {
	code, ok := registryCodes[re.Kind]
	if !ok {
		code = report.CodeRegistryError
	}
	sev := report.Fail
	if code == report.CodeCheckTimeout {
		sev = report.Unknown
	}
	f := find(code, sev, fmt.Sprintf("cannot list the tags of image %s at %s: %s", name, ep.Host(), textutil.OneLine(re.Error()))).WithImage(im.Alias).
		With(ev("API", ep.APIURL), ev("credentials", map[bool]string{true: "configured", false: "none (anonymous)"}[hasCreds]))
	if sev == report.Unknown {
		f.Decides = true
		f.Verify = "re-run with a longer --timeout"
	}
	hint := advice.ForRegistryImage(re.Facts(), ep.Host(), hasCreds)
	if hint == "" {
		return f
	}
	where, steps := r.registryFixSteps(im, ep, re, hasCreds, ref)
	return f.WithFix(hint, where, steps...)
}

// registryFixSteps is the change for a registry failure: the pull secret
// to create and reference, the registries.conf entry to write, the proxy to
// set, the name to check.
func (r *run) registryFixSteps(im updater.ImageConfig, ep updater.Endpoint, re *registry.Error, hasCreds bool, ref string) (string, []report.Step) {
	entry := confEntry{name: confName(ep), apiURL: ep.APIURL, prefix: orDefault(ep.Prefix, ep.Host())}
	confWhere := "registries.conf of Image Updater (it reads it at start: restart it after the change)"
	if r.install != nil && r.install.RegistriesConfMap.Name != "" {
		confWhere = fmt.Sprintf("ConfigMap %s/%s, key %s (Image Updater reads it at start: restart it after the change)", r.install.Namespace, r.install.RegistriesConfMap.Name, r.install.RegistriesConfMap.Key)
	}
	switch re.Kind {
	case registry.Unauthorized:
		if hasCreds {
			cref, err := updater.ParseCredentialRef(ref)
			if err != nil {
				return "", nil
			}
			return "the credentials " + ref + " names", r.renewCredentials(cref, ep)
		}
		return r.newPullSecretSteps(im, ep)
	case registry.RateLimited:
		if r.install == nil {
			break
		}
		ns, name := r.install.Namespace, pullSecretName(ep.Host())
		e := entry
		e.fields = []kv{{"limit", 5}, {"credentials", "pullsecret:" + ns + "/" + name}}
		steps := []report.Step{registryAccountVars(ep.Host()),
			createPullSecret("create a pull secret for "+ep.Host()+" in namespace "+ns+", where Image Updater reads Secrets", ns, name, ep.APIURL, false)}
		return confWhere, append(steps, r.registriesConfSteps("give the registry a rate limit and the account", e)...)
	case netclass.TLS:
		tls := re.Facts().TLS
		var steps []report.Step
		switch {
		case tls.PlainHTTP:
			e := entry
			e.fields = []kv{{"api_url", "http://" + ep.Host()}}
			steps = []report.Step{r.registriesConfStep("talk plain HTTP to "+ep.Host()+", as it answers", e)}
		case tls.UnknownAuthority:
			ca := entry
			ca.fields = []kv{{"ca_data", "-----BEGIN CERTIFICATE-----\n<the CA that signs the registry certificate, PEM>\n-----END CERTIFICATE-----\n"}}
			caYAML, _ := mergeRegistriesConf(nil, ca)
			insecure := entry
			insecure.fields = []kv{{"insecure", true}}
			steps = []report.Step{
				report.Paste("trust the CA that signs the registry's certificate (v1.3+: ca_data; only you have the CA's PEM, so merge this entry by hand)", confWhere, r.editRegistriesConf(), caYAML),
				report.Otherwise(r.registriesConfStep("skip verification of "+ep.Host()+"'s certificate (Image Updater then trusts any certificate it is shown)", insecure)),
			}
		default:
			insecure := entry
			insecure.fields = []kv{{"insecure", true}}
			steps = []report.Step{r.registriesConfStep("if "+ep.Host()+" is the registry you mean, skip verification of its certificate (Image Updater then trusts any certificate it is shown)", insecure)}
		}
		if restart, ok := r.restartStep(); ok {
			steps = append(steps, restart)
		}
		return confWhere, steps
	case registry.NotRegistry:
		e := entry
		e.apiURL = "<the registry's API URL, https://host[:port]>"
		y, _ := mergeRegistriesConf(nil, e)
		return confWhere, []report.Step{report.Paste("name the registry's API URL for prefix "+entry.prefix+" (only you know it: merge this entry by hand)", confWhere, r.editRegistriesConf(), y)}
	case netclass.DNS, netclass.Connect, netclass.Timeout:
		if r.install == nil {
			break
		}
		return "Deployment " + r.install.Namespace + "/" + r.install.Name + " (its network path), or the registry host in imageName", []report.Step{
			report.Command("check that the name resolves and answers from inside the cluster (a pod with curl, removed after)",
				"kubectl", "-n", r.install.Namespace, "run", "imgupd-regcheck", "--rm", "--attach", "--restart=Never", "--image=curlimages/curl", "--", "curl", "-sv", ep.APIURL+"/v2/"),
			proxyVar(),
			r.setEnvStep("if the registry is reached through a proxy, give Image Updater the proxy",
				shell.Concat(shell.Lit("HTTPS_PROXY="), shell.Var("PROXY_URL")), envLit("NO_PROXY", suggestNoProxy(r.install.Proxy.NoProxy))),
		}
	}
	return "", nil
}

// editRegistriesConf opens the ConfigMap registries.conf comes from, or nil.
func (r *run) editRegistriesConf() []string {
	if r.install == nil || r.install.RegistriesConfMap.Name == "" {
		return nil
	}
	return []string{"kubectl", "-n", r.install.Namespace, "edit", "configmap", "--", r.install.RegistriesConfMap.Name}
}

// proxyVar is the step that sets the reader's proxy.
func proxyVar() report.Step {
	return report.SetVars(report.Var{Name: "PROXY_URL", About: "the proxy Image Updater's pod must use, http://host:port"})
}

// newPullSecretSteps create a pull secret for the image's registry from the
// reader's own account, where Image Updater reads it, and point the image
// at it: in the Application's namespace for v1.3+ (which wants an image's
// pull secret there; Image Updater is then let read that one Secret, which
// it sends to the image's registry), else in Image Updater's own namespace.
func (r *run) newPullSecretSteps(im updater.ImageConfig, ep updater.Endpoint) (string, []report.Step) {
	ns := r.req.Namespace
	if r.install != nil && !r.version.SecretsMustShareAppNamespace() {
		ns = r.install.Namespace
	}
	name := pullSecretName(ep.Host())
	p := r.imagePlace(im, updater.FieldPullSecret)
	steps := []report.Step{registryAccountVars(ep.Host()),
		createPullSecret("create pull secret "+ns+"/"+name+" for "+ep.APIURL, ns, name, ep.APIURL, false)}
	if u, ok := r.updaterUser(); ok && ns != u.subject.Namespace {
		sf := &secretForbidden{user: u, verbs: []string{"get"}, namespace: ns, name: name}
		steps = append(steps, grantSteps(sf, "let "+u.subject.String()+" read it (it sends it to "+ep.Host()+", the registry of image "+aliasOr(im)+")")...)
	}
	steps = append(steps, p.step("let the image use it", "pullsecret:"+ns+"/"+name))
	return "Secret " + ns + "/" + name + " and " + p.Where, steps
}

// confName is the registries.conf name of the endpoint's entry.
func confName(ep updater.Endpoint) string {
	if ep.Name == "" || ep.Source == updater.EndpointInferred {
		return hostOnly(ep.Host())
	}
	return ep.Name
}

// proxyFindings compares how imgupd reached the registry with the proxy
// settings of Image Updater's pod.
func (r *run) proxyFindings(im updater.ImageConfig, ep updater.Endpoint, reached bool) []report.Finding {
	if r.install == nil {
		return nil
	}
	u, err := url.Parse(ep.APIURL + "/v2/")
	if err != nil {
		return nil
	}
	p := r.install.Proxy
	theirs := r.updaterProxy(ep)
	ours, _ := r.opts.OwnProxy(&http.Request{URL: u})
	host := ep.Host()
	where := r.install.Namespace + "/" + r.install.Name
	switch {
	case reached && ours != nil && theirs == nil:
		env := "HTTPS_PROXY"
		if u.Scheme == "http" {
			env = "HTTP_PROXY"
		}
		return []report.Finding{find(report.CodeRegistryProxyMissing, report.Fail, fmt.Sprintf("imgupd reaches %s through proxy %s, but Image Updater's pod has no proxy for it", host, redactURL(ours))).WithImage(im.Alias).
			WithFix("Add the proxy to the Image Updater Deployment.", "Deployment "+where,
				r.setEnvStep("give Image Updater the proxy", envLit(env, redactURL(ours)), envLit("NO_PROXY", suggestNoProxy(p.NoProxy))))}
	case theirs != nil && internalHost(host) && !reached:
		return []report.Finding{find(report.CodeRegistryNoProxyMissing, report.Warn, fmt.Sprintf("Image Updater sends the internal registry %s through its proxy %s", host, redactURL(theirs))).WithImage(im.Alias).
			WithFix("Add the registry host to NO_PROXY.", "Deployment "+where,
				r.setEnvStep("add the registry host to NO_PROXY", envLit("NO_PROXY", joinNoProxy(p.NoProxy, hostOnly(host)))))}
	}
	return nil
}

func redactURL(u *url.URL) string {
	c := *u
	c.User = nil
	return c.String()
}

func hostOnly(h string) string {
	if host, _, err := net.SplitHostPort(h); err == nil {
		return host
	}
	return h
}

// internalHost: cluster services, single-label names and private addresses.
func internalHost(h string) bool {
	h = hostOnly(h)
	if ip := net.ParseIP(h); ip != nil {
		return ip.IsPrivate() || ip.IsLoopback()
	}
	return !strings.Contains(h, ".") || strings.HasSuffix(h, ".svc") || strings.HasSuffix(h, ".cluster.local") || strings.HasSuffix(h, ".internal")
}

func suggestNoProxy(current string) string {
	return joinNoProxy(current, "localhost,127.0.0.1,.svc,.cluster.local")
}

func joinNoProxy(current, add string) string {
	if strings.TrimSpace(current) == "" {
		return add
	}
	return current + "," + add
}

// isECR: Amazon ECR registry hosts (<account>.dkr.ecr.<region>.amazonaws.com).
func isECR(host string) bool {
	h := hostOnly(host)
	return strings.Contains(h, ".dkr.ecr.") && (strings.HasSuffix(h, ".amazonaws.com") || strings.HasSuffix(h, ".amazonaws.com.cn"))
}

// irsaAnnotation names the IAM role of a ServiceAccount on EKS.
const irsaAnnotation = "eks.amazonaws.com/role-arn"

// ecrWithoutCredentials explains an ECR image with no credentials, with what
// Image Updater's ServiceAccount says about IRSA.
func (r *run) ecrWithoutCredentials(ctx context.Context, im updater.ImageConfig, ep updater.Endpoint) report.Finding {
	f := find(report.CodeRegistryECRNoCredentials, report.Fail, fmt.Sprintf("image %s is in Amazon ECR (%s), which needs credentials, and none are configured", aliasOr(im), ep.Host())).WithImage(im.Alias)
	if r.install == nil {
		return f
	}
	sa := r.install.ServiceAccount
	if sa == "" {
		sa = "default"
	}
	ann, err := r.e.Cluster.ServiceAccountAnnotations(ctx, r.install.Namespace, sa)
	switch {
	case err != nil:
		return f.With(ev("ServiceAccount", r.install.Namespace+"/"+sa+": not readable ("+textutil.OneLine(err.Error())+")"))
	case ann[irsaAnnotation] != "":
		// The script must be in Image Updater's container: the image ships
		// none (stage_registry_ext.go), so the fix mounts it first.
		const script = "/app/scripts/ecr-login.sh"
		where, steps := r.newExtMountSteps(ep, script)
		steps = append(steps, r.registriesConfSteps("get ECR tokens with the ext: script", confEntry{name: "ecr", apiURL: "https://" + ep.Host(), prefix: ep.Host(),
			fields: []kv{{"credentials", "ext:" + script}, {"credsexpire", "10h"}}})...)
		return f.With(ev("IRSA role", ann[irsaAnnotation])).
			WithFix("The ServiceAccount has an IAM role; exchange it for an ECR token with an ext: script, mounted in Image Updater's container and named on the registry entry.", where+"; registries.conf", steps...)
	}
	return f.With(ev("ServiceAccount", r.install.Namespace+"/"+sa+" has no "+irsaAnnotation+" annotation")).
		WithFix("Give Image Updater's ServiceAccount an IAM role (IRSA) allowed to read ECR, then use an ext: credentials script.", "ServiceAccount "+r.install.Namespace+"/"+sa,
			report.SetVars(report.Var{Name: "ECR_ROLE_ARN", About: "an IAM role that may read ECR, arn:aws:iam::ACCOUNT:role/NAME"}),
			report.RunWords("give the ServiceAccount that IAM role", append(shell.Args("kubectl", "-n", r.install.Namespace, "annotate", "serviceaccount", sa),
				shell.Concat(shell.Lit(irsaAnnotation+"="), shell.Var("ECR_ROLE_ARN")))...))
}
