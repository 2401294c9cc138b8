package diagnostics

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/imgupd/imgupd/model/updater"
	"github.com/imgupd/imgupd/report"
)

// severityOf maps the model's problem severity to a finding severity.
func severityOf(s updater.Severity) report.Severity {
	switch s {
	case updater.SeverityError:
		return report.Fail
	case updater.SeverityWarning:
		return report.Warn
	}
	return report.Info
}

// problemFinding turns a model problem into a finding, with a fix that
// names the key and the value to write where the problem carries them.
func (r *run) problemFinding(p updater.Problem) report.Finding {
	d, ok := problemsByCode()[p.Code]
	code, stage := report.Code("TARGET_"+p.Code), report.StageTarget
	if ok {
		code, stage = d.code, d.stage
	}
	f := report.Finding{Code: code, Stage: stage, Severity: severityOf(p.Severity), Title: p.Message}
	if e, ok := catalogue()[code]; ok {
		f.State = e.State
		f.Detail = e.Meaning
		if e.Fix != "" {
			f.Fix = &report.Fix{Summary: e.Fix}
		}
	}
	if p.Key != "" && strings.HasPrefix(p.Key, updater.AnnotationPrefix) {
		f = f.With(ev("annotation", p.Key+"="+strconv.Quote(p.Value)))
	}
	return r.problemFix(f, p)
}

