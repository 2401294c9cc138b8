package diagnostics

import (
	"context"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/imgupd/imgupd/internal/lazyre"
	"github.com/imgupd/imgupd/internal/textutil"
	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/model/updaterlog"
	"github.com/imgupd/imgupd/report"
	"github.com/imgupd/imgupd/sources/cluster"
)

// ext: credentials. Image Updater runs the script an ext:<path> reference
// names inside its own container, every time it fetches the credentials
// (registry-scanner pkg/image/credentials.go, FetchCredentials: os.Stat,
// then exec with a 10 s timeout; "could not stat <path>: …", "error
// executing <path>: …", "invalid script output, must be single line with
// syntax <username>:<password>"; the same words since v0.x). On failure it
// warns "Could not fetch credentials: …", errors "Could not set registry
// endpoint credentials: …" and lists no tags for the image.
//
// imgupd never runs the script. It can tell whether anything is there: the
// path against the volumes of Image Updater's Deployment (the deepest mount
// that covers it, subPath, ConfigMap and Secret items, the ConfigMap's
// keys, the file's mode) and against what the upstream image ships
// (Dockerfile: /manager, or /usr/local/bin/argocd-image-updater before
// v1.0; /usr/local/bin/git-ask-pass.sh; alpine's packages, aws-cli among
// them, under /usr and /bin; an empty /app/config and nothing else under
// /app).

// extCheck is what imgupd can say about an ext: script before running it.
type extCheck struct {
	// missing: nothing provides the path; notExec: a ConfigMap or Secret
	// provides it without an execute bit.
	missing, notExec bool
	// where says what provides it, or why nothing does.
	where string
	fs    cluster.FileSource
	// cmKeyMissing: the path is in a ConfigMap volume that does not hold
	// the key (the fix adds it there rather than mounting over the
	// directory).
	cmKeyMissing bool
}

// imageShips says whether the upstream image has the file p (ships), and
// whether that is known (an alpine system directory may hold anything).
func imageShips(p string, v updater.Version) (ships, known bool) {
	switch p {
	case "/usr/local/bin/git-ask-pass.sh", "/usr/bin/aws", "/bin/sh", "/sbin/tini":
		return true, true
	case "/manager":
		return v.AtLeast(1, 0, 0), true
	case "/usr/local/bin/argocd-image-updater":
		return !v.AtLeast(1, 0, 0), true
	}
	for _, dir := range []string{"/bin/", "/sbin/", "/usr/", "/lib/", "/etc/"} {
		if strings.HasPrefix(p, dir) {
			return false, false
		}
	}
	return false, true
}

// checkExtPath looks for the script's path in Image Updater's container.
func (r *run) checkExtPath(ctx context.Context, p string) extCheck {
	file := path.Clean(p)
	fs := r.install.FileAt(file)
	c := extCheck{fs: fs}
	m := fs.Mount
	if m == nil {
		ships, known := imageShips(file, r.version)
		switch {
		case ships:
			c.where = "the Image Updater image ships " + file
		case known:
			c.missing = true
			c.where = "no volume of Deployment " + r.install.Namespace + "/" + r.install.Name + " is mounted at " + file + " or a directory above it, and the Image Updater image ships nothing there"
		default:
			c.where = "no volume is mounted there; the image's system directory " + path.Dir(file) + " may hold it"
		}
		return c
	}
	vol := fmt.Sprintf("volume %q (%s) mounted at %s", m.Volume, m.Kind, m.MountPath)
	if m.SubPath != "" {
		vol += " with subPath " + m.SubPath
	}
	switch m.Kind {
	case "configMap", "secret", "projected":
	default:
		c.where = vol + ": what it holds is not visible from the API (an init container or the node fills it)"
		return c
	}
	if fs.Rel == "" {
		c.where = vol + ": the whole volume is mounted at the script's path, a directory, not a file"
		c.missing = true
		return c
	}
	if fs.Source == nil {
		c.missing = true
		c.where = vol + ": it shows no file " + fs.Rel + " (its items name other paths)"
		return c
	}
	src := *fs.Source
	c.where = fmt.Sprintf("%s: %s %s/%s key %s", vol, src.Kind, r.install.Namespace, src.Name, fs.Key)
	if src.Kind == "ConfigMap" {
		found := false
		for _, s := range append([]cluster.VolumeSource{src}, fs.Candidates...) {
			if s.Kind != "ConfigMap" {
				continue
			}
			data, err := r.configMap(ctx, r.install.Namespace, s.Name)
			if err != nil {
				c.where += " (the ConfigMap could not be read: " + textutil.OneLine(err.Error()) + ")"
				return c
			}
			if _, ok := data[fs.Key]; ok {
				c.where = fmt.Sprintf("%s: ConfigMap %s/%s key %s", vol, r.install.Namespace, s.Name, fs.Key)
				found = true
				break
			}
		}
		if !found && len(fs.Candidates) <= 1 {
			c.missing, c.cmKeyMissing = true, true
			c.where += ", which the ConfigMap does not hold"
			return c
		}
		if !found {
			c.where = vol + ": none of its ConfigMaps holds key " + fs.Key + " (its Secrets are not read)"
			return c
		}
	}
	c.where += fmt.Sprintf(", mode %04o", fs.Mode)
	if fs.Mode&0o111 == 0 {
		c.notExec = true
	}
	return c
}

