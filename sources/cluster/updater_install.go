package cluster

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/imgupd/imgupd/model/updater"
)

// How Image Updater Deployments are recognised. Upstream's install.yaml
// labels the Deployment app.kubernetes.io/name=argocd-image-updater-controller
// and its pods app.kubernetes.io/name=argocd-image-updater; the Helm chart
// labels both app.kubernetes.io/name=argocd-image-updater.
const (
	LabelAppName      = "app.kubernetes.io/name"
	updaterAppName    = "argocd-image-updater"
	updaterCtrlName   = "argocd-image-updater-controller"
	updaterImageToken = "argocd-image-updater"
)

// UpdaterInstall describes a running Image Updater: its Deployment, the
// controller container, its effective settings and its pods. Secret values
// are never read: env vars from Secrets carry only the reference. Values
// from ConfigMaps are resolved (they are configuration, not secrets).
type UpdaterInstall struct {
	Namespace, Name string
	// MatchedBy says why the Deployment was taken for Image Updater
	// ("label app.kubernetes.io/name=..." or "image ...").
	MatchedBy string
	// Image is the controller container's image; Tag and Digest its parts.
	Image, Tag, Digest string
	// Version is parsed from Tag; zero with VersionErr set when the tag
	// does not name a release (latest, digest only, a custom tag).
	Version    updater.Version
	VersionErr error

	Replicas, ReadyReplicas, AvailableReplicas int32
	Conditions                                 []appsv1.DeploymentCondition
	ServiceAccount                             string
	// Container is the controller container's name, ContainerIndex its
	// index in the pod template's containers.
	Container      string
	ContainerIndex int
	// DryRun is the --dry-run flag of the controller's command line: on,
	// Image Updater picks tags and writes nothing.
	DryRun DryRun
	// AppFilter is v0.x's --match-application-name and
	// --match-application-label: the Applications it processes at all.
	AppFilter AppFilter
	// Env is the container's environment in definition order, envFrom
	// ConfigMaps expanded first (Kubernetes lets env override envFrom).
	// Literal values are kept raw for the engine but print masked (see
	// EnvVar.Printable).
	Env []EnvVar
	// EnvFromSecrets names Secrets imported whole with envFrom (keys not read).
	EnvFromSecrets []string
	// Args is the container's command followed by its args, with $(VAR)
	// references to resolved env vars expanded as the kubelet does; values
	// of credential-like flags are replaced by "***" and passwords in URLs
	// by "xxxxx".
	Args []string
	Pods []Pod

	// WatchNamespaces is --watch-namespaces or IMAGE_UPDATER_WATCH_NAMESPACES
	// (v1.x): "" = the install namespace only, "*" = all, else a comma list.
	// WatchNamespacesSource says where it came from.
	WatchNamespaces, WatchNamespacesSource string
	// ArgoCDNamespace is --argocd-namespace or ARGOCD_NAMESPACE, default the
	// install namespace: where git write-back looks up Argo CD repository
	// credentials.
	ArgoCDNamespace, ArgoCDNamespaceSource string
	// RegistriesConfPath is --registries-conf-path (default
	// /app/config/registries.conf). RegistriesConf is the file's content as
	// the controller sees it (nil when the file does not exist);
	// RegistriesConfSource names the ConfigMap and key or says why there is
	// no file.
	RegistriesConfPath   string
	RegistriesConf       []byte
	RegistriesConfSource string
	// RegistriesConfMap is the ConfigMap and key mounted at
	// RegistriesConfPath (Name "" when no ConfigMap provides the file).
	RegistriesConfMap RegistriesConfMap
	// Proxy is the proxy configuration Go's HTTP client derives from the
	// environment.
	Proxy Proxy
	// SSHKnownHostsConfigMap and TLSCertsConfigMap name the ConfigMaps
	// mounted where the controller's git client reads SSH host keys
	// (SSHDataPath, upstream: argocd-ssh-known-hosts-cm) and TLS
	// certificates (TLSDataPath); "" when nothing is mounted there.
	SSHKnownHostsConfigMap, TLSCertsConfigMap string
	// SSHDataPath and TLSDataPath are where Image Updater's git client (Argo
	// CD's, vendored in ext/git) reads them: ARGOCD_SSH_DATA_PATH (file
	// ssh_known_hosts) and ARGOCD_TLS_DATA_PATH (one file per host name,
	// argo-cd util/cert GetCertBundlePathForRepository), by default
	// /app/config/ssh and /app/config/tls.
	SSHDataPath, TLSDataPath string
	// LogLevel is --loglevel or IMAGE_UPDATER_LOGLEVEL, default "info".
	LogLevel string
	// Mounts are the controller container's volumeMounts with their
	// volumes (FileAt says which one provides a path).
	Mounts []Mount

	// Others are further Deployments that also look like Image Updater
	// (two controllers fight over the same CRs and Applications).
	Others []UpdaterInstall
	// Partial lists reads that failed while describing the install (pods,
	// ConfigMaps): the description is incomplete there. Each is an
	// *AccessError.
	Partial []error
}

