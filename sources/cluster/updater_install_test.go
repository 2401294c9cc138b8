package cluster

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"
	"sigs.k8s.io/yaml"

	"github.com/imgupd/imgupd/model/updater"
)

// upstreamDeployment is Image Updater v1.3.0's Deployment from install.yaml,
// placed in ns.
func upstreamDeployment(t *testing.T, ns string) *appsv1.Deployment {
	t.Helper()
	raw, err := os.ReadFile("testdata/imageupdater-v1.3.0-deployment.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var d appsv1.Deployment
	if err := yaml.UnmarshalStrict(raw, &d); err != nil {
		t.Fatal(err)
	}
	d.Namespace = ns
	d.Status = appsv1.DeploymentStatus{ReadyReplicas: 1, AvailableReplicas: 1, Replicas: 1,
		Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue}}}
	return &d
}

func configMap(ns, name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: data}
}

// plainDeployment runs image with the given env and args and no labels.
func plainDeployment(ns, name, image string, env []corev1.EnvVar, args ...string) *appsv1.Deployment {
	sel := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: sel},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: sel},
				Spec: corev1.PodSpec{Containers: []corev1.Container{
					{Name: "sidecar", Image: "envoyproxy/envoy:v1.30"},
					{Name: "main", Image: image, Env: env, Args: args},
				}},
			},
		},
	}
}

