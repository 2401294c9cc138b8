package cluster

import (
	"context"
	"errors"
	"sort"
	"sync"

	appsv1 "k8s.io/api/apps/v1"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The labels Argo CD's manifests put on its application controller's
// workload (a StatefulSet, or a Deployment with the dynamic cluster
// distribution): app.kubernetes.io/name=argocd-application-controller in
// Argo CD's own install (manifests/base/application-controller), and
// app.kubernetes.io/component=application-controller there and in the
// operator's (OpenShift GitOps names the workload <instance>-application-
// controller and its ServiceAccount <instance>-argocd-application-controller).
const (
	LabelComponent        = "app.kubernetes.io/component"
	argoControllerName    = "argocd-application-controller"
	argoControllerComp    = "application-controller"
	defaultServiceAccount = "default"
)

var errNoArgoController = errors.New("no StatefulSet or Deployment labelled " + LabelAppName + "=" + argoControllerName + " or " + LabelComponent + "=" + argoControllerComp)

// ArgoController is Argo CD's application controller workload and the
// ServiceAccount its pods run as, which reads Argo CD's repository Secrets.
type ArgoController struct {
	// Kind is StatefulSet or Deployment.
	Kind, Namespace, Name string
	// ServiceAccount is the pod template's serviceAccountName ("default"
	// when it names none).
	ServiceAccount string
	// MatchedBy is the label that identified it.
	MatchedBy string
}

// ArgoController finds Argo CD's application controller in ns: the
// StatefulSets, then the Deployments, labelled as Argo CD's manifests label
// it; the first by name when several are. When none is, the error is an
// *AccessError with NotFound set; a refused list is returned as is.
func (r *Reader) ArgoController(ctx context.Context, ns string) (*ArgoController, error) {
	type cand struct {
		kind, name, sa string
		labels         []map[string]string
	}
	var cands []cand
	// Both lists at once: the answer waits for both.
	var sts *appsv1.StatefulSetList
	var stsErr error
	var wg sync.WaitGroup
	wg.Go(func() { sts, stsErr = r.Kube.AppsV1().StatefulSets(ns).List(ctx, metav1.ListOptions{}) })
	deps, err := r.Kube.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
	wg.Wait()
	if stsErr != nil {
		return nil, newAccessError("list", "apps", "statefulsets", ns, "", stsErr)
	}
	for _, s := range sts.Items {
		cands = append(cands, cand{"StatefulSet", s.Name, s.Spec.Template.Spec.ServiceAccountName, []map[string]string{s.Labels, s.Spec.Template.Labels}})
	}
	if err != nil {
		return nil, newAccessError("list", "apps", "deployments", ns, "", err)
	}
	for _, d := range deps.Items {
		cands = append(cands, cand{"Deployment", d.Name, d.Spec.Template.Spec.ServiceAccountName, []map[string]string{d.Labels, d.Spec.Template.Labels}})
	}
	var found []ArgoController
	for _, c := range cands {
		why := ""
		for _, l := range c.labels {
			switch {
			case l[LabelAppName] == argoControllerName:
				why = LabelAppName + "=" + argoControllerName
			case why == "" && l[LabelComponent] == argoControllerComp:
				why = LabelComponent + "=" + argoControllerComp
			}
		}
		if why == "" {
			continue
		}
		sa := c.sa
		if sa == "" {
			sa = defaultServiceAccount
		}
		found = append(found, ArgoController{Kind: c.kind, Namespace: ns, Name: c.name, ServiceAccount: sa, MatchedBy: why})
	}
	if len(found) == 0 {
		return nil, &AccessError{Verb: "list", Group: "apps", Resource: "statefulsets", Namespace: ns, NotFound: true,
			Err: errNoArgoController}
	}
	// StatefulSets first (Argo CD's default), then by name.
	sort.SliceStable(found, func(i, j int) bool {
		if found[i].Kind != found[j].Kind {
			return found[i].Kind == "StatefulSet"
		}
		return found[i].Name < found[j].Name
	})
	return &found[0], nil
}
