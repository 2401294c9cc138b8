package cluster

import (
	"context"
	"fmt"
	"path"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Image Updater's defaults for its configuration files.
const (
	defaultRegistriesConfPath = "/app/config/registries.conf"
	// DefaultConfigMap is the ConfigMap upstream's manifests mount at
	// /app/config and read env settings from.
	DefaultConfigMap  = "argocd-image-updater-config"
	registriesConfKey = "registries.conf"
)

// registriesConf finds the volume that provides RegistriesConfPath in the
// controller container and reads the file's content from its ConfigMap.
func (u *UpdaterInstall) registriesConf(ctx context.Context, spec *corev1.PodSpec, c *corev1.Container, cms *configMapCache) {
	file := path.Clean(u.RegistriesConfPath)
	var mount *corev1.VolumeMount
	rel := ""
	for i := range c.VolumeMounts {
		m := &c.VolumeMounts[i]
		mp := path.Clean(m.MountPath)
		var r string
		switch {
		case mp == file:
			r = ""
		case strings.HasPrefix(file, mp+"/"):
			r = strings.TrimPrefix(file, mp+"/")
		default:
			continue
		}
		if mount == nil || len(mp) > len(path.Clean(mount.MountPath)) {
			mount, rel = m, r
		}
	}
	if mount == nil {
		u.RegistriesConfSource = fmt.Sprintf("no volume is mounted at %s: Image Updater runs without registries.conf%s",
			file, u.unmountedHint(ctx, cms))
		return
	}
	if mount.SubPath != "" {
		rel = path.Join(mount.SubPath, rel)
	}
	var vol *corev1.Volume
	for i := range spec.Volumes {
		if spec.Volumes[i].Name == mount.Name {
			vol = &spec.Volumes[i]
		}
	}
	if vol == nil {
		u.RegistriesConfSource = fmt.Sprintf("volume %q mounted at %s is not defined in the pod spec", mount.Name, mount.MountPath)
		return
	}
	var srcs []corev1.ConfigMapProjection
	switch {
	case vol.ConfigMap != nil:
		srcs = append(srcs, corev1.ConfigMapProjection{LocalObjectReference: vol.ConfigMap.LocalObjectReference, Items: vol.ConfigMap.Items, Optional: vol.ConfigMap.Optional})
	case vol.Projected != nil:
		for _, s := range vol.Projected.Sources {
			if s.ConfigMap != nil {
				srcs = append(srcs, *s.ConfigMap)
			}
		}
	default:
		u.RegistriesConfSource = fmt.Sprintf("volume %q mounted at %s is not a ConfigMap (content not read)", mount.Name, mount.MountPath)
		return
	}
	for _, s := range srcs {
		key, ok := keyForPath(s.Items, rel)
		if !ok {
			continue
		}
		data, notFound, err := cms.get(ctx, s.Name)
		where := fmt.Sprintf("ConfigMap %s/%s key %s (volume %q at %s)", u.Namespace, s.Name, key, mount.Name, mount.MountPath)
		u.RegistriesConfMap = RegistriesConfMap{Name: s.Name, Key: key, Exists: !notFound && err == nil, Read: err == nil}
		switch {
		case err != nil:
			u.RegistriesConfSource = where + ": could not be read"
			return
		case notFound:
			u.RegistriesConfSource = where + ": the ConfigMap does not exist, so there is no registries.conf"
			return
		}
		v, has := data[key]
		if !has {
			u.RegistriesConfSource = where + ": the key does not exist, so there is no registries.conf"
			return
		}
		u.RegistriesConf, u.RegistriesConfSource = []byte(v), where
		return
	}
	u.RegistriesConfSource = fmt.Sprintf("volume %q at %s does not project a file %s: Image Updater runs without registries.conf", mount.Name, mount.MountPath, rel)
}

// keyForPath maps a file path inside a ConfigMap volume to its key: through
// items when given, else the key is the path itself.
func keyForPath(items []corev1.KeyToPath, rel string) (string, bool) {
	if len(items) == 0 {
		return rel, rel != "" && !strings.Contains(rel, "/")
	}
	for _, it := range items {
		if path.Clean(it.Path) == rel {
			return it.Key, true
		}
	}
	return "", false
}

// unmountedHint points at a registries.conf that exists but is not mounted.
func (u *UpdaterInstall) unmountedHint(ctx context.Context, cms *configMapCache) string {
	d, _, err := cms.get(ctx, DefaultConfigMap)
	if err != nil || d == nil {
		return ""
	}
	if _, ok := d[registriesConfKey]; ok {
		return fmt.Sprintf(" (ConfigMap %s has a %s key, but the Deployment does not mount it)", DefaultConfigMap, registriesConfKey)
	}
	return ""
}

// updaterPods lists the Deployment's pods by its selector.
func (r *Reader) updaterPods(ctx context.Context, d *appsv1.Deployment, container string) ([]Pod, error) {
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil, &AccessError{Verb: "list", Resource: "pods", Namespace: d.Namespace, Err: fmt.Errorf("selector of deployment %s: %w", d.Name, err)}
	}
	list, err := r.Kube.CoreV1().Pods(d.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, newAccessError("list", "", "pods", d.Namespace, "", err)
	}
	out := make([]Pod, 0, len(list.Items))
	for _, p := range list.Items {
		if !sel.Matches(labels.Set(p.Labels)) {
			continue
		}
		pod := Pod{Name: p.Name, Phase: string(p.Status.Phase), NodeName: p.Spec.NodeName}
		if p.Status.StartTime != nil {
			pod.StartedAt = p.Status.StartTime.UTC().Format("2006-01-02T15:04:05Z07:00")
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady {
				pod.Ready = c.Status == corev1.ConditionTrue
			}
		}
		for _, cs := range p.Status.ContainerStatuses {
			if cs.Name != container {
				continue
			}
			pod.Restarts = cs.RestartCount
			if w := cs.State.Waiting; w != nil {
				pod.Waiting = strings.TrimSuffix(w.Reason+": "+w.Message, ": ")
			}
			if t := cs.LastTerminationState.Terminated; t != nil {
				pod.LastTermination = fmt.Sprintf("%s (exit %d) at %s", t.Reason, t.ExitCode, t.FinishedAt.UTC().Format("2006-01-02T15:04:05Z07:00"))
			}
		}
		out = append(out, pod)
	}
	return out, nil
}

// Where Image Updater's controller reads SSH host keys and TLS certificates
// for git (the upstream manifests mount argocd-ssh-known-hosts-cm at
// /app/config/ssh).
const (
	updaterSSHDir = "/app/config/ssh"
	updaterTLSDir = "/app/config/tls"
)

// mountedConfigMap is the ConfigMap mounted at dir in the container ("" when
// none: no volume there, or not a ConfigMap).
func mountedConfigMap(spec *corev1.PodSpec, c *corev1.Container, dir string) string {
	for _, m := range c.VolumeMounts {
		if path.Clean(m.MountPath) != dir || m.SubPath != "" {
			continue
		}
		for _, v := range spec.Volumes {
			if v.Name == m.Name && v.ConfigMap != nil {
				return v.ConfigMap.Name
			}
		}
	}
	return ""
}