func TestFindUpdaterUpstreamInstall(t *testing.T) {
	started := metav1.NewTime(time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC))
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "argocd", Name: "argocd-image-updater-controller-7d9f-abcde",
			Labels: map[string]string{"control-plane": "argocd-image-updater-controller", "app.kubernetes.io/name": "argocd-image-updater"}},
		Spec: corev1.PodSpec{NodeName: "node-1"},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &started,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "argocd-image-updater-controller", RestartCount: 2,
				LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "OOMKilled", ExitCode: 137, FinishedAt: started}}}}},
	}
	other := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "argocd", Name: "argocd-server-1", Labels: map[string]string{"app.kubernetes.io/name": "argocd-server"}}}
	r := newTestReader(t, []runtime.Object{
		upstreamDeployment(t, "argocd"), pod, other,
		configMap("argocd", DefaultConfigMap, map[string]string{
			"watch.namespaces": "team-a, team-b",
			"log.level":        "debug",
			"registries.conf":  "registries:\n- name: GHCR\n  api_url: https://ghcr.io\n  prefix: ghcr.io\n",
		}),
	})
	u, err := r.FindUpdater(context.Background(), "argocd")
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct{ name, got, want string }{
		{"name", u.Namespace + "/" + u.Name, "argocd/argocd-image-updater-controller"},
		{"matched", u.MatchedBy, "label app.kubernetes.io/name=argocd-image-updater-controller"},
		{"container", u.Container, "argocd-image-updater-controller"},
		{"tag", u.Tag, "v1.3.0"},
		{"version", u.Version.String(), "v1.3.0"},
		{"sa", u.ServiceAccount, "argocd-image-updater-controller"},
		{"watch", u.WatchNamespaces, "team-a, team-b"},
		{"watch source", u.WatchNamespacesSource, "env IMAGE_UPDATER_WATCH_NAMESPACES (ConfigMap argocd-image-updater-config key watch.namespaces)"},
		{"argocd ns", u.ArgoCDNamespace, "argocd"},
		{"argocd ns source", u.ArgoCDNamespaceSource, "default (the install namespace)"},
		{"loglevel", u.LogLevel, "debug"},
		{"registries.conf", string(u.RegistriesConf), "registries:\n- name: GHCR\n  api_url: https://ghcr.io\n  prefix: ghcr.io\n"},
		{"registries.conf source", u.RegistriesConfSource, `ConfigMap argocd/argocd-image-updater-config key registries.conf (volume "image-updater-conf" at /app/config)`},
		{"args", strings.Join(u.Args, " "), "--metrics-bind-address=:8443 run"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	if u.VersionErr != nil || u.ReadyReplicas != 1 || u.Replicas != 1 || len(u.Conditions) != 1 || len(u.Others) != 0 || len(u.Partial) != 0 {
		t.Errorf("install: %+v", u)
	}
	if !u.WatchesNamespace("team-b") || u.WatchesNamespace("argocd") {
		t.Error("WatchesNamespace disagrees with watch.namespaces")
	}
	if len(u.Pods) != 1 {
		t.Fatalf("pods: %+v", u.Pods)
	}
	p := u.Pods[0]
	if !p.Ready || p.Restarts != 2 || p.NodeName != "node-1" || p.StartedAt != "2026-11-29T20:00:00Z" ||
		p.LastTermination != "OOMKilled (exit 137) at 2026-11-29T20:00:00Z" {
		t.Errorf("pod: %+v", p)
	}
	// Optional keys the ConfigMap lacks leave their variables unset.
	if v, known := u.Getenv("ARGOCD_NAMESPACE"); v != "" || !known {
		t.Errorf("ARGOCD_NAMESPACE = %q, %v", v, known)
	}
	e, _ := u.LookupEnv("ARGOCD_NAMESPACE")
	if !e.Missing || e.ConfigMapRef == nil || !e.ConfigMapRef.Optional {
		t.Errorf("ARGOCD_NAMESPACE env: %+v", e)
	}
	// Secret-backed variables are references only.
	if e, _ := u.LookupEnv("QUAY_WEBHOOK_SECRET"); e.SecretRef == nil || e.Resolved || e.Value != "" {
		t.Errorf("secret env: %+v", e)
	}
	if _, known := u.Getenv("QUAY_WEBHOOK_SECRET"); known {
		t.Error("a Secret-backed value must be unknown")
	}
}

func TestFindUpdaterSettings(t *testing.T) {
	lit := func(n, v string) corev1.EnvVar { return corev1.EnvVar{Name: n, Value: v} }
	fromCM := func(n, cm, key string) corev1.EnvVar {
		return corev1.EnvVar{Name: n, ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: cm}, Key: key}}}
	}
	fromSecret := func(n, s, key string) corev1.EnvVar {
		return corev1.EnvVar{Name: n, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: s}, Key: key}}}
	}
	const img = "quay.io/argoprojlabs/argocd-image-updater:v1.2.2"
	tests := []struct {
		name     string
		env      []corev1.EnvVar
		args     []string
		cms      []runtime.Object
		watch    string
		watchSrc string
		argocdNS string
		proxy    Proxy
		logLevel string
	}{
		{name: "defaults", watch: "", watchSrc: "default (the install namespace only)", argocdNS: "tools", logLevel: "info"},
		{name: "args win over env", env: []corev1.EnvVar{lit("IMAGE_UPDATER_WATCH_NAMESPACES", "a"), lit("ARGOCD_NAMESPACE", "cd")},
			args:  []string{"run", "--watch-namespaces", "*", "--argocd-namespace=gitops", "--loglevel=trace"},
			watch: "*", watchSrc: "arg --watch-namespaces", argocdNS: "gitops", logLevel: "trace"},
		{name: "args expanded from env", env: []corev1.EnvVar{lit("NS", "team-x")},
			args: []string{"run", "--watch-namespaces=$(NS)"}, watch: "team-x", watchSrc: "arg --watch-namespaces", argocdNS: "tools", logLevel: "info"},
		{name: "env literal", env: []corev1.EnvVar{lit("IMAGE_UPDATER_WATCH_NAMESPACES", "team-a"), lit("ARGOCD_NAMESPACE", "cd"), lit("IMAGE_UPDATER_LOGLEVEL", "warn")},
			watch: "team-a", watchSrc: "env IMAGE_UPDATER_WATCH_NAMESPACES (literal)", argocdNS: "cd", logLevel: "warn"},
		{name: "env from configmap", env: []corev1.EnvVar{fromCM("IMAGE_UPDATER_WATCH_NAMESPACES", "iu", "watch")},
			cms:   []runtime.Object{configMap("tools", "iu", map[string]string{"watch": "*"})},
			watch: "*", watchSrc: "env IMAGE_UPDATER_WATCH_NAMESPACES (ConfigMap iu key watch)", argocdNS: "tools", logLevel: "info"},
		{name: "envFrom configmap, env overrides", env: []corev1.EnvVar{lit("IMAGE_UPDATER_LOGLEVEL", "error")},
			cms:   []runtime.Object{configMap("tools", "all", map[string]string{"IMAGE_UPDATER_WATCH_NAMESPACES": "x,y", "IMAGE_UPDATER_LOGLEVEL": "debug"})},
			watch: "x,y", watchSrc: "env IMAGE_UPDATER_WATCH_NAMESPACES (envFrom ConfigMap all)", argocdNS: "tools", logLevel: "error"},
		{name: "env from secret is not read", env: []corev1.EnvVar{fromSecret("IMAGE_UPDATER_WATCH_NAMESPACES", "s", "k")},
			watch: "", watchSrc: "env IMAGE_UPDATER_WATCH_NAMESPACES from Secret s key k (value not read); assumed the install namespace only",
			argocdNS: "tools", logLevel: "info"},
		{name: "proxy precedence", env: []corev1.EnvVar{
			lit("HTTPS_PROXY", "http://user:s3cret@proxy.corp:3128"), lit("https_proxy", "http://ignored:1"),
			lit("HTTP_PROXY", ""), lit("http_proxy", "http://lower:8080"),
			fromCM("no_proxy", "px", "no"), fromSecret("NO_PROXY", "px", "no")},
			cms:   []runtime.Object{configMap("tools", "px", map[string]string{"no": ".svc,10.0.0.0/8"})},
			watch: "", watchSrc: "default (the install namespace only)", argocdNS: "tools", logLevel: "info",
			proxy: Proxy{HTTPProxy: "http://lower:8080", HTTPSProxy: "http://user:xxxxx@proxy.corp:3128", NoProxy: ".svc,10.0.0.0/8", Unknown: []string{"NO_PROXY"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := plainDeployment("tools", "iu", img, tt.env, tt.args...)
			if strings.HasPrefix(tt.name, "envFrom") {
				d.Spec.Template.Spec.Containers[1].EnvFrom = []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "all"}}}}
			}
			r := newTestReader(t, append([]runtime.Object{d}, tt.cms...))
			u, err := r.FindUpdater(context.Background(), "argocd")
			if err != nil {
				t.Fatal(err)
			}
			if u.Namespace != "tools" || u.Container != "main" || u.MatchedBy != "image "+img || u.Version != (updater.Version{Major: 1, Minor: 2, Patch: 2}) {
				t.Errorf("install: %s/%s container %s matched %q version %v", u.Namespace, u.Name, u.Container, u.MatchedBy, u.Version)
			}
			if u.WatchNamespaces != tt.watch || u.WatchNamespacesSource != tt.watchSrc {
				t.Errorf("watch = %q (%s), want %q (%s)", u.WatchNamespaces, u.WatchNamespacesSource, tt.watch, tt.watchSrc)
			}
			if u.ArgoCDNamespace != tt.argocdNS || u.LogLevel != tt.logLevel {
				t.Errorf("argocd ns %q loglevel %q", u.ArgoCDNamespace, u.LogLevel)
			}
			if strings.Join(u.Proxy.Unknown, ",") != strings.Join(tt.proxy.Unknown, ",") || u.Proxy.HTTPProxy != tt.proxy.HTTPProxy ||
				u.Proxy.HTTPSProxy != tt.proxy.HTTPSProxy || u.Proxy.NoProxy != tt.proxy.NoProxy {
				t.Errorf("proxy = %+v, want %+v", u.Proxy, tt.proxy)
			}
		})
	}
}

