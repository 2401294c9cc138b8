package diagnostics

import (
	"fmt"
	"strings"

	"github.com/imgupd/imgupd/diagnostics/argo"
	"github.com/imgupd/imgupd/diagnostics/cluster"
	"github.com/imgupd/imgupd/diagnostics/report"
	"github.com/imgupd/imgupd/diagnostics/updater"
)

// This file builds the steps of fixes that write into one object: the
// object's name, the command that opens it, and the YAML from the object's
// top (spec: ...), or the one command that sets an annotation.

// kv is one setting: a dotted path below the block it belongs to
// ("manifestTargets.kustomize.name") and its value as YAML writes it.
type kv struct{ key, value string }

// nestYAML writes the settings as nested YAML, each line prefixed with
// indent; settings that share a path prefix share its keys.
func nestYAML(indent string, kvs []kv) string {
	var b strings.Builder
	var prev []string
	for _, x := range kvs {
		parts := strings.Split(x.key, ".")
		common := 0
		for common < len(prev)-1 && common < len(parts)-1 && prev[common] == parts[common] {
			common++
		}
		for i := common; i < len(parts)-1; i++ {
			b.WriteString(indent + strings.Repeat("  ", i) + parts[i] + ":\n")
		}
		fmt.Fprintf(&b, "%s%s%s: %s\n", indent, strings.Repeat("  ", len(parts)-1), parts[len(parts)-1], x.value)
		prev = parts
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// crObject names an ImageUpdater CR ("namespace/name") and the command
// that opens it.
func crObject(key string) (object, edit string) {
	return "ImageUpdater " + key, fmt.Sprintf("kubectl -n %s edit imageupdater %s", crNamespace(key), crName(key))
}

// appObject names the Application and the command that opens it.
func (r *run) appObject() (object, edit string) {
	return fmt.Sprintf("Application %s/%s", r.req.Namespace, r.req.App), fmt.Sprintf("kubectl -n %s edit application %s", r.req.Namespace, r.req.App)
}

// annotateApp is the command that sets (key=value) or removes (key-) the
// Application's annotations.
func (r *run) annotateApp(args ...string) string {
	return fmt.Sprintf("kubectl -n %s annotate application %s --overwrite %s", r.req.Namespace, r.req.App, strings.Join(args, " "))
}

// imageSetting is settings of one image, by alias, below its block of
// the CR (imageName, commonUpdateSettings.allowTags,
// manifestTargets.kustomize.name...).
type imageSetting struct {
	alias string
	kvs   []kv
}

// imageAnnotations are the per-alias annotation names of the image
// settings, by their last path element.
var imageAnnotations = map[string]string{
	updater.FieldAllowTags: "allow-tags", updater.FieldIgnoreTags: "ignore-tags",
	updater.FieldPlatforms: "platforms", updater.FieldUpdateStrategy: "update-strategy",
	updater.FieldForceUpdate: "force-update", updater.FieldPullSecret: "pull-secret",
	"manifestTargets.kustomize.name": updater.AnnKeyKustomizeImageName,
	"manifestTargets.helm.name":      "helm.image-name", "manifestTargets.helm.tag": "helm.image-tag",
}

// imagesStep writes settings of images where the app's selection reads
// them: their blocks in the selected applicationRef of the CR (pasted into
// it), else their per-alias annotations (one annotate command). An
// imageName setting in annotation mode is the whole image-list value.
func (r *run) imagesStep(say string, sets ...imageSetting) report.Step {
	if r.target.Mode == updater.ModeCR {
		var b strings.Builder
		fmt.Fprintf(&b, "spec:\n  applicationRefs:\n  - namePattern: %s\n    images:", yamlQuote(r.target.NamePattern))
		for _, s := range sets {
			fmt.Fprintf(&b, "\n    - alias: %s\n%s", yamlQuote(s.alias), nestYAML("      ", s.kvs))
		}
		object, edit := crObject(r.target.CR)
		return report.Paste(say, object, edit, b.String())
	}
	var args []string
	for _, s := range sets {
		for _, x := range s.kvs {
			key := updater.AnnotationImageList
			if x.key != "imageName" {
				name := imageAnnotations[x.key]
				if name == "" {
					name = imageAnnotations[x.key[strings.LastIndex(x.key, ".")+1:]]
				}
				key = updater.AnnotationPrefix + name
				if s.alias != "" {
					key = updater.AnnotationPrefix + s.alias + "." + name
				}
			}
			args = append(args, key+"="+shQuote(unYAML(x.value)))
		}
	}
	return report.Run(say, r.annotateApp(args...))
}

// writeBackAnnotations are the write-back annotations by setting.
var writeBackAnnotations = map[string]string{"method": "write-back-method", "repository": "git-repository", "branch": "git-branch", "writeBackTarget": "write-back-target"}

// writeBackStep writes write-back settings (method, gitConfig.repository,
// gitConfig.branch, gitConfig.writeBackTarget) where the app's selection
// reads them: the CR's writeBackConfig (the applicationRef's, or the CR's
// own when that is where the first setting comes from), else the
// Application's annotations. Settings without an annotation (pull
// requests) are for CR mode only.
func (r *run) writeBackStep(say string, kvs ...kv) report.Step {
	if r.target.Mode == updater.ModeCR {
		object, edit := crObject(r.target.CR)
		field := kvs[0].key[strings.LastIndex(kvs[0].key, ".")+1:]
		if wb := r.target.WriteBack; wb != nil && wb.Sources[field] == updater.SettingFromCR {
			return report.Paste(say, object, edit, "spec:\n  writeBackConfig:\n"+nestYAML("    ", kvs))
		}
		return report.Paste(say, object, edit, fmt.Sprintf("spec:\n  applicationRefs:\n  - namePattern: %s\n    writeBackConfig:\n%s", yamlQuote(r.target.NamePattern), nestYAML("      ", kvs)))
	}
	var args []string
	for _, x := range kvs {
		field := x.key[strings.LastIndex(x.key, ".")+1:]
		args = append(args, updater.AnnotationPrefix+writeBackAnnotations[field]+"="+shQuote(unYAML(x.value)))
	}
	return report.Run(say, r.annotateApp(args...))
}

// sourcePaste is YAML body (a helm: or kustomize: block) pasted into the
// Application's source src: spec.source, or its item of spec.sources,
// which say then names.
func (r *run) sourcePaste(say string, src *argo.ApplicationSource, body string) report.Step {
	object, edit := r.appObject()
	if i := r.sourceIndex(src); r.app != nil && r.app.Spec.Source != src && i >= 0 {
		say += fmt.Sprintf(" in spec.sources[%d] (%s)", i, describeSource(src))
		return report.Paste(say, object, edit, "spec:\n  sources:\n  - "+indentRest(body, "    "))
	}
	return report.Paste(say, object, edit, "spec:\n  source:\n"+indentAll(body, "    "))
}

func indentAll(s, indent string) string {
	return indent + strings.ReplaceAll(s, "\n", "\n"+indent)
}

// indentRest indents all lines but the first (which follows a "- ").
func indentRest(s, indent string) string {
	return strings.ReplaceAll(s, "\n", "\n"+indent)
}

// registriesConfStep adds an entry to registries.conf: pasted into the
// ConfigMap Image Updater reads it from when the installation was found
// (restart then says that Image Updater reads it only at start).
func (r *run) registriesConfStep(say, entry string) report.Step {
	if r.install == nil {
		return report.Paste(say, "registries.conf of Image Updater", "", entry)
	}
	return report.Paste(say, fmt.Sprintf("ConfigMap %s/%s, key registries.conf", r.install.Namespace, cluster.DefaultConfigMap),
		fmt.Sprintf("kubectl -n %s edit configmap %s", r.install.Namespace, cluster.DefaultConfigMap),
		"data:\n  registries.conf: |\n"+indentAll(entry, "    "))
}

// registriesConfSteps adds the entry to registries.conf and restarts
// Image Updater.
func (r *run) registriesConfSteps(say, entry string) []report.Step {
	steps := []report.Step{r.registriesConfStep(say, entry)}
	if restart, ok := r.restartStep(); ok {
		steps = append(steps, restart)
	}
	return steps
}

// restartStep restarts Image Updater so it reads registries.conf again
// (and false when the installation was not found).
func (r *run) restartStep() (report.Step, bool) {
	if r.install == nil {
		return report.Step{}, false
	}
	return report.Run("restart Image Updater: it reads registries.conf only at start",
		fmt.Sprintf("kubectl -n %s rollout restart deploy/%s", r.install.Namespace, r.install.Name)), true
}

// heredoc applies yaml with kubectl, as one command.
func heredoc(yaml string) string {
	return "kubectl apply -f - <<'EOF'\n" + strings.TrimSuffix(yaml, "\n") + "\nEOF"
}
