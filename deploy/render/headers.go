package main

// The comments that open each generated file: what it is, and how to use it.

const generated = `# GENERATED from the Helm chart deploy/helm/imgupd (its default values) by
# ` + "`make manifests`" + ` (go run ./deploy/render): change the chart, then run it again;
# test/e2e fails when this file and the chart differ.
`

const rbacHeader = generated + `#
# imgupd's ServiceAccount and its read-only RBAC (docs/install.md, "What imgupd
# may read"): no wildcards, no watch, no Secret list outside Argo CD's namespace,
# named Secrets only in Argo CD's and Image Updater's namespace, no write but its
# own leader Lease and its scheduled summaries' ConfigMap, by name (both created
# here, so imgupd creates nothing).
# test/e2e proves it is enough by impersonating the ServiceAccount against a real
# API server. Argo CD and Image Updater are taken to run in namespace argocd: for
# another, install with Helm (argocd.namespace, imageUpdater.namespace) or change
# the Roles' namespaces.
#
#   kubectl create namespace imgupd
#   kubectl apply -f deploy/rbac.yaml
`

const plainHeader = generated + `#
# imgupd's Slack bot (imgupd serve) in namespace imgupd, as plain manifests: its
# ConfigMap, Deployment, Service and PodDisruptionBudget. Before applying:
#
#   kubectl create namespace imgupd
#   kubectl apply -f deploy/rbac.yaml
#   kubectl -n imgupd create secret generic imgupd-slack \
#     --from-literal=bot-token=xoxb-… --from-literal=app-token=xapp-…
#
# then edit the access rules (and serve.cluster) in the ConfigMap below, set image:
# to the REF@sha256:… that ` + "`make image IMAGE=…`" + ` printed (the one below is not
# published), and after a change of the ConfigMap run
# kubectl -n imgupd rollout restart deploy/imgupd (Helm and Kustomize roll the pods
# themselves). docs/install.md has every way to install.
`

const kustomizeRBACHeader = generated + `#
# The ServiceAccount and read-only RBAC of the Kustomize base, the same as
# deploy/rbac.yaml. Argo CD and Image Updater are taken to run in namespace argocd.
`

const kustomizeHeader = generated + `#
# The Deployment, Service and PodDisruptionBudget of the Kustomize base; the
# ConfigMap comes from config.yaml through the configMapGenerator, so a change of
# it rolls the pods.
`

const configHeader = generated + `#
# imgupd's configuration file (the chart's default config.serve and config.access):
# the Kustomize base turns it into ConfigMap imgupd-config. Replace it in your
# overlay (configMapGenerator, behavior: replace; docs/install.md) and check it
# first with: imgupd config check --config imgupd.yaml
`

const kustomizeRBACOnlyHeader = generated + `#
# The chart with rbacOnly=true: imgupd's ServiceAccount, its read-only RBAC (the
# same rules as deploy/rbac.yaml, without the leader Lease and the summaries'
# ConfigMap, which live where imgupd runs) and a service-account-token Secret, for a
# cluster that another imgupd reads (docs/install.md, "RBAC on a remote cluster").
`