// RegistriesConfMap is where registries.conf comes from: a ConfigMap's key
// mounted at the file's path; Exists: the ConfigMap exists (the key may not);
// Read: it could be read (its content is then UpdaterInstall.RegistriesConf).
type RegistriesConfMap struct {
	Name, Key    string
	Exists, Read bool
}

// Pod is one pod of the Image Updater Deployment, reduced to its health.
type Pod struct {
	Name, Phase string
	// Ready is the pod's Ready condition.
	Ready bool
	// Restarts, Waiting and LastTermination are the controller container's:
	// Waiting is e.g. "CrashLoopBackOff: ..."; LastTermination e.g.
	// "OOMKilled (exit 137) at 2026-11-29T21:00:00Z".
	Restarts                 int32
	Waiting, LastTermination string
	// StartedAt is the pod start time (RFC 3339), "" if not started.
	StartedAt string
	NodeName  string
}

// WatchesNamespace reports whether a v1.x controller with this install's
// watch setting reconciles ImageUpdater CRs in ns.
func (u *UpdaterInstall) WatchesNamespace(ns string) bool {
	w := strings.TrimSpace(u.WatchNamespaces)
	switch w {
	case "":
		return ns == u.Namespace
	case "*":
		return true
	}
	for _, n := range strings.Split(w, ",") {
		if strings.TrimSpace(n) == ns {
			return true
		}
	}
	return false
}

// FindUpdater finds the Image Updater Deployment: in preferNS first, then in
// every namespace. A Deployment qualifies by its app.kubernetes.io/name
// label (argocd-image-updater or argocd-image-updater-controller, on the
// Deployment or its pod template) or by a container image containing
// "argocd-image-updater". The best match (in preferNS, then with replicas,
// then by namespace/name) is returned with every other match in Others.
// When none qualifies the error is an *AccessError with NotFound set; a
// refused cluster-wide list after a match in preferNS is recorded in Partial.
func (r *Reader) FindUpdater(ctx context.Context, preferNS string) (*UpdaterInstall, error) {
	var deps []appsv1.Deployment
	var partial []error
	listedPrefer := false
	// The two lists at once: each is a round trip, and a fleet scan or a
	// "where" waits for the installation before it selects any app.
	var all *appsv1.DeploymentList
	var allErr error
	var listed sync.WaitGroup
	listed.Go(func() { all, allErr = r.Kube.AppsV1().Deployments("").List(ctx, metav1.ListOptions{}) })
	if preferNS != "" {
		list, err := r.Kube.AppsV1().Deployments(preferNS).List(ctx, metav1.ListOptions{})
		if err != nil {
			partial = append(partial, newAccessError("list", "apps", "deployments", preferNS, "", err))
		} else {
			deps, listedPrefer = append(deps, list.Items...), true
		}
	}
	listed.Wait()
	if allErr != nil {
		partial = append(partial, newAccessError("list", "apps", "deployments", "", "", allErr))
	} else {
		for _, d := range all.Items {
			if !listedPrefer || d.Namespace != preferNS {
				deps = append(deps, d)
			}
		}
	}

	type match struct {
		dep *appsv1.Deployment
		why string
	}
	var found []match
	for i := range deps {
		if why, ok := updaterDeployment(&deps[i]); ok {
			found = append(found, match{&deps[i], why})
		}
	}
	if len(found) == 0 {
		if len(partial) > 0 {
			return nil, partial[len(partial)-1]
		}
		return nil, &AccessError{Verb: "list", Group: "apps", Resource: "deployments", Namespace: preferNS, NotFound: true,
			Err: errors.New("no Deployment labelled app.kubernetes.io/name=argocd-image-updater(-controller) or running an argocd-image-updater image in any namespace")}
	}
	sort.SliceStable(found, func(i, j int) bool {
		a, b := found[i].dep, found[j].dep
		if (a.Namespace == preferNS) != (b.Namespace == preferNS) {
			return a.Namespace == preferNS
		}
		if ra, rb := replicas(a) > 0, replicas(b) > 0; ra != rb {
			return ra
		}
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		return a.Name < b.Name
	})
	installs := make([]UpdaterInstall, len(found))
	for i, m := range found {
		installs[i] = r.describeUpdater(ctx, m.dep, m.why)
	}
	best := installs[0]
	best.Others = installs[1:]
	best.Partial = append(partial, best.Partial...)
	return &best, nil
}

func replicas(d *appsv1.Deployment) int32 {
	if d.Spec.Replicas == nil {
		return 1
	}
	return *d.Spec.Replicas
}