// extLog is Image Updater's latest line saying the script failed: the
// credential lines of any app (registries.conf credentials are shared).
func (r *run) extLog(p string) *updaterlog.Event {
	if r.logs == nil {
		return nil
	}
	var last *updaterlog.Event
	for _, list := range [][]updaterlog.Event{r.logs.Warnings, r.logs.Errors} {
		for i := range list {
			e := &list[i]
			switch e.Match.Cause {
			case "creds.ext_missing", "creds.ext_failed":
				if path.Clean(e.Match.Captures["script"]) != path.Clean(p) {
					continue
				}
			case "creds.ext_output":
			default:
				continue
			}
			if last == nil || e.Time.After(last.Time) {
				last = e
			}
		}
	}
	return last
}

// extScriptFinding judges an ext: credentials script: blocked when nothing
// provides its path (REGISTRY_EXT_SCRIPT_NOT_MOUNTED), when it is a
// ConfigMap or Secret file without an execute bit, or when Image Updater's
// log says it failed (REGISTRY_EXT_SCRIPT_FAILED); else not verified
// (imgupd does not run it), with what provides it. blocked: Image Updater
// lists no tags for the image.
func (r *run) extScriptFinding(ctx context.Context, im updater.ImageConfig, ep updater.Endpoint, ref updater.CredentialRef, level updater.CredentialLevel, from string) (f report.Finding, blocked bool) {
	name := aliasOr(im)
	unchecked := find(report.CodeRegistryCredsUnchecked, report.Unknown, fmt.Sprintf("image %s uses the external credentials script %s, which only runs inside Image Updater's pod", name, ref.Path)).WithImage(im.Alias).
		With(ev("credentials", "ext:"+ref.Path+" ("+from+")"))
	if r.install == nil {
		return unchecked, false
	}
	c := r.checkExtPath(ctx, ref.Path)
	logged := r.extLog(ref.Path)
	withLog := func(f report.Finding) report.Finding {
		if logged == nil {
			return f
		}
		at := "Image Updater logged"
		if !logged.Time.IsZero() {
			at += " at " + logged.Time.UTC().Format("2006-01-02 15:04:05Z")
		}
		return f.With(ev(at, textutil.ClipWords(textutil.OneLine(updaterlog.Redact(logged.Msg)), 300)))
	}
	switch {
	case c.missing:
		f = find(report.CodeRegistryExtNotMounted, report.Fail, fmt.Sprintf("the ext: credentials script %s of image %s is not in Image Updater's container: %s", ref.Path, name, c.where)).WithImage(im.Alias).
			With(ev("credentials", "ext:"+ref.Path+" ("+from+")"), ev("mounts", r.mountsText()),
				ev("Image Updater logs", "Could not set registry endpoint credentials: could not stat "+ref.Path+": stat "+ref.Path+": no such file or directory (every cycle; no tags are listed)"))
		return r.extMountFix(ctx, withLog(f), im, ep, ref, level, c), true
	case c.notExec:
		f = find(report.CodeRegistryExtFailed, report.Fail, fmt.Sprintf("the ext: credentials script %s of image %s is not executable: %s", ref.Path, name, c.where)).WithImage(im.Alias).
			With(ev("credentials", "ext:"+ref.Path+" ("+from+")"),
				ev("Image Updater logs", "Could not set registry endpoint credentials: error executing "+ref.Path+": fork/exec "+ref.Path+": permission denied"))
		return r.extModeFix(withLog(f), c), true
	case logged != nil:
		f = find(report.CodeRegistryExtFailed, report.Fail, fmt.Sprintf("Image Updater could not get credentials from the ext: script %s of image %s: %s", ref.Path, name, textutil.ClipWords(textutil.OneLine(updaterlog.Redact(logged.Match.Captures[updaterlog.CaptureError])), 200))).WithImage(im.Alias).
			With(ev("credentials", "ext:"+ref.Path+" ("+from+")"), ev("provided by", c.where))
		f = withLog(f)
		return f.WithFix("Run the script as Image Updater does and make it print one user:pass line: it must be executable by user 1000, and use only what the image has (sh, aws, wget, python3).", "Deployment "+r.install.Namespace+"/"+r.install.Name+", "+c.where,
			r.execStep("run the script in Image Updater's container: it must print one user:pass line", ref.Path)), true
	}
	// Without the script's output imgupd cannot list the tags as Image
	// Updater does: the answer depends on it.
	unchecked.Decides = true
	unchecked.Verify = "run the script in Image Updater's container (the fix's step): it must print one user:pass line; or read Image Updater's log for \"Could not set registry endpoint credentials\""
	unchecked = unchecked.With(ev("provided by", c.where))
	return unchecked.WithFix("Run the script as Image Updater does: it must print one user:pass line of an account that may pull the image.", "Deployment "+r.install.Namespace+"/"+r.install.Name+", "+c.where,
		r.execStep("run the script in Image Updater's container", ref.Path)), false
}