func TestUpdaterVersionFromImage(t *testing.T) {
	tests := []struct {
		image, tag, digest string
		want               updater.Version
		wantErr            bool
	}{
		{"quay.io/argoprojlabs/argocd-image-updater:v1.3.0", "v1.3.0", "", updater.V1_3, false},
		{"quay.io/argoprojlabs/argocd-image-updater:v0.18.1", "v0.18.1", "", updater.Version{Major: 0, Minor: 18, Patch: 1}, false},
		{"registry.corp:5000/mirror/argocd-image-updater:v1.1.3@sha256:0123", "v1.1.3", "sha256:0123", updater.Version{Major: 1, Minor: 1, Patch: 3}, false},
		{"quay.io/argoprojlabs/argocd-image-updater:latest", "latest", "", updater.Version{}, true},
		{"quay.io/argoprojlabs/argocd-image-updater@sha256:abcd", "", "sha256:abcd", updater.Version{}, true},
		{"registry.corp:5000/argocd-image-updater", "", "", updater.Version{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.image, func(t *testing.T) {
			r := newTestReader(t, []runtime.Object{plainDeployment("argocd", "iu", tt.image, nil)})
			u, err := r.FindUpdater(context.Background(), "argocd")
			if err != nil {
				t.Fatal(err)
			}
			if u.Tag != tt.tag || u.Digest != tt.digest || u.Version != tt.want || (u.VersionErr != nil) != tt.wantErr {
				t.Errorf("tag %q digest %q version %v err %v", u.Tag, u.Digest, u.Version, u.VersionErr)
			}
			var ve *updater.VersionError
			if tt.wantErr && !errors.As(u.VersionErr, &ve) {
				t.Errorf("VersionErr should be *updater.VersionError: %T", u.VersionErr)
			}
		})
	}
}

func TestFindUpdaterRegistriesConf(t *testing.T) {
	const conf = "registries:\n- name: corp\n  api_url: https://registry.corp\n  prefix: registry.corp\n"
	subPath := func(d *appsv1.Deployment) {
		c := &d.Spec.Template.Spec.Containers[1]
		c.VolumeMounts = []corev1.VolumeMount{{Name: "conf", MountPath: "/app/config/registries.conf", SubPath: "regs.yaml"}}
		d.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: "conf", VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "corp-registries"}}}}}
	}
	tests := []struct {
		name       string
		mutate     func(*appsv1.Deployment)
		cms        []runtime.Object
		want       string
		wantSource string
	}{
		{"subPath from another ConfigMap", subPath,
			[]runtime.Object{configMap("argocd", "corp-registries", map[string]string{"regs.yaml": conf})}, conf,
			`ConfigMap argocd/corp-registries key regs.yaml (volume "conf" at /app/config/registries.conf)`},
		{"mounted ConfigMap missing", subPath, nil, "",
			`ConfigMap argocd/corp-registries key regs.yaml (volume "conf" at /app/config/registries.conf): the ConfigMap does not exist, so there is no registries.conf`},
		{"not mounted", func(*appsv1.Deployment) {},
			[]runtime.Object{configMap("argocd", DefaultConfigMap, map[string]string{"registries.conf": conf})}, "",
			"no volume is mounted at /app/config/registries.conf: Image Updater runs without registries.conf (ConfigMap argocd-image-updater-config has a registries.conf key, but the Deployment does not mount it)"},
		{"custom path flag", func(d *appsv1.Deployment) {
			subPath(d)
			d.Spec.Template.Spec.Containers[1].Args = []string{"run", "--registries-conf-path", "/etc/iu/registries.conf"}
		}, nil, "", "no volume is mounted at /etc/iu/registries.conf: Image Updater runs without registries.conf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := plainDeployment("argocd", "iu", "quay.io/argoprojlabs/argocd-image-updater:v1.3.0", nil)
			tt.mutate(d)
			r := newTestReader(t, append([]runtime.Object{d}, tt.cms...))
			u, err := r.FindUpdater(context.Background(), "argocd")
			if err != nil {
				t.Fatal(err)
			}
			if string(u.RegistriesConf) != tt.want || u.RegistriesConfSource != tt.wantSource {
				t.Errorf("registries.conf %q from\n %s\nwant\n %s", u.RegistriesConf, u.RegistriesConfSource, tt.wantSource)
			}
		})
	}
}

