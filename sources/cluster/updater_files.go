package cluster

import (
	"path"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Mount is one volumeMount of the controller container, with the volume it
// mounts: where a file inside Image Updater's container comes from (an
// ext: credentials script, say).
type Mount struct {
	// Volume is the volume's name; MountPath and SubPath the mount's.
	Volume, MountPath, SubPath string
	// VolumeIndex is the volume's index in the pod spec's volumes, -1 when
	// the pod spec defines no volume of that name.
	VolumeIndex int
	// Kind is the volume's source: configMap, secret, projected, emptyDir,
	// persistentVolumeClaim, hostPath, csi, image, or other.
	Kind string
	// Sources are the ConfigMaps and Secrets a configMap, secret or
	// projected volume shows, each with its items.
	Sources []VolumeSource
	// DefaultMode is the volume's defaultMode (nil: Kubernetes' 0644).
	DefaultMode *int32
}

// VolumeSource is one ConfigMap or Secret a volume shows.
type VolumeSource struct {
	// Kind is ConfigMap or Secret.
	Kind, Name string
	// Items, when set, are the only keys shown, each at its path.
	Items []corev1.KeyToPath
}

// FileSource is what provides one path inside the controller container:
// the mount that covers it (the deepest), the file's path inside that
// volume, and, for ConfigMap and Secret volumes, the key shown there.
type FileSource struct {
	// Mount covers the path (nil: no volume is mounted there or above it).
	Mount *Mount
	// Rel is the path inside the volume (subPath applied): "" when the
	// mount is the path itself without subPath.
	Rel string
	// Source and Key: the ConfigMap or Secret, and its key, shown at Rel.
	// Source is nil when the volume is not a ConfigMap, Secret or
	// projected one, or (Candidates then empty) when none of its sources
	// shows Rel through items and Rel is not a plain key name.
	Source *VolumeSource
	Key    string
	// Candidates are the sources without items that show Rel if they have
	// the key Rel (only reading them tells): Source is then the first.
	Candidates []VolumeSource
	// Mode is the file's mode for a ConfigMap or Secret key: the item's
	// mode, else the volume's defaultMode, else 0644.
	Mode int32
}

// defaultVolumeMode is the mode Kubernetes gives ConfigMap and Secret files
// without defaultMode (0644: not executable).
const defaultVolumeMode int32 = 0o644

// mounts describes the container's volumeMounts with their volumes.
func mounts(spec *corev1.PodSpec, c *corev1.Container) []Mount {
	var out []Mount
	for _, vm := range c.VolumeMounts {
		m := Mount{Volume: vm.Name, MountPath: vm.MountPath, SubPath: vm.SubPath, VolumeIndex: -1, Kind: "other"}
		for i := range spec.Volumes {
			v := &spec.Volumes[i]
			if v.Name != vm.Name {
				continue
			}
			m.VolumeIndex = i
			switch {
			case v.ConfigMap != nil:
				m.Kind, m.DefaultMode = "configMap", v.ConfigMap.DefaultMode
				m.Sources = []VolumeSource{{Kind: "ConfigMap", Name: v.ConfigMap.Name, Items: v.ConfigMap.Items}}
			case v.Secret != nil:
				m.Kind, m.DefaultMode = "secret", v.Secret.DefaultMode
				m.Sources = []VolumeSource{{Kind: "Secret", Name: v.Secret.SecretName, Items: v.Secret.Items}}
			case v.Projected != nil:
				m.Kind, m.DefaultMode = "projected", v.Projected.DefaultMode
				for _, s := range v.Projected.Sources {
					switch {
					case s.ConfigMap != nil:
						m.Sources = append(m.Sources, VolumeSource{Kind: "ConfigMap", Name: s.ConfigMap.Name, Items: s.ConfigMap.Items})
					case s.Secret != nil:
						m.Sources = append(m.Sources, VolumeSource{Kind: "Secret", Name: s.Secret.Name, Items: s.Secret.Items})
					}
				}
			case v.EmptyDir != nil:
				m.Kind = "emptyDir"
			case v.PersistentVolumeClaim != nil:
				m.Kind = "persistentVolumeClaim"
			case v.HostPath != nil:
				m.Kind = "hostPath"
			case v.CSI != nil:
				m.Kind = "csi"
			case v.Image != nil:
				m.Kind = "image"
			}
		}
		out = append(out, m)
	}
	return out
}

// FileAt says what provides the file p (an absolute path) in the
// controller container: the deepest mount whose mountPath is p or a
// directory above it, as the container runtime stacks nested mounts.
func (u *UpdaterInstall) FileAt(p string) FileSource {
	file := path.Clean(p)
	var fs FileSource
	best := -1
	for i := range u.Mounts {
		m := &u.Mounts[i]
		mp := path.Clean(m.MountPath)
		var rel string
		switch {
		case mp == file:
		case mp == "/" || strings.HasPrefix(file, mp+"/"):
			rel = strings.TrimPrefix(strings.TrimPrefix(file, mp), "/")
		default:
			continue
		}
		if len(mp) <= best {
			continue
		}
		best = len(mp)
		if m.SubPath != "" {
			rel = path.Join(m.SubPath, rel)
		}
		fs = FileSource{Mount: m, Rel: rel}
	}
	if fs.Mount == nil || fs.Rel == "" {
		return fs
	}
	mode := defaultVolumeMode
	if fs.Mount.DefaultMode != nil {
		mode = *fs.Mount.DefaultMode
	}
	for i := range fs.Mount.Sources {
		s := &fs.Mount.Sources[i]
		if len(s.Items) == 0 {
			if !strings.Contains(fs.Rel, "/") {
				fs.Candidates = append(fs.Candidates, *s)
			}
			continue
		}
		for _, it := range s.Items {
			if path.Clean(it.Path) != fs.Rel {
				continue
			}
			fs.Source, fs.Key, fs.Mode = s, it.Key, mode
			if it.Mode != nil {
				fs.Mode = *it.Mode
			}
			return fs
		}
	}
	if len(fs.Candidates) > 0 {
		fs.Source, fs.Key, fs.Mode = &fs.Candidates[0], fs.Rel, mode
	}
	return fs
}