// mountsText lists the controller container's mounts.
func (r *run) mountsText() string {
	if len(r.install.Mounts) == 0 {
		return "none"
	}
	var parts []string
	for _, m := range r.install.Mounts {
		s := m.MountPath + " (" + m.Kind
		for _, src := range m.Sources {
			s += " " + src.Kind + " " + src.Name
		}
		if m.SubPath != "" {
			s += ", subPath " + m.SubPath
		}
		parts = append(parts, s+")")
	}
	return strings.Join(parts, "; ")
}

// execStep runs the script in Image Updater's container, as it does.
func (r *run) execStep(say, script string) report.Step {
	argv := []string{"kubectl", "-n", r.install.Namespace, "exec", "deploy/" + r.install.Name}
	if r.install.Container != "" {
		argv = append(argv, "-c", r.install.Container)
	}
	return report.Command(say, append(argv, "--", script)...)
}

// configMapKeyRE is what a ConfigMap key may be.
var configMapKeyRE = lazyre.New(`^[-._a-zA-Z0-9]+$`)

// extScriptConfigMap is the ConfigMap the fix puts a script in.
const extScriptConfigMap = "argocd-image-updater-ext-scripts"

// extVolume is the volume the fix adds for it.
const extVolume = "ext-credentials-script"

// execMode is 0755, as Kubernetes writes a volume's defaultMode.
const execMode = 0o755