// updaterDeployment says whether d looks like Image Updater, and why.
func updaterDeployment(d *appsv1.Deployment) (string, bool) {
	for _, labels := range []map[string]string{d.Labels, d.Spec.Template.Labels} {
		if v := labels[LabelAppName]; v == updaterAppName || v == updaterCtrlName {
			return fmt.Sprintf("label %s=%s", LabelAppName, v), true
		}
	}
	for _, c := range d.Spec.Template.Spec.Containers {
		if strings.Contains(c.Image, updaterImageToken) {
			return "image " + c.Image, true
		}
	}
	return "", false
}

// updaterContainer picks the controller container: the one running an
// argocd-image-updater image, else one named like it, else the first.
func updaterContainer(spec *corev1.PodSpec) (*corev1.Container, int) {
	cs := spec.Containers
	if len(cs) == 0 {
		return nil, -1
	}
	for i := range cs {
		if strings.Contains(cs[i].Image, updaterImageToken) {
			return &cs[i], i
		}
	}
	for i := range cs {
		if strings.HasPrefix(cs[i].Name, updaterAppName) {
			return &cs[i], i
		}
	}
	return &cs[0], 0
}

// describeUpdater fills an UpdaterInstall from the Deployment, reading its
// pods and the ConfigMaps it references; failed reads land in Partial.
func (r *Reader) describeUpdater(ctx context.Context, d *appsv1.Deployment, why string) UpdaterInstall {
	u := UpdaterInstall{
		Namespace:         d.Namespace,
		Name:              d.Name,
		MatchedBy:         why,
		Replicas:          replicas(d),
		ReadyReplicas:     d.Status.ReadyReplicas,
		AvailableReplicas: d.Status.AvailableReplicas,
		Conditions:        d.Status.Conditions,
		ServiceAccount:    d.Spec.Template.Spec.ServiceAccountName,
	}
	if u.ServiceAccount == "" {
		u.ServiceAccount = "default"
	}
	c, ci := updaterContainer(&d.Spec.Template.Spec)
	if c == nil {
		u.VersionErr = &updater.VersionError{Input: "", Reason: "the Deployment has no containers"}
		return u
	}
	u.Container, u.ContainerIndex = c.Name, ci
	u.Image = c.Image
	u.Tag, u.Digest = splitImage(c.Image)
	u.Version, u.VersionErr = versionFromTag(c.Image, u.Tag)

	// The pods are listed while the ConfigMaps the container reads are.
	var pods []Pod
	var podsErr error
	var listed sync.WaitGroup
	listed.Go(func() { pods, podsErr = r.updaterPods(ctx, d, c.Name) })
	cms := configMapCache{r: r, ns: d.Namespace, data: map[string]map[string]string{}, errs: map[string]error{}}
	u.Env, u.EnvFromSecrets = resolveEnv(ctx, c, &cms)
	u.Args = redactArgs(expandArgs(append(append([]string{}, c.Command...), c.Args...), u.Env))
	u.settings()
	flags := flagsOf(c, u.Env)
	u.DryRun = dryRunOf(flags)
	u.AppFilter = appFilterOf(flags)
	u.registriesConf(ctx, &d.Spec.Template.Spec, c, &cms)
	u.Mounts = mounts(&d.Spec.Template.Spec, c)
	u.SSHDataPath, u.TLSDataPath = updaterSSHDir, updaterTLSDir
	if v, ok := u.Getenv("ARGOCD_SSH_DATA_PATH"); ok && strings.HasPrefix(v, "/") {
		u.SSHDataPath = path.Clean(v)
	}
	if v, ok := u.Getenv("ARGOCD_TLS_DATA_PATH"); ok && strings.HasPrefix(v, "/") {
		u.TLSDataPath = path.Clean(v)
	}
	u.SSHKnownHostsConfigMap = mountedConfigMap(&d.Spec.Template.Spec, c, u.SSHDataPath)
	u.TLSCertsConfigMap = mountedConfigMap(&d.Spec.Template.Spec, c, u.TLSDataPath)
	u.Partial = append(u.Partial, cms.failures()...)
	listed.Wait()
	if podsErr != nil {
		u.Partial = append(u.Partial, podsErr)
	} else {
		u.Pods = pods
	}
	return u
}

// splitImage returns the tag and digest of an image reference.
func splitImage(image string) (tag, digest string) {
	name, digest, _ := strings.Cut(image, "@")
	if i := strings.LastIndex(name, ":"); i > strings.LastIndex(name, "/") {
		tag = name[i+1:]
	}
	return tag, digest
}

func versionFromTag(image, tag string) (updater.Version, error) {
	if tag == "" {
		return updater.Version{}, &updater.VersionError{Input: image,
			Reason: "the image has no tag (digest only or implicit latest), so the release is unknown; pass the version explicitly"}
	}
	v, err := updater.ParseVersion(tag)
	if err != nil {
		return updater.Version{}, err
	}
	return v, nil
}