func TestFindUpdaterSearch(t *testing.T) {
	ctx := context.Background()
	t.Run("several installs", func(t *testing.T) {
		r := newTestReader(t, []runtime.Object{
			plainDeployment("zz", "old", "quay.io/argoprojlabs/argocd-image-updater:v0.18.1", nil),
			upstreamDeployment(t, "argocd"),
			plainDeployment("aa", "unrelated", "nginx:1.27", nil),
		})
		u, err := r.FindUpdater(ctx, "argocd")
		if err != nil {
			t.Fatal(err)
		}
		if u.Namespace != "argocd" || len(u.Others) != 1 || u.Others[0].Namespace != "zz" || u.Others[0].Version != (updater.Version{Major: 0, Minor: 18, Patch: 1}) {
			t.Errorf("best %s/%s others %+v", u.Namespace, u.Name, u.Others)
		}
		// Without a preference, the first namespace with replicas wins.
		u, err = r.FindUpdater(ctx, "")
		if err != nil || u.Namespace != "argocd" || len(u.Others) != 1 {
			t.Errorf("no preference: %v %v", u, err)
		}
	})
	t.Run("none", func(t *testing.T) {
		r := newTestReader(t, []runtime.Object{plainDeployment("argocd", "argocd-server", "quay.io/argoproj/argocd:v3.5.1", nil)})
		_, err := r.FindUpdater(ctx, "argocd")
		ae := asAccess(t, err)
		if !ae.NotFound || ae.Forbidden || ae.Group != "apps" || !strings.Contains(ae.Error(), "argocd-image-updater") {
			t.Errorf("not found: %v", ae)
		}
	})
	t.Run("cluster-wide list forbidden", func(t *testing.T) {
		r := newTestReader(t, []runtime.Object{upstreamDeployment(t, "argocd")})
		r.kube.PrependReactor("list", "deployments", func(a k8stesting.Action) (bool, runtime.Object, error) {
			if a.GetNamespace() == "" {
				return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "deployments"}, "", errors.New("no"))
			}
			return false, nil, nil
		})
		u, err := r.FindUpdater(ctx, "argocd")
		if err != nil || len(u.Partial) != 1 {
			t.Fatalf("found in preferred namespace: %v, %v", u, err)
		}
		if ae := asAccess(t, u.Partial[0]); !ae.Forbidden || !strings.Contains(ae.Rule(), `{apiGroups: ["apps"], resources: ["deployments"], verbs: ["list"]} cluster-wide`) {
			t.Errorf("partial: %v", ae)
		}
		_, err = r.FindUpdater(ctx, "elsewhere")
		if ae := asAccess(t, err); !ae.Forbidden {
			t.Errorf("nothing found and cluster-wide list forbidden: %v", ae)
		}
	})
	t.Run("configmap forbidden", func(t *testing.T) {
		r := newTestReader(t, []runtime.Object{upstreamDeployment(t, "argocd")})
		forbid(r.kube, "get", "", "configmaps")
		u, err := r.FindUpdater(ctx, "argocd")
		if err != nil {
			t.Fatal(err)
		}
		if len(u.Partial) != 1 || !asAccess(t, u.Partial[0]).Forbidden {
			t.Errorf("partial: %v", u.Partial)
		}
		if _, known := u.Getenv("IMAGE_UPDATER_WATCH_NAMESPACES"); known {
			t.Error("a ConfigMap value that could not be read must be unknown")
		}
	})
}
