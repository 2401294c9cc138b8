package cluster

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestFileAt: the deepest mount covering a path provides it; subPath and
// items map it to a key; the mode is the item's, else defaultMode, else
// 0644.
func TestFileAt(t *testing.T) {
	mode := func(m int32) *int32 { return &m }
	spec := &corev1.PodSpec{Volumes: []corev1.Volume{
		{Name: "conf", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}}}},
		{Name: "auth", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "auth"}, DefaultMode: mode(0o755),
			Items: []corev1.KeyToPath{{Key: "login", Path: "bin/login.sh"}, {Key: "other", Path: "other.sh", Mode: mode(0o700)}}}}},
		{Name: "one", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s"}}},
		{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
	}}
	c := &corev1.Container{VolumeMounts: []corev1.VolumeMount{
		{Name: "conf", MountPath: "/app/config"},
		{Name: "auth", MountPath: "/app/config/auth"},
		{Name: "one", MountPath: "/usr/local/bin/login", SubPath: "login"},
		{Name: "scratch", MountPath: "/scripts/"},
	}}
	u := &UpdaterInstall{Mounts: mounts(spec, c)}
	for _, tc := range []struct {
		path, volume, source, key string
		mode                      int32
	}{
		{"/app/config/registries.conf", "conf", "cfg", "registries.conf", 0o644},
		{"/app/config/auth/bin/login.sh", "auth", "auth", "login", 0o755},
		{"/app/config/auth/other.sh", "auth", "auth", "other", 0o700},
		{"/app/config/auth/missing.sh", "auth", "", "", 0},
		{"/usr/local/bin/login", "one", "s", "login", 0o644},
		{"/scripts/a/b.sh", "scratch", "", "", 0},
		{"/app/scripts/x.sh", "", "", "", 0},
	} {
		fs := u.FileAt(tc.path)
		vol, src := "", ""
		if fs.Mount != nil {
			vol = fs.Mount.Volume
		}
		if fs.Source != nil {
			src = fs.Source.Name
		}
		if vol != tc.volume || src != tc.source || fs.Key != tc.key || fs.Mode != tc.mode {
			t.Errorf("%s: volume %q source %q key %q mode %o; want %q %q %q %o", tc.path, vol, src, fs.Key, fs.Mode, tc.volume, tc.source, tc.key, tc.mode)
		}
	}
}
