package updater

// Version predicates of the configuration model (selection, annotations,
// write-back). The shared ones live in version.go.

// GitSecretMayOmitNamespace: from v1.3.0 "git:secret:<name>" names a secret
// in the Application's namespace; earlier versions require
// "git:secret:<namespace>/<name>" and fail at commit time with "secret ref
// must be in format 'namespace/name'" (gitcreds.go before and after PR #1732).
func (v Version) GitSecretMayOmitNamespace() bool { return v.AtLeast(1, 3, 0) }

// RejectsBareKustomizationTarget: v1.3.0 (PR #1766) refuses a bare
// write-back target path that names a kustomization file instead of
// silently overwriting it with an override document.
func (v Version) RejectsBareKustomizationTarget() bool { return v.AtLeast(1, 3, 0) }

// ForcesHelmFromWriteBackTarget: v1.x treats an Application as Helm when the
// git write-back target is a .yaml/.yml file other than the default
// .argocd-source-* file (helmvalues or a bare path). v0.x only forces
// Kustomize from a kustomization target (PR #309).
func (v Version) ForcesHelmFromWriteBackTarget() bool { return v.UsesCRs() }

// CreatesHelmValuesTarget: git write-back to a helmvalues: file that does
// not exist creates it ("allow non-exists target file", marshalParamsOverride
// in pkg/argocd/update.go, v0.17.0+); earlier versions fail the commit.
func (v Version) CreatesHelmValuesTarget() bool { return v.AtLeast(0, 17, 0) }