// extMountFix: put the script in a ConfigMap and mount it at the path, as
// a file (subPath: the directory keeps what else it holds); when the path
// is in a ConfigMap volume already, add the key to that ConfigMap instead
// (a file cannot be mounted inside a ConfigMap volume). Where another
// mount provides a script of the same name, pointing the credentials there
// is the other way.
func (r *run) extMountFix(ctx context.Context, f report.Finding, im updater.ImageConfig, ep updater.Endpoint, ref updater.CredentialRef, level updater.CredentialLevel, c extCheck) report.Finding {
	ns := r.install.Namespace
	file := path.Clean(ref.Path)
	script := extScriptTemplate(ep.Host())
	var steps []report.Step
	var where string
	if c.cmKeyMissing && c.fs.Mount != nil && c.fs.Source != nil {
		cm := c.fs.Source.Name
		where = "ConfigMap " + ns + "/" + cm + ", key " + c.fs.Key
		doc := "data:\n  " + yamlKey(c.fs.Key) + ": |\n" + indent(script, "    ")
		steps = append(steps, report.Paste("add the script to the ConfigMap mounted at "+c.fs.Mount.MountPath+" (your own script, or this one for ECR: it must print one user:pass line)", "ConfigMap "+ns+"/"+cm,
			[]string{"kubectl", "-n", ns, "edit", "configmap", "--", cm}, doc))
		if c.fs.Mode&0o111 == 0 {
			if s, ok := r.defaultModeStep(c.fs.Mount); ok {
				steps = append(steps, s)
			}
		}
	} else {
		where, steps = r.newExtMountSteps(ep, file)
	}
	if other := r.sameNameScript(ctx, file); other != "" {
		alt := "ext:" + other
		if level == updater.CredLevelImage {
			p := r.imagePlace(im, updater.FieldPullSecret)
			steps = append(steps, report.Otherwise(p.step("point the image's credentials at the script that is mounted, "+other, alt)))
		} else {
			e := confEntry{name: confName(ep), apiURL: ep.APIURL, prefix: orDefault(ep.Prefix, ep.Host()), fields: []kv{{"credentials", alt}}}
			steps = append(steps, report.Alternative(r.registriesConfSteps("point the registry's credentials at the script that is mounted, "+other, e)...)...)
		}
		where += "; or the credentials, to " + alt
	}
	return f.WithFix("Mount the script where the credentials say ("+file+"), executable, from a ConfigMap.", where, steps...)
}

// extModeFix makes the script's volume executable.
func (r *run) extModeFix(f report.Finding, c extCheck) report.Finding {
	where := "Deployment " + r.install.Namespace + "/" + r.install.Name + ", volume " + c.fs.Mount.Volume
	if s, ok := r.defaultModeStep(c.fs.Mount); ok && !itemHasMode(c.fs) {
		return f.WithFix("Mount the script executable: defaultMode 0755 on its volume (Kubernetes writes ConfigMap and Secret files 0644 unless told).", where, s)
	}
	return f.WithFix("Mount the script executable: mode 0755 on its item (Kubernetes writes ConfigMap and Secret files 0644 unless told).", where,
		report.Value("set the item's mode to 493 (0755)", where+", item "+c.fs.Key, "mode: 493"))
}

// itemHasMode: the file's item sets its own mode, which defaultMode does
// not change.
func itemHasMode(fs cluster.FileSource) bool {
	if fs.Source == nil {
		return false
	}
	for _, it := range fs.Source.Items {
		if it.Key == fs.Key && it.Mode != nil {
			return true
		}
	}
	return false
}

// defaultModeStep sets defaultMode 0755 on the mount's volume, as an exact
// patch that tests the volume's name first.
func (r *run) defaultModeStep(m *cluster.Mount) (report.Step, bool) {
	field := map[string]string{"configMap": "configMap", "secret": "secret", "projected": "projected"}[m.Kind]
	if field == "" || m.VolumeIndex < 0 {
		return report.Step{}, false
	}
	i := strconv.Itoa(m.VolumeIndex)
	return report.PatchStep("make the volume's files executable (defaultMode 0755)", report.Patch{
		Kind: "Deployment", Resource: "deployment", Namespace: r.install.Namespace, Name: r.install.Name, Type: report.PatchJSON,
		Ops: []report.PatchOp{
			{Op: "test", Path: report.Pointer("spec", "template", "spec", "volumes", i, "name"), Value: m.Volume},
			{Op: "add", Path: report.Pointer("spec", "template", "spec", "volumes", i, field, "defaultMode"), Value: execMode},
		},
	}), true
}