// problemFix writes the exact command for the annotation problems.
func (r *run) problemFix(f report.Finding, p updater.Problem) report.Finding {
	ns, app := r.req.Namespace, r.req.App
	where := fmt.Sprintf("Application %s/%s, metadata.annotations", ns, app)
	switch p.Code {
	case updater.ProblemImageListMissing, updater.ProblemUnknownAnnotationKey, updater.ProblemAnnotationForUnknownAlias, updater.ProblemTagMatchIgnoredInV1:
		if p.Key == "" || p.Suggest == "" {
			break
		}
		return f.WithFix(fmt.Sprintf("Rename %s to %s (same value).", p.Key, p.Suggest), where,
			r.annotateApp("rename the annotation", p.Suggest+"="+p.Value, p.Key+"-"))
	case updater.ProblemForceUpdateUnparsable:
		if p.Key == "" {
			break
		}
		return f.WithFix(fmt.Sprintf("%s is read with strconv.ParseBool: write true or false (%q is neither).", p.Key, p.Value), where,
			r.annotateApp("write true", p.Key+"=true"))
	case updater.ProblemHelmAndKustomize:
		alias := strings.TrimSuffix(strings.TrimPrefix(p.Key, updater.AnnotationPrefix), "."+updater.AnnKeyKustomizeImageName)
		drop := []string{updater.AnnotationPrefix + alias + "." + updater.AnnKeyKustomizeImageName + "-"}
		keep := "kustomize.image-name"
		if r.app != nil && r.app.Status.SourceType == updater.AppSourceKustomize {
			drop = nil
			for _, k := range []string{updater.AnnKeyHelmImageName, updater.AnnKeyHelmImageTag, updater.AnnKeyHelmImageSpec} {
				if _, ok := r.model.Annotations[updater.AnnotationPrefix+alias+"."+k]; ok {
					drop = append(drop, updater.AnnotationPrefix+alias+"."+k+"-")
				}
			}
			keep = "helm.*"
		}
		if len(drop) == 0 {
			break
		}
		return f.WithFix(fmt.Sprintf("The app's source is %s: remove the alias's %s key(s), Image Updater refuses both on one alias.", orNone(r.model.SourceType), keep), where,
			report.Command("remove the alias's "+keep+" annotations", append([]string{"kubectl", "-n", ns, "annotate", "application", app}, drop...)...))
	case updater.ProblemAnnotationsIgnoredWithoutCR, updater.ProblemNoCR:
		if f.Severity != report.Fail {
			break
		}
		ref := map[string]any{"namePattern": app, "useAnnotations": true}
		say := "create ImageUpdater " + ns + "/" + app + " that keeps reading the Application's annotations (v1.1+)"
		if _, ok := r.model.Annotations[updater.AnnotationImageList]; !ok {
			return f.WithFix("Create an ImageUpdater CR in the Application's namespace that selects it, with the images to update.", "namespace "+ns,
				report.Paste("create ImageUpdater "+ns+"/"+app+" with the images to update (only you know them: write alias and imageName, then kubectl apply -f the file)", "a new file, for kubectl apply -f", nil,
					yamlDoc(map[string]any{"apiVersion": "argocd-image-updater.argoproj.io/v1alpha1", "kind": "ImageUpdater",
						"metadata": map[string]any{"name": app, "namespace": ns},
						"spec": map[string]any{"applicationRefs": []any{map[string]any{"namePattern": app,
							"images": []any{map[string]any{"alias": "<alias>", "imageName": "<registry>/<repository>:<constraint>"}}}}}})))
		}
		return f.WithFix("Create an ImageUpdater CR in the Application's namespace that selects it.", "namespace "+ns,
			report.Apply(say, map[string]any{"apiVersion": "argocd-image-updater.argoproj.io/v1alpha1", "kind": "ImageUpdater",
				"metadata": map[string]any{"name": app, "namespace": ns}, "spec": map[string]any{"applicationRefs": []any{ref}}}))
	case updater.ProblemCRNamespaceNotWatched:
		if r.install == nil {
			break
		}
		var add []string
		for _, c := range r.target.CRs {
			if !c.Watched {
				add = append(add, crNamespace(c.CR))
			}
		}
		list := strings.Join(append(watchedList(r.install.WatchNamespaces, r.install.Namespace), add...), ",")
		return f.WithFix("Let the controller watch the CR's namespace (or move the CR into a watched one).", fmt.Sprintf("Deployment %s/%s, env IMAGE_UPDATER_WATCH_NAMESPACES", r.install.Namespace, r.install.Name),
			r.setEnvStep("watch namespaces "+list, envLit("IMAGE_UPDATER_WATCH_NAMESPACES", list)))
	case updater.ProblemWriteBackInsecureURL:
		https := strings.Replace(p.Value, "http://", "https://", 1)
		return f.WithFix("Write back to the repository's https:// (or SSH) URL.", r.writeBackPlace("repository"),
			r.writeBackStep("write back to the https:// URL", kv{"gitConfig.repository", https}))
	case updater.ProblemWriteBackSecretNamespace, updater.ProblemWriteBackSecretRef:
		name, from := p.Value, ""
		if secretNS, n, ok := strings.Cut(p.Value, "/"); ok {
			name, from = n, secretNS
		}
		if from != "" && from != ns {
			// The Secret's owner keeps it in another namespace: give Image
			// Updater credentials of the reader's own in the app's.
			return f.WithFix(fmt.Sprintf("Image Updater v1.3+ reads git:secret only in the Application's namespace %s. Create a Secret there with a token of your own that may push, and reference it (imgupd does not copy %s/%s out of the namespace its owner chose).", ns, from, name),
				r.writeBackPlace("method"), r.newGitSecretSteps(ns)...)
		}
		return f.WithFix("Reference the Secret as namespace/name.", r.writeBackPlace("method"),
			r.writeBackStep("reference the Secret in namespace "+ns, kv{"method", "git:secret:" + ns + "/" + name}))
	case updater.ProblemUnsupportedSourceType:
		if r.model.SourceType == "" {
			return f.WithFix("Argo CD could not render the manifests: fix the error it reports, then Image Updater sees the type.", "Application "+ns+"/"+app,
				report.Command("refresh the Application", "argocd", "app", "get", r.argocdApp(), "--refresh"),
				report.Command("show the render error", "argocd", "app", "manifests", r.argocdApp()))
		}
		return f.WithFix("Make the source a Kustomize (or Helm) source: Argo CD then renders it as such and Image Updater updates it.", "Application "+ns+"/"+app+", spec.source",
			r.appPatch("with a kustomization.yaml in the source path, make the source a Kustomize one", nil, []string{"spec", "source"}, kv{"kustomize", map[string]any{}}),
			report.Otherwise(r.writeBackStep("keep the directory and let git write-back force the type", kv{"method", "git"}, kv{"gitConfig.writeBackTarget", "kustomization"})))
	}
	return f
}

// watchedList is the controller's watch setting as a list ("" = its own
// namespace).
func watchedList(w, own string) []string {
	if strings.TrimSpace(w) == "" {
		return []string{own}
	}
	var out []string
	for _, x := range strings.Split(w, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}