// sameNameScript is another path where a mount shows a file of the same
// name as file (a script mounted in another directory than the
// credentials say), or "".
func (r *run) sameNameScript(ctx context.Context, file string) string {
	base := path.Base(file)
	for _, m := range r.install.Mounts {
		mp := path.Clean(m.MountPath)
		if m.SubPath != "" {
			if path.Base(mp) == base && mp != file {
				return mp
			}
			continue
		}
		for _, s := range m.Sources {
			for _, it := range s.Items {
				if path.Base(it.Path) == base && path.Join(mp, it.Path) != file {
					return path.Join(mp, it.Path)
				}
			}
			if len(s.Items) == 0 && s.Kind == "ConfigMap" && mp != path.Dir(file) {
				if data, err := r.configMap(ctx, r.install.Namespace, s.Name); err == nil {
					if _, ok := data[base]; ok {
						return path.Join(mp, base)
					}
				}
			}
		}
	}
	return ""
}

// extScriptTemplate is the script the fix proposes: for ECR a working one
// (the AWS CLI the image ships, with the pod's IAM role: it prints
// AWS:<token>, as upstream's documentation shows), else a stub that says
// what to print.
func extScriptTemplate(host string) string {
	h := hostOnly(host)
	if isECR(h) {
		_, rest, _ := strings.Cut(h, ".dkr.ecr.")
		region, _, _ := strings.Cut(rest, ".amazonaws.com")
		return "#!/bin/sh\naws ecr --region " + region + " get-authorization-token --output text --query 'authorizationData[].authorizationToken' | base64 -d\n"
	}
	return "#!/bin/sh\n# your script: it must print one line, <username>:<password>, for the registry\n"
}

// yamlKey is a ConfigMap key as a YAML mapping key (keys are [-._a-zA-Z0-9]:
// quoted so that a key such as "true" or "1.0" stays a string).
func yamlKey(k string) string { return strconv.Quote(k) }

func indent(s, pre string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = pre + l
	}
	return strings.Join(lines, "\n") + "\n"
}

// newExtMountSteps put the script in a ConfigMap of its own and mount it
// at file: for ECR the usual login script, else the reader's own file.
func (r *run) newExtMountSteps(ep updater.Endpoint, file string) (string, []report.Step) {
	ns, dep := r.install.Namespace, r.install.Name
	key := path.Base(file)
	if !configMapKeyRE().MatchString(key) {
		key = "credentials.sh"
	}
	script := extScriptTemplate(ep.Host())
	var steps []report.Step
	where := "ConfigMap " + ns + "/" + extScriptConfigMap + " and Deployment " + ns + "/" + dep + " (a volume, and a volumeMount at " + file + ")"
	if isECR(hostOnly(ep.Host())) {
		steps = append(steps, report.Apply("create the ConfigMap that holds the script (the usual ECR login script: the AWS CLI in Image Updater's image prints AWS:<token> with the pod's IAM role)", map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": extScriptConfigMap, "namespace": ns},
			"data":     map[string]any{key: script},
		}))
	} else {
		steps = append(steps, report.Command("put your script, saved here as ./"+key+" (it must print one line user:pass), in a ConfigMap",
			"kubectl", "-n", ns, "create", "configmap", "--from-file="+key+"=./"+key, "--", extScriptConfigMap))
	}
	container := r.install.Container
	steps = append(steps, report.PatchStep("mount it at "+file+", executable (subPath: only that file, the directory keeps what it holds; Image Updater restarts with it)", report.Patch{
		Kind: "Deployment", Resource: "deployment", Namespace: ns, Name: dep, Type: report.PatchStrategic,
		Merge: map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
			"volumes": []any{map[string]any{"name": extVolume, "configMap": map[string]any{"name": extScriptConfigMap, "defaultMode": execMode}}},
			"containers": []any{map[string]any{"name": container, "volumeMounts": []any{
				map[string]any{"name": extVolume, "mountPath": file, "subPath": key, "readOnly": true}}}},
		}}}},
	}))
	return where, steps
}
